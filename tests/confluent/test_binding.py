"""The Confluent API as one binding of the kernel: what no view answers (an unknown path under /confluent, a method)
is Confluent's error too; the kernel's reader reads the bodies Confluent's clients send (its media types,
octet-stream, none) and refuses the rest (415, 413 as 42209, malformed 400) with nothing written."""

import json

import httpx
import pytest

from tests.confluent.test_errors import MEDIA, USER, refused, state

pytestmark = pytest.mark.django_db(transaction=True)


def test_unknown_paths_under_confluent_are_confluents_404(http, base_url, live_server, writer):
    before = state()
    for method, path in (
        ("GET", "/nothing/here"),
        ("POST", "/schemas/nothing"),
        ("DELETE", "/schemas/ids/1/nothing"),
        ("GET", "/exporters"),
    ):
        message = refused(http.request(method, path), 404, 404)
        assert path in message, message
    # anonymous callers get the same answer, and so does the base without its slash
    refused(httpx.get(f"{base_url}/nothing"), 404, 404)
    refused(httpx.get(base_url), 404, 404)
    # outside /confluent the other bindings keep their own documents
    other = httpx.get(f"{live_server.url}/registry/nothing/here")
    assert other.status_code == 404 and "error_code" not in other.json()
    assert state() == before


def test_methods_not_allowed(http):
    before = state()
    response = http.delete("/schemas/types")
    refused(response, 405, 405)
    assert response.headers["allow"] == "GET, HEAD, OPTIONS"
    refused(http.put("/subjects"), 405, 405)
    assert state() == before


@pytest.mark.parametrize(
    "media_type",
    [MEDIA, "application/vnd.schemaregistry+json", "application/json", "application/octet-stream", None],
)
def test_the_bodies_the_clients_send(http, media_type):
    headers = {"Content-Type": media_type} if media_type else {}
    request = http.build_request("POST", "/subjects/s/versions", content=json.dumps({"schema": USER}))
    request.headers.pop("Content-Type", None)  # none sent: the binding reads a bare body as JSON
    request.headers.update(headers)
    response = http.send(request)
    assert response.status_code == 200 and (response.json()["id"], response.json()["version"]) == (1, 1), response.text


def test_bodies_refused_write_nothing(http, settings):
    before = state()
    refused(
        http.post("/subjects/s/versions", content=b'{"schema": "x"}', headers={"Content-Type": "text/csv"}), 415, 415
    )
    refused(http.post("/subjects/s/versions", content=b"", headers={"Content-Type": MEDIA}), 400, 400)
    refused(http.post("/subjects/s/versions", content=b"[1]", headers={"Content-Type": MEDIA}), 400, 400)
    dup = b'{"schema": "\\"int\\"", "schema": "\\"long\\""}'
    refused(http.post("/subjects/s/versions", content=dup, headers={"Content-Type": MEDIA}), 400, 400)
    settings.REGISTRY_MAX_BODY_BYTES = 64
    message = refused(http.post("/subjects/s/versions", json={"schema": USER}), 413, 42209)
    assert "REGISTRY_MAX_BODY_BYTES" in message
    assert state() == before
