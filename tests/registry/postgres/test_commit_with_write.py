"""A new version's COMMIT sent with its insert, in one round trip (issue 29, registry/sent_together.py `then_commit`).

Every new version of a schema holds the schema's row lock until its transaction commits; sending the COMMIT with the
statements of the write releases it one round trip earlier. What a user sees stays as it was:

- a new version, its change event and its audit row are committed, the on-commit listeners (the relay) hear of it
  once, the change marker moves; the COMMIT went with the insert's statements (the transaction is idle when their
  round trip ends);
- inside a transaction of the caller's (an import, a test's block) nothing is committed early: when that transaction
  rolls back, the version is gone with it;
- a statement of the write that the database refuses (here a check constraint on the outbox added for the test)
  skips the COMMIT sent after it: the write is refused with a problem, nothing is written, and the next write on the
  same connection works;
- a statement sent after such a block, in the same transaction, raises before it is sent (it would run after the
  COMMIT, in a transaction of its own).
"""

import json

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from psycopg import _pipeline
from psycopg.pq import TransactionStatus
from rest_framework.test import APIClient

from registry.models import AuditRecord, OutboxEvent, Resource, Version
from registry.sent_together import StatementAfterCommit, send, sent_together, statement_cursor
from registry.services import EntityAddress, WriteContext, create_version
from registry.services import events as engine_events
from registry.services.inputs import VersionInput
from tests.helpers import make_group, post_schema

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
SCHEMA = "/schemaGroups/g/schemas/s"


def document(n: int) -> str:
    return json.dumps({"type": "object", "properties": {"n": {"type": "integer", "description": f"v{n}"}}})


@pytest.fixture
def client():
    if connection.vendor != "postgresql":
        pytest.skip("pipelines are PostgreSQL's (REGISTRY_TEST_DB=postgres)")
    user = get_user_model().objects.create_superuser("writer", "w@example.com", "pw")
    client = APIClient()
    client.force_authenticate(user)
    make_group(client, "g")
    post_schema(client, "g", "s", document(0).encode(), "application/json", "JsonSchema/draft-07")
    return client


@pytest.fixture
def pipelines_ending_idle(monkeypatch):
    """How many of psycopg's pipelines ended with the transaction committed (the status the server gave last)."""
    ended = []
    original = _pipeline.Pipeline.__exit__

    def exit_(self, *exc):
        result = original(self, *exc)
        ended.append(self._conn.info.transaction_status == TransactionStatus.IDLE)
        return result

    monkeypatch.setattr(_pipeline.Pipeline, "__exit__", exit_)
    return ended


def counts() -> tuple[int, int, int, int]:
    resource = Resource.objects.get(rid="s")
    return Version.objects.count(), OutboxEvent.objects.count(), AuditRecord.objects.count(), resource.version_counter


def test_a_new_version_commits_with_its_insert(client, pipelines_ending_idle):
    heard = []
    engine_events.register_on_commit(lambda: heard.append(Version.objects.count()))
    listener = engine_events.on_commit_listeners[-1]
    try:
        before = counts()
        marker = client.get("/?inline").headers["ETag"]
        pipelines_ending_idle.clear()
        response = client.post(SCHEMA, document(1), content_type="application/json")
    finally:
        engine_events.on_commit_listeners.remove(listener)
    assert response.status_code == 201, response.content
    assert response.headers["Registry-version"] == "2"
    assert pipelines_ending_idle[-1] is True  # the insert's round trip ended the transaction
    assert pipelines_ending_idle.count(True) == 1
    assert counts() == (before[0] + 1, before[1] + 1, before[2] + 1, 2)
    assert heard == [before[0] + 1]  # once, after the commit
    assert client.get("/?inline").headers["ETag"] != marker
    assert json.loads(client.get(f"{SCHEMA}/versions/2").content) == json.loads(document(1))


def test_inside_a_transaction_of_the_callers_the_commit_is_left_to_it(client, pipelines_ending_idle):
    before = counts()
    pipelines_ending_idle.clear()
    with pytest.raises(RuntimeError), transaction.atomic():
        create_version(
            ctx=WriteContext(user="writer"),
            address=EntityAddress("schemaGroups", "g", "schemas", "s"),
            data=VersionInput(document=document(1).encode(), media_type="application/json"),
        )
        assert Version.objects.count() == before[0] + 1  # written, not committed
        raise RuntimeError("the caller's transaction rolls back")
    assert True not in pipelines_ending_idle
    assert counts() == before


def test_a_statement_refused_skips_the_commit_sent_after_it(client):
    with connection.cursor() as cursor:
        cursor.execute(
            "ALTER TABLE registry_outboxevent ADD CONSTRAINT test_refused CHECK (subject NOT LIKE '%/versions/refused')"
        )
    try:
        before = counts()
        response = client.post(SCHEMA, document(1), content_type="application/json", HTTP_REGISTRY_VERSION="refused")
        assert response.status_code == 400, response.content
        assert "test_refused" in response.json()["detail"]
        assert counts() == before
        assert not Version.objects.filter(vid="refused").exists()
        response = client.post(SCHEMA, document(2), content_type="application/json")  # the same connection
        assert response.status_code == 201, response.content
        assert counts()[0] == before[0] + 1
    finally:
        with connection.cursor() as cursor:
            cursor.execute("ALTER TABLE registry_outboxevent DROP CONSTRAINT test_refused")


@pytest.mark.parametrize("cursor_of", ["django", "kept"])
def test_a_statement_after_the_commit_sent_with_the_block_raises_unsent(client, cursor_of):
    """The atomicity trap (issue 40): once a block has sent the transaction's COMMIT (`then_commit=True`), a write
    added after it in the same atomic block would begin a new transaction that Django then commits, outside the lock
    and the write's all-or-nothing. It raises instead, before anything is sent, whichever cursor sends it; what the
    block sent stays committed, and the on-commit callbacks and the next transaction query as usual."""
    table = Resource._meta.db_table
    heard = []
    with pytest.raises(StatementAfterCommit, match="then_commit=False"):
        with transaction.atomic():
            transaction.on_commit(lambda: heard.append(Resource.objects.get(rid="s").description))
            with sent_together(then_commit=True):
                send((None, f"UPDATE {table} SET description = %s WHERE rid = %s", ["in the block", "s"]))
            with connection.cursor() if cursor_of == "django" else statement_cursor() as cursor:
                cursor.execute(f"UPDATE {table} SET name = %s WHERE rid = %s", ["after the block", "s"])
    resource = Resource.objects.get(rid="s")
    assert resource.description == "in the block" and resource.name != "after the block"
    assert heard == []  # the block raised: Django ran no on-commit callback
    with transaction.atomic():  # the connection's next transaction sends as usual, its callbacks too
        transaction.on_commit(lambda: heard.append(Resource.objects.get(rid="s").name))
        Resource.objects.filter(rid="s").update(name="next")
    assert heard == ["next"]
    response = client.post(SCHEMA, document(1), content_type="application/json")  # a new version, as usual
    assert response.status_code == 201, response.content
