"""A new version's row, event, audit row, change count and resource state, written as one statement and committed
with Django's own COMMIT (issue 40: the COMMIT once sent with the insert in a pipeline, issue 29, is gone; these are
the guarantees it kept):

- a new version, its change event and its audit row are committed, the on-commit listeners (the relay) hear of it
  once, the change marker moves;
- inside a transaction of the caller's (an import, a test's block) nothing is committed early: when that transaction
  rolls back, the version is gone with it;
- a statement of the write that the database refuses (here a check constraint on the outbox added for the test)
  skips the COMMIT sent after it: the write is refused with a problem, nothing is written, and the next write on the
  same connection works.
"""

import json

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from rest_framework.test import APIClient

from registry.models import AuditRecord, OutboxEvent, Resource, Version
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
        pytest.skip("PostgreSQL's one statement (REGISTRY_TEST_DB=postgres)")
    user = get_user_model().objects.create_superuser("writer", "w@example.com", "pw")
    client = APIClient()
    client.force_authenticate(user)
    make_group(client, "g")
    post_schema(client, "g", "s", document(0).encode(), "application/json", "JsonSchema/draft-07")
    return client


def counts() -> tuple[int, int, int, int]:
    resource = Resource.objects.get(rid="s")
    return Version.objects.count(), OutboxEvent.objects.count(), AuditRecord.objects.count(), resource.version_counter


def test_a_new_version_commits_with_its_insert(client):
    heard = []
    engine_events.register_on_commit(lambda: heard.append(Version.objects.count()))
    listener = engine_events.on_commit_listeners[-1]
    try:
        before = counts()
        marker = client.get("/?inline").headers["ETag"]
        response = client.post(SCHEMA, document(1), content_type="application/json")
    finally:
        engine_events.on_commit_listeners.remove(listener)
    assert response.status_code == 201, response.content
    assert response.headers["Registry-version"] == "2"
    assert counts() == (before[0] + 1, before[1] + 1, before[2] + 1, 2)
    assert heard == [before[0] + 1]  # once, after the commit
    assert client.get("/?inline").headers["ETag"] != marker
    assert json.loads(client.get(f"{SCHEMA}/versions/2").content) == json.loads(document(1))


def test_inside_a_transaction_of_the_callers_the_commit_is_left_to_it(client):
    before = counts()
    with pytest.raises(RuntimeError), transaction.atomic():
        create_version(
            ctx=WriteContext(user="writer"),
            address=EntityAddress("schemaGroups", "g", "schemas", "s"),
            data=VersionInput(document=document(1).encode(), media_type="application/json"),
        )
        assert Version.objects.count() == before[0] + 1  # written, not committed
        raise RuntimeError("the caller's transaction rolls back")
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
