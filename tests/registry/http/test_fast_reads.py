"""The fast path of public document reads (registry/http/fast_reads.py) answers exactly what the full view answers.

For every route it serves (latest and by version, in the 0.5 binding, xRegistry 1.0 and both older bindings), for
anonymous and token callers, GET and HEAD, with and without a matching If-None-Match, a document kept elsewhere
(307/303) and a sticky default version (1.0): the status, every header (ETag, Cache-Control, Vary, Content-Type,
Registry-*/xRegistry-* with 1.0's percent-encoding, Link) but X-Request-ID, and the body of the answer the fast path
replays equal the answer of the full view (REGISTRY_FAST_READS=0), and the replay is the fast path's (its debug log).
It defers whenever a rule of the caller's could apply (reads not public, HTTP Basic, a session, a bad token), and a
write shows in the next read, including one that changes only another row the answer depends on.
"""

from __future__ import annotations

import base64
import logging

import pytest
from django.db import connection
from django.test import RequestFactory, override_settings
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from config.wsgi import application  # sets Django up again, logging too: at import, not in a test (caplog)
from registry.http.fast_reads import KeptAnswers
from tests.conftest import token_client
from tests.helpers import (
    TEXT,
    make_definition_group,
    make_group,
    new_version,
    post_definition,
    post_schema,
    send,
    send_json,
)

pytestmark = pytest.mark.django_db
LOGGER = "registry.http.fast_reads"

# every route the fast path serves, over the data of the `registry` fixture
PATHS = [
    "/schemaGroups/g1/schemas/s1",
    "/schemaGroups/g1/schemas/s1/versions/2",
    "/schemaGroups/g1/schemas/far",  # kept elsewhere: 307
    "/schemaGroups/g1/schemas/far/versions/1",
    "/definitionGroups/dg1/definitions/d1",
    "/definitionGroups/dg1/definitions/d1/versions/1",
    "/registry/schemagroups/g1/schemas/s1",
    "/registry/schemagroups/g1/schemas/s1/versions/1",
    "/registry/schemagroups/g1/schemas/sticky",  # a sticky default version that is not the latest
    "/registry/schemagroups/g1/schemas/sticky/versions/2",
    "/registry/schemagroups/g1/schemas/far",  # kept elsewhere: 303
    "/schemaregistry/schemagroups/g1/schemas/s1",
    "/schemaregistry/schemagroups/g1/schemas/s1/versions/3",
    "/schemaregistry/schemagroups/g1/schemas/far/versions/1",
    "/schemaregistry/schemagroups/g1/schemas/s1/versions/01",  # version 1, spelled otherwise
    "/messagecatalog/dg1/messagedefinitions/d1",
    "/messagecatalog/dg1/messagedefinitions/d1/versions/1",
]


@pytest.fixture
def registry(su):
    make_group(su, "g1")
    described = "Gr\u00fc\u00dfe aus K\u00f6ln, 100%".encode().decode("latin-1")  # a header's UTF-8 bytes
    post_schema(su, "g1", "s1", body=b"first", description=described, tags_team="a b")
    new_version(su, "g1", "s1", body=b'{"second": true}', content_type="application/json")
    new_version(su, "g1", "s1", body=b"third", name="third one")
    send(
        su, "POST", "/schemaGroups/g1/schemas", b"", TEXT, id="far", format="Custom/1", schemaURI="https://x.example/a"
    )
    post_schema(su, "g1", "sticky", body=b"one")
    new_version(su, "g1", "sticky", body=b"two")
    sticky = send_json(su, "PATCH", "/registry/schemagroups/g1/schemas/sticky/meta", {"defaultversionid": "1"})
    assert sticky.status_code == 200 and sticky.json()["defaultversionsticky"] is True
    make_definition_group(su, "dg1")
    post_definition(su, "dg1", "d1", description="a definition")
    return su


def answer(response) -> tuple:
    headers = sorted((k.lower(), v) for k, v in response.items() if k.lower() != "x-request-id")
    return response.status_code, headers, response.content


def replayed(caplog) -> bool:
    return any(r.name == LOGGER and r.getMessage().startswith("kept answer") for r in caplog.records)


def read(client, method: str, path: str, **headers):
    return client.generic(method, path, headers=headers)


def full_and_fast(client, method, path, caplog, **headers):
    """(the full view's answer, the fast path's first answer (the full view's, kept), its replay, replayed?)."""
    with override_settings(REGISTRY_FAST_READS=False):
        full = read(client, method, path, **headers)
    first = read(client, method, path, **headers)
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        again = read(client, method, path, **headers)
    return full, first, again, replayed(caplog)


@pytest.mark.parametrize("caller", ["anonymous", "token"])
def test_every_route_answers_as_the_full_view(registry, superuser, caller, caplog):
    client = APIClient() if caller == "anonymous" else registry
    for path in PATHS:
        tag = client.get(path).get("ETag")
        variants = [("GET", {}), ("HEAD", {}), ("GET", {"If-None-Match": '"other"'})]
        if tag:
            variants += [("GET", {"If-None-Match": tag}), ("HEAD", {"If-None-Match": f'"x", W/{tag}'})]
        for method, headers in variants:
            full, first, again, fast = full_and_fast(client, method, path, caplog, **headers)
            where = (caller, method, path, headers)
            assert full.status_code in (200, 303, 304, 307), (where, full.content)
            assert answer(first) == answer(full), where
            assert answer(again) == answer(full), where
            assert fast, where
            if full.status_code == 304:
                assert again.content == b"" and again["ETag"] == tag, where


def test_what_the_answers_hold(registry, caplog):
    """The routes above are the ones the brief names: a sanity check of what is compared."""
    anon = APIClient()
    latest = anon.get("/schemaGroups/g1/schemas/s1")
    assert latest.content == b"third" and latest["Registry-version"] == "3" and latest["Cache-Control"] == "no-cache"
    v10 = anon.get("/registry/schemagroups/g1/schemas/s1/versions/1")
    assert v10["xRegistry-description"] == "Gr%C3%BC%C3%9Fe%20aus%20K%C3%B6ln,%20100%25"
    assert "rel=xregistry-root" in v10["Link"]
    assert anon.get("/registry/schemagroups/g1/schemas/sticky").content == b"one"
    assert anon.get("/registry/schemagroups/g1/schemas/far").status_code == 303
    assert anon.get("/schemaGroups/g1/schemas/far").status_code == 307
    assert registry.get("/schemaGroups/g1/schemas/s1")["Cache-Control"] == "private, no-cache"
    assert "Authorization" in latest["Vary"]


@override_settings(REGISTRY_PUBLIC_READ=False)
def test_reads_that_are_not_public_go_the_whole_way(registry, caplog):
    """With REGISTRY_PUBLIC_READ=0 (where per-group reader roles apply) nothing is replayed, signed in or not."""
    for client in (APIClient(), registry):
        for path in PATHS[:2] + PATHS[6:8] + PATHS[11:12]:
            full, first, again, fast = full_and_fast(client, "GET", path, caplog)
            assert not fast, path
            assert answer(first) == answer(full) and answer(again) == answer(full), path
    assert APIClient().get(PATHS[0]).status_code == 401
    assert registry.get(PATHS[0]).status_code == 200


def test_callers_the_fast_path_does_not_judge_go_the_whole_way(registry, superuser, django_user_model, caplog):
    basic = APIClient()
    basic.credentials(HTTP_AUTHORIZATION="Basic " + base64.b64encode(b"alice:pw").decode())
    session = APIClient()
    session.force_login(superuser)
    unknown = APIClient()
    unknown.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    malformed = APIClient()
    malformed.credentials(HTTP_AUTHORIZATION="Token a b")
    inactive_user = django_user_model.objects.create_user("bob", password="pw", is_active=False)
    inactive = token_client(inactive_user)
    expected = {basic: 200, session: 200, unknown: 401, malformed: 401, inactive: 401}
    for client, status in expected.items():
        for path in (PATHS[0], PATHS[6], PATHS[11]):
            full, first, again, fast = full_and_fast(client, "GET", path, caplog)
            assert not fast, path
            assert full.status_code == status, (path, full.content)
            assert answer(first) == answer(full) and answer(again) == answer(full), path


def test_a_deleted_token_is_refused_at_once(registry, django_user_model, caplog):
    reader = token_client(django_user_model.objects.create_user("carol", password="pw"))
    assert reader.get(PATHS[0]).status_code == 200 and reader.get(PATHS[0]).status_code == 200
    Token.objects.filter(key=reader._credentials["HTTP_AUTHORIZATION"].split()[1]).delete()
    assert reader.get(PATHS[0]).status_code == 401


def test_an_anonymous_replay_reads_no_token(registry, caplog):
    """A replay's one query reads the token table only for a caller who gives a token: an anonymous read's query
    leaves it out (its sub-query cost PostgreSQL work at every read, docs/performance.md)."""
    for client, with_token in ((APIClient(), False), (registry, True)):
        for path in (PATHS[0], PATHS[6], PATHS[7]):  # latest, 1.0's with its history, by version
            client.get(path)  # kept
            caplog.clear()
            with CaptureQueriesContext(connection) as queries, caplog.at_level(logging.DEBUG, logger=LOGGER):
                assert client.get(path).status_code == 200
            assert replayed(caplog) and len(queries) == 1, (path, with_token)
            assert (Token._meta.db_table in queries[0]["sql"]) is with_token, (path, queries[0]["sql"])


def test_requests_with_flags_or_other_preconditions_go_the_whole_way(registry, caplog):
    anon = APIClient()
    tag = anon.get(PATHS[0])["ETag"]
    cases = [
        ("GET", PATHS[0] + "?meta", {}),
        ("GET", PATHS[0] + "?unknown", {}),
        ("GET", "/registry/schemagroups/g1/schemas/s1$details", {}),
        ("GET", "/registry/schemagroups/g1/schemas/s1/meta", {}),
        ("GET", PATHS[0], {"If-Match": tag}),
        ("GET", PATHS[0], {"If-Match": '"stale"'}),  # 412
        ("GET", PATHS[0], {"If-Modified-Since": "Wed, 21 Oct 2015 07:28:00 GMT"}),
        ("GET", PATHS[0], {"Range": "bytes=0-1"}),
        ("GET", "/schemaGroups/g1/schemas/nope", {}),  # 404s in each binding's words
        ("GET", "/registry/schemagroups/g1/schemas/nope/versions/1", {}),
        ("GET", "/schemaregistry/schemagroups/g1/schemas/s1/versions/9", {}),
        ("GET", "/schemaGroups/g1/schemas/s%00x", {}),
        ("GET", "/registry/schemagroups/g1/schemas/bad%20id", {}),  # 400 malformed id in 1.0
        ("POST", PATHS[0], {}),
    ]
    for method, path, headers in cases:
        full, first, again, fast = full_and_fast(anon, method, path, caplog, **headers)
        assert not fast, path
        assert answer(first) == answer(full) and answer(again) == answer(full), (path, headers)
    other_host = full_and_fast(anon, "GET", PATHS[0], caplog, Host="evil.example")
    assert other_host[0].status_code == 400 and not other_host[3]


def test_a_write_shows_in_the_next_read(registry, caplog):
    anon = APIClient()
    watched = PATHS + ["/registry/schemagroups/g1/schemas/s1/versions/3", "/registry/schemagroups/g1/schemas/s1/meta"]
    for path in watched:
        anon.get(path)
        anon.get(path)

    def same_as_full():
        for path in watched:
            with override_settings(REGISTRY_FAST_READS=False):
                full = anon.get(path)
            assert answer(anon.get(path)) == answer(full), path

    new_version(registry, "g1", "s1", body=b"fourth")  # the latest changes
    assert anon.get(PATHS[0]).content == b"fourth"
    assert anon.get("/registry/schemagroups/g1/schemas/s1")["xRegistry-versionscount"] == "4"
    same_as_full()
    # deleting version 2 changes only version 3's ancestor (another row than the one read)
    assert registry.delete("/schemaGroups/g1/schemas/s1/versions/2").status_code == 200
    assert anon.get("/registry/schemagroups/g1/schemas/s1/versions/3")["xRegistry-ancestorid"] == "1"
    same_as_full()
    # the resource's own attributes (1.0 meta: the sticky default moves)
    sticky_meta = "/registry/schemagroups/g1/schemas/sticky/meta"
    moved = send_json(registry, "PATCH", sticky_meta, {"defaultversionid": "2", "defaultversionsticky": True})
    assert moved.status_code == 200 and moved.json()["defaultversionid"] == "2", moved.content
    assert anon.get("/registry/schemagroups/g1/schemas/sticky").content == b"two"
    send_json(registry, "PATCH", "/registry/schemagroups/g1/schemas/sticky/meta", {"defaultversionsticky": False})
    same_as_full()
    # a version's metadata
    described = send_json(
        registry, "PUT", "/schemaGroups/g1/schemas/s1/versions/3?meta", {"description": "now described"}
    )
    assert described.status_code == 200, described.content
    assert anon.get("/schemaGroups/g1/schemas/s1/versions/3")["Registry-description"] == "now described"
    same_as_full()
    # deleted: the whole way's 404
    assert registry.delete("/schemaGroups/g1/schemas/s1").status_code == 200
    assert anon.get(PATHS[0]).status_code == 404
    same_as_full()


def test_kept_answers_stay_within_their_budget():
    budget = 64 * 1024
    kept = KeptAnswers()
    with override_settings(REGISTRY_FAST_READ_BYTES=budget):
        for n in range(100):
            body = bytes(3000)
            store = {"content-type": ("Content-Type", "text/plain"), "etag": ("ETag", f'"{n}"')}
            kept.add((f"/p{n}", "http", "h", False), ((body,),), ("GET", False), (200, store, body), f'"{n}"')
            assert kept.size <= budget
        assert kept.get(("/p99", "http", "h", False), ((body,),)) is not None  # the newest are kept
        assert kept.get(("/p0", "http", "h", False), ((body,),)) is None  # the oldest went first
        large = bytes(budget // 8)
        kept.add(("/large", "http", "h", False), (large,), ("GET", False), (200, {}, large), None)
        assert kept.get(("/large", "http", "h", False), (large,)) is None  # larger than an eighth: not kept
        assert kept.size <= budget


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_as_under_gunicorn(registry, caplog):
    """Committed data, no transaction open: on PostgreSQL the key is read on a connection of its own from the pool
    (registry/store/document_keys.py); the answers and their freshness are the same."""
    anon = APIClient()
    for path in PATHS[:2] + PATHS[6:10] + PATHS[11:13]:
        full, first, again, fast = full_and_fast(anon, "GET", path, caplog)
        assert fast and answer(first) == answer(full) and answer(again) == answer(full), path
    new_version(registry, "g1", "s1", body=b"fourth")
    assert anon.get(PATHS[0]).content == b"fourth"
    assert anon.get("/registry/schemagroups/g1/schemas/s1")["xRegistry-versionscount"] == "4"


def through_wsgi(method: str, path: str, **headers):
    """(status, headers but X-Request-ID, body, X-Request-ID) of `config.wsgi.application`, the WSGI entry point
    gunicorn serves: the fast path's WSGI layer in front of Django's handler."""
    environ = RequestFactory().generic(method, path, headers=headers).environ
    started = []
    body = b"".join(application(environ, lambda status, response_headers: started.append((status, response_headers))))
    status, response_headers = started[0]
    request_id = [v for k, v in response_headers if k.lower() == "x-request-id"]
    kept = sorted((k.lower(), v) for k, v in response_headers if k.lower() != "x-request-id")
    return int(status.split()[0]), kept, body, request_id


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("caller", ["anonymous", "token"])
def test_the_wsgi_layer_answers_as_the_full_view(registry, caller, caplog, settings):
    """Through the WSGI entry point, committed data (as under gunicorn): every route's answers equal the full
    view's. On PostgreSQL (the key read on a pool connection) the kept answers are written out before the framework
    runs; elsewhere the layer hands every request to Django, whose middleware replays them."""
    headers = {} if caller == "anonymous" else {"Authorization": registry._credentials["HTTP_AUTHORIZATION"]}
    client = APIClient() if caller == "anonymous" else registry
    early = settings.DATABASES["default"]["ENGINE"].endswith("postgresql") and "pool" in settings.DATABASES[
        "default"
    ].get("OPTIONS", {})
    for path in PATHS:
        tag = client.get(path).get("ETag")
        variants = [("GET", {}), ("HEAD", {})] + ([("GET", {"If-None-Match": tag})] if tag else [])
        for method, extra in variants:
            with override_settings(REGISTRY_FAST_READS=False):
                full = answer(read(client, method, path, **extra))
            first = through_wsgi(method, path, **headers, **extra)  # kept by the middleware
            caplog.clear()
            with caplog.at_level(logging.DEBUG, logger=LOGGER):
                again = through_wsgi(method, path, **headers, **extra)
            where = (caller, method, path, extra)
            assert first[:3] == full and again[:3] == full, where
            assert len(again[3]) == 1 and len(again[3][0]) == 32 and again[3] != first[3], where  # a new id each
            messages = [r.getMessage() for r in caplog.records if r.name == LOGGER]
            assert any(m.startswith("kept answer") for m in messages), where
            assert any(m.endswith("(before the framework)") for m in messages) == early, where
    # a write shows in the next read through the WSGI layer too
    new_version(registry, "g1", "s1", body=b"fourth")
    assert through_wsgi("GET", PATHS[0], **headers)[2] == b"fourth"
    assert ("xregistry-versionscount", "4") in through_wsgi("GET", "/registry/schemagroups/g1/schemas/s1", **headers)[1]
    # a request id sent by a proxy is kept, a malformed one replaced
    assert through_wsgi("GET", PATHS[0], **headers, **{"X-Request-ID": "trace-7"})[3] == ["trace-7"]
    assert through_wsgi("GET", PATHS[0], **headers, **{"X-Request-ID": "bad id"})[3] != ["bad id"]


@pytest.mark.django_db(transaction=True)
def test_the_wsgi_layer_hands_everything_else_to_django(registry, caplog):
    """What the fast path does not serve goes through Django's handler unchanged (its own answers: 401, 404, a flag,
    a write)."""
    cases = [
        ("GET", PATHS[0] + "?meta", {}),
        ("GET", "/schemaGroups/g1/schemas/nope", {}),
        ("GET", PATHS[0], {"Authorization": "Token " + "0" * 40}),
        ("GET", PATHS[0], {"Host": "evil.example"}),
    ]
    anon = APIClient()
    for method, path, headers in cases:
        expected = answer(anon.generic(method, path, headers=headers))
        caplog.clear()
        with caplog.at_level(logging.DEBUG, logger=LOGGER):
            got = through_wsgi(method, path, **headers)
        assert got[:3] == expected, (path, headers)
        assert not any(r.name == LOGGER and "kept answer" in r.getMessage() for r in caplog.records), (path, headers)
    assert expected[0] == 400  # the host Django does not accept
    posted = through_wsgi("DELETE", PATHS[0])
    assert posted[0] == 401 and APIClient().get(PATHS[0]).status_code == 200  # nothing deleted
