"""`xr import` against this server, in the request shape of the xRegistry CLI (xregistry/server `cmds/xr`): the
whole 1.0 document POSTed to `/registry/` with no `Content-Type` and the credentials as HTTP Basic auth (`xr`
takes them from `http://user:password@host/registry`), then the answer read as the CLI reads it: every top-level
member a map of groups (core/http.md `POST /`). Against the development server `make run` starts (which reports a
missing Content-Type as `text/plain`) and against gunicorn (which reports none). Issue 23."""

import base64
import json

import httpx
import pytest

from tests.corpus import documents
from tests.harness.gunicorn import start_gunicorn

RC4_DOCUMENTS = documents("rc4", "*.xreg.json")  # skips the module without ../shared (tests/corpus.py)


@pytest.fixture(scope="module", params=["runserver", "gunicorn"])
def server(request, tmp_path_factory):
    # under the default level: watchkam's version 2 breaks its version 1, and an import's history is stored as given
    # (CONTRACT 18)
    process, base, _token = start_gunicorn(
        tmp_path_factory.mktemp(request.param), development=request.param == "runserver"
    )
    yield base
    process.stop()


@pytest.mark.slow
@pytest.mark.own_sqlite_server
def test_xr_import_of_each_rc4_document(server):
    for path in RC4_DOCUMENTS:
        basic = "Basic " + base64.b64encode(b"ops:pw").decode()
        request = httpx.Request(
            "POST", f"{server}/registry/", content=path.read_bytes(), headers={"Authorization": basic}
        )
        assert "content-type" not in request.headers  # xr sends none
        response = httpx.Client(timeout=60).send(request)
        assert response.status_code == 200, (path.name, response.text[:2000])
        answer = response.json()
        sent = {
            k for k, v in json.loads(path.read_text()).items() if k in ("endpoints", "messagegroups", "schemagroups")
        }
        assert set(answer) == sent, (path.name, sorted(answer))
        for groups in answer.values():  # what xr decodes: maps of group entities
            assert isinstance(groups, dict) and groups
            for gid, group in groups.items():
                assert isinstance(group, dict) and group["xid"].endswith(f"/{gid}") and "createdat" in group
