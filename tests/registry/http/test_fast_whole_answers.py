"""The fast path serves whole-registry answers again (registry/http/fast_reads.py, `probe`): `GET /?inline`,
the 0.5 JSON and YAML exports, 1.0's `?inline` and `/registry/export`, kept under the change marker.

For each, anonymous and with a token, GET, HEAD and a revalidation: the status, every header but X-Request-ID and the
body of the replayed answer equal the full view's (REGISTRY_FAST_READS=0), and the replay is the fast path's (its debug
log). A write through any door shows in the next read; a caller the fast path does not judge (a session, HTTP Basic,
an unknown token, reads not public) goes the whole way; a request that never had a whole-registry answer (`GET /`)
costs no query of the fast path's. Through the WSGI entry point on PostgreSQL the answer is written out before the
framework runs.
"""

from __future__ import annotations

import base64
import logging

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.helpers import make_group, post_schema, send_json
from tests.registry.http.test_fast_reads import LOGGER, full_and_fast, read, replayed, through_wsgi

pytestmark = pytest.mark.django_db

YAML, EXPORT = "application/cloudevents-registry+yaml", "application/cloudevents-registry+json"
WHOLE = [  # (path, Accept)
    ("/?inline", None),
    ("/?inline", EXPORT),
    ("/?inline", YAML),
    ("/registry?inline=*", None),
    ("/registry/?doc&inline=*", None),
    ("/registry/export", None),
]


def answer(response) -> tuple:
    """(status, headers but X-Request-ID, body): a first read of a registry streams its answer."""
    headers = sorted((k.lower(), v) for k, v in response.items() if k.lower() != "x-request-id")
    content = b"".join(response.streaming_content) if response.streaming else response.content
    return response.status_code, headers, content


def accept(value: str | None) -> dict:
    return {"Accept": value} if value else {}


@pytest.fixture
def registry(su):
    make_group(su, "g1", description="before-the-change")
    post_schema(su, "g1", "s1", body=b'{"type": "object"}')
    return su


def warm(client, path, **headers):
    """Read until the whole answer is kept as bytes (the first read of a registry streams it)."""
    for _ in range(2):
        answer(read(client, "GET", path, **headers))


@pytest.mark.parametrize("caller", ["anonymous", "token"])
def test_whole_answers_are_replayed_as_the_full_view(registry, caller, caplog):
    client = APIClient() if caller == "anonymous" else registry
    for path, media in WHOLE:
        warm(client, path, **accept(media))
        tag = read(client, "GET", path, **accept(media))["ETag"]
        for method, extra in [
            ("GET", {}),
            ("HEAD", {}),
            ("GET", {"If-None-Match": tag}),
            ("GET", {"If-None-Match": '"x"'}),
        ]:
            full, first, again, fast = full_and_fast(client, method, path, caplog, **accept(media), **extra)
            where = (caller, method, path, media, extra)
            assert full.status_code == (304 if extra.get("If-None-Match") == tag else 200), where
            assert answer(first) == answer(full) and answer(again) == answer(full), where
            assert fast, where


def test_a_change_shows_in_the_next_read(registry, caplog):
    anon = APIClient()
    for path, media in WHOLE:
        warm(anon, path, **accept(media))
    old = {(path, media): read(anon, "GET", path, **accept(media)) for path, media in WHOLE}
    assert send_json(registry, "PUT", "/schemaGroups/g1", {"description": "after-the-change"}).status_code == 200
    for path, media in WHOLE:
        changed = read(anon, "GET", path, **accept(media))
        content = answer(changed)[2]
        assert b"after-the-change" in content and b"before-the-change" not in content, (path, media)
        assert changed["ETag"] != old[(path, media)]["ETag"], (path, media)
        with override_settings(REGISTRY_FAST_READS=False):
            full = read(anon, "GET", path, **accept(media))
        assert answer(read(anon, "GET", path, **accept(media))) == answer(full), (path, media)


def test_callers_the_fast_path_does_not_judge_go_the_whole_way(registry, superuser, django_user_model, caplog):
    basic = APIClient()
    basic.credentials(HTTP_AUTHORIZATION="Basic " + base64.b64encode(b"alice:pw").decode())
    session = APIClient()
    session.force_login(superuser)
    unknown = APIClient()
    unknown.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    warm(APIClient(), "/?inline")
    warm(registry, "/?inline")
    for client, status in {basic: 200, session: 200, unknown: 401}.items():
        full, first, again, fast = full_and_fast(client, "GET", "/?inline", caplog)
        assert not fast and full.status_code == status
        assert answer(first) == answer(full) and answer(again) == answer(full)
    key = registry._credentials["HTTP_AUTHORIZATION"].split()[1]
    Token.objects.filter(key=key).delete()  # a token gone is refused at once, its answer kept or not
    assert registry.get("/?inline").status_code == 401


@override_settings(REGISTRY_PUBLIC_READ=False)
def test_reads_that_are_not_public_go_the_whole_way(registry, caplog):
    for client in (APIClient(), registry):
        warm(client, "/?inline")
        full, first, again, fast = full_and_fast(client, "GET", "/?inline", caplog)
        assert not fast and answer(first) == answer(full) and answer(again) == answer(full)
    assert APIClient().get("/?inline").status_code == 401


def test_other_reads_cost_no_query_of_the_fast_path(registry, caplog):
    """`GET /`, 1.0's root (kept under the registry's own state) and a collection never had a whole-registry answer
    the fast path keeps: no marker is read for them."""
    anon = APIClient()
    for path in ("/", "/?model", "/registry", "/schemaGroups", "/registry/model"):
        read(anon, "GET", path)
        with override_settings(REGISTRY_FAST_READS=False), CaptureQueriesContext(connection) as without:
            full = read(anon, "GET", path)
        caplog.clear()
        with caplog.at_level(logging.DEBUG, logger=LOGGER), CaptureQueriesContext(connection) as with_fast:
            again = read(anon, "GET", path)
        assert answer(again) == answer(full) and not replayed(caplog), path
        assert len(with_fast) == len(without), (path, [q["sql"] for q in with_fast.captured_queries])


def test_an_anonymous_replay_reads_no_token(registry, caplog):
    """A whole answer's replay reads the marker with the token table only for a caller who gives a token (its
    sub-query cost PostgreSQL work at every anonymous read, docs/performance.md)."""
    for client, with_token in ((APIClient(), False), (registry, True)):
        warm(client, "/?inline")
        caplog.clear()
        with CaptureQueriesContext(connection) as queries, caplog.at_level(logging.DEBUG, logger=LOGGER):
            assert read(client, "GET", "/?inline").status_code == 200
        assert replayed(caplog) and len(queries) == 1, with_token
        assert (Token._meta.db_table in queries[0]["sql"]) is with_token, queries[0]["sql"]


@pytest.mark.django_db(transaction=True)
def test_the_wsgi_layer_replays_whole_answers(registry, caplog, settings):
    """Committed data through the WSGI entry point, as under gunicorn: the replay equals the full view's answer, on
    PostgreSQL before the framework runs; a write shows in the next read."""
    early = settings.DATABASES["default"]["ENGINE"].endswith("postgresql") and "pool" in settings.DATABASES[
        "default"
    ].get("OPTIONS", {})
    token = {"Authorization": registry._credentials["HTTP_AUTHORIZATION"]}
    for headers in ({}, token):
        for path, media in WHOLE:
            with override_settings(REGISTRY_FAST_READS=False):
                warm(APIClient(), path, **accept(media), **headers)
                full = answer(read(APIClient(), "GET", path, **accept(media), **headers))
            through_wsgi("GET", path, **accept(media), **headers)
            first = through_wsgi("GET", path, **accept(media), **headers)
            caplog.clear()
            with caplog.at_level(logging.DEBUG, logger=LOGGER):
                again = through_wsgi("GET", path, **accept(media), **headers)
            assert first[:3] == full and again[:3] == full, (path, media, headers)
            messages = [r.getMessage() for r in caplog.records if r.name == LOGGER]
            assert any(m.startswith("kept answer") for m in messages), (path, media, headers)
            assert any(m.endswith("(before the framework)") for m in messages) == early, (path, media, headers)
    assert send_json(registry, "PUT", "/schemaGroups/g1", {"description": "after-the-change"}).status_code == 200
    assert b"after-the-change" in through_wsgi("GET", "/?inline")[2]
    assert through_wsgi("GET", "/?inline", Authorization="Token " + "0" * 40)[0] == 401
