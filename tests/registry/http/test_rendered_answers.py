"""Issue 14: the whole registry (`GET /?inline`, the JSON and YAML exports) is served as rendered until the next
committed change, and a change is visible in the very next read; answers over the size limit stream as before."""

import json

import pytest

from tests.helpers import make_group, send_json

pytestmark = pytest.mark.django_db

VARIANTS = [
    {},
    {"HTTP_ACCEPT": "application/cloudevents-registry+json"},
    {"HTTP_ACCEPT": "application/cloudevents-registry+yaml"},
]


def body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


@pytest.mark.parametrize("limit", [32 * 1024 * 1024, 0])
@pytest.mark.parametrize("headers", VARIANTS)
def test_every_change_is_in_the_next_whole_registry_read(su, anon, settings, limit, headers):
    settings.REGISTRY_RENDERED_ANSWER_BYTES = limit
    make_group(su, "g1", description="first")
    first = anon.get("/?inline", **headers)
    first_body = body(first)
    assert first.status_code == 200 and b"first" in first_body
    again = anon.get("/?inline", **headers)
    streamed = limit == 0 and "yaml" not in headers.get("HTTP_ACCEPT", "")  # YAML is rendered in memory anyway
    assert again.streaming == streamed  # kept and served as bytes, unless over the limit
    assert body(again) == first_body and again["ETag"] == first["ETag"]
    assert send_json(su, "PUT", "/schemaGroups/g1", {"description": "second"}).status_code == 200
    changed = anon.get("/?inline", **headers)
    changed_body = body(changed)
    assert b"second" in changed_body and b"first" not in changed_body
    assert changed["ETag"] != first["ETag"]
    assert send_json(su, "DELETE", "/schemaGroups/g1").status_code == 200
    assert b"g1" not in body(anon.get("/?inline", **headers))


def test_variants_and_hosts_are_kept_apart(su, anon):
    make_group(su, "g1")
    inline = json.loads(body(anon.get("/?inline")))
    export = json.loads(body(anon.get("/?inline", HTTP_ACCEPT="application/cloudevents-registry+json")))
    assert "model" in inline and "model" not in export
    assert inline["self"] == "http://testserver/"
    other = json.loads(body(anon.get("/?inline", HTTP_HOST="localhost")))
    assert other["self"] == "http://localhost/"
    assert json.loads(body(anon.get("/?inline")))["self"] == "http://testserver/"


def test_revalidation_of_a_kept_answer_is_304(su, anon):
    make_group(su, "g1")
    tag = anon.get("/?inline")["ETag"]
    assert anon.get("/?inline", HTTP_IF_NONE_MATCH=tag).status_code == 304
    make_group(su, "g2")
    assert anon.get("/?inline", HTTP_IF_NONE_MATCH=tag).status_code == 200
