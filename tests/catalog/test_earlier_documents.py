"""Issue 29: a new version is checked against the earlier versions as they are stored now, although each process
keeps the documents it read (registry/store/earlier_documents.py): a version changed in place, deleted, or written by
another connection since is what the next check reads. On SQLite every document is read each time; the same
answers are expected."""

import json
import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections
from rest_framework.test import APIClient

from registry.models import Version
from tests.helpers import make_group, post_schema, snapshot

FORMAT = "JsonSchema/draft-07"
STRING_ID = {"type": "object", "properties": {"id": {"type": "string"}}}
INTEGER_ID = {"type": "object", "properties": {"id": {"type": "integer"}}}
SCHEMA = "/schemaGroups/g/schemas/s"


def described(schema: dict, note: str) -> bytes:
    return json.dumps({**schema, "description": note}).encode()


def post(client, body: bytes):
    return client.post(SCHEMA, body, content_type="application/json")


def level(client, value: str):
    assert client.put("/schemaGroups/g", {"compatibility": value}, format="json").status_code == 200


@pytest.fixture
def schema(su):
    """A schema of two compatible versions (the second write read the first, so its document is kept)."""
    make_group(su, "g")
    post_schema(su, "g", "s", described(STRING_ID, "one"), "application/json", FORMAT)
    assert post(su, described(STRING_ID, "two")).status_code == 201


def test_a_version_changed_in_place_is_read_as_it_is_now(su, schema):
    level(su, "none")  # version 1 becomes what a new version with a string id can no longer read
    changed = su.put(f"{SCHEMA}/versions/1", described(INTEGER_ID, "one"), content_type="application/json")
    assert changed.status_code == 200, changed.content
    level(su, "backward_transitive")
    before = snapshot()
    refused = post(su, described(STRING_ID, "three"))
    assert refused.status_code == 409, refused.content
    assert refused.json()["type"].endswith("incompatible-version")
    assert "earlier version 1 of 2" in json.dumps(refused.json())
    assert snapshot() == before


def test_a_deleted_version_is_not_compared(su, schema):
    level(su, "none")
    assert su.put(f"{SCHEMA}/versions/1", described(INTEGER_ID, "one"), content_type="application/json").status_code
    level(su, "backward_transitive")
    assert post(su, described(STRING_ID, "three")).status_code == 409
    assert su.delete(f"{SCHEMA}/versions/1").status_code in (200, 204)
    created = post(su, described(STRING_ID, "three"))
    assert created.status_code == 201, created.content
    assert sorted(Version.objects.filter(resource__rid="s").values_list("vid", flat=True)) == ["2", "3"]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_versions_written_by_other_connections_are_compared():
    """Versions added and changed through other connections (as other workers would) between two writes of this
    process: each check reads them; a version that breaks one written meanwhile is refused."""
    if connection.vendor != "postgresql":
        pytest.skip("the kept documents are PostgreSQL's (REGISTRY_TEST_DB=postgres)")
    user = get_user_model().objects.create_superuser("writer", "w@example.com", "pw")
    here = APIClient()
    here.force_authenticate(user)
    make_group(here, "g")
    post_schema(here, "g", "s", described(STRING_ID, "one"), "application/json", FORMAT)
    assert post(here, described(STRING_ID, "two")).status_code == 201  # this process keeps versions 1 and 2

    def elsewhere(*steps):
        """Requests on a connection of another thread (committed before this thread's next request)."""
        results = []

        def run():
            there = APIClient()
            there.force_authenticate(user)
            for method, path, body in steps:
                results.append(getattr(there, method)(path, body, content_type="application/json").status_code)
            connections.close_all()

        thread = threading.Thread(target=run)
        thread.start()
        thread.join(timeout=60)
        return results

    assert elsewhere(("post", SCHEMA, described(STRING_ID, "three"))) == [201]
    assert elsewhere(
        ("put", "/schemaGroups/g", json.dumps({"compatibility": "none"}).encode()),
        ("put", f"{SCHEMA}/versions/3", described(INTEGER_ID, "three")),
        ("put", "/schemaGroups/g", json.dumps({"compatibility": "backward_transitive"}).encode()),
    ) == [200, 200, 200]
    refused = post(here, described(STRING_ID, "four"))
    assert refused.status_code == 409, refused.content
    assert "earlier version 3 of 3" in json.dumps(refused.json())
    assert elsewhere(("delete", f"{SCHEMA}/versions/3", b"")) in ([200], [204])
    assert post(here, described(STRING_ID, "four")).status_code == 201
    assert sorted(Version.objects.filter(resource__rid="s").values_list("vid", flat=True), key=int) == ["1", "2", "4"]


def _on_another_connection(*statements: str) -> None:
    """SQL run and committed on a connection of another thread, as another program would (no service, no lock)."""

    failed = []

    def run():
        try:
            with connections["default"].cursor() as cursor:
                for statement in statements:
                    cursor.execute(statement)
        except Exception as exc:  # noqa: BLE001 - raised in the test's thread below
            failed.append(exc)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=60)
    if failed:  # (a statement the database refused failed silently in the thread, the test later, far from it)
        raise failed[0]


def _kept_schema(client) -> None:
    """Group g, schema s of two versions with a string id; this process keeps both documents (the second write and
    a refused third read them)."""
    make_group(client, "g")
    post_schema(client, "g", "s", described(STRING_ID, "one"), "application/json", FORMAT)
    assert post(client, described(STRING_ID, "two")).status_code == 201


def _writer():
    user = get_user_model().objects.create_superuser("writer", "w@example.com", "pw")
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_versions_changed_by_sql_of_another_program_are_read_as_they_are_now():
    """PostgreSQL keeps the digest that proves the kept documents unchanged (registry/migrations/0011): a document
    changed or a version deleted by plain SQL on another connection, past every service, is what the next check
    compares with."""
    if connection.vendor != "postgresql":
        pytest.skip("the kept documents are PostgreSQL's (REGISTRY_TEST_DB=postgres)")
    here = _writer()
    _kept_schema(here)
    integer_id = described(INTEGER_ID, "one").decode().replace("'", "''")
    _on_another_connection(
        f"UPDATE registry_version SET content = convert_to('{integer_id}', 'UTF8') "
        "WHERE vid = '1' AND resource_id = (SELECT id FROM registry_resource WHERE rid = 's')"
    )
    before = snapshot()
    refused = post(here, described(STRING_ID, "three"))
    assert refused.status_code == 409, refused.content
    assert "earlier version 1 of 2" in json.dumps(refused.json())
    assert snapshot() == before
    _on_another_connection(  # with its Confluent number (a foreign key of the version's: the ORM deletes it too)
        "WITH gone AS (SELECT id FROM registry_version WHERE vid = '1' "
        "AND resource_id = (SELECT id FROM registry_resource WHERE rid = 's')), "
        "numbered AS (DELETE FROM confluent_subjectversion WHERE version_id IN (SELECT id FROM gone)) "
        "DELETE FROM registry_version WHERE id IN (SELECT id FROM gone)"
    )
    created = post(here, described(STRING_ID, "three"))
    assert created.status_code == 201, created.content


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_schema_made_again_with_the_same_row_ids_is_read_again():
    """After the tables are emptied with their ids restarted (as a restore might), the same group, schema and
    version ids get the same row ids: the kept documents of the old schema are not taken for the new one's (its
    digest starts elsewhere)."""
    if connection.vendor != "postgresql":
        pytest.skip("the kept documents are PostgreSQL's (REGISTRY_TEST_DB=postgres)")
    empty = "TRUNCATE registry_version, registry_resource, registry_group RESTART IDENTITY CASCADE"
    here = _writer()
    _on_another_connection(empty)
    _kept_schema(here)
    _on_another_connection(empty)
    make_group(here, "g")
    post_schema(here, "g", "s", described(INTEGER_ID, "one"), "application/json", FORMAT)
    level(here, "none")
    assert post(here, described(INTEGER_ID, "two")).status_code == 201
    level(here, "backward_transitive")
    assert list(Version.objects.filter(resource__rid="s").order_by("pk").values_list("pk", "vid")) == [
        (1, "1"),
        (2, "2"),
    ]
    before = snapshot()
    refused = post(here, described(STRING_ID, "three"))
    assert refused.status_code == 409, refused.content
    assert "earlier version 1 of 2" in json.dumps(refused.json())
    assert snapshot() == before


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_versions_of_a_rolled_back_transaction_are_not_kept():
    """Two versions written in a transaction that rolls back: the second write read the first (its own, not
    committed); the next check does not compare with it."""
    if connection.vendor != "postgresql":
        pytest.skip("the kept documents are PostgreSQL's (REGISTRY_TEST_DB=postgres)")
    from django.db import transaction

    here = _writer()
    _kept_schema(here)

    class RolledBack(Exception):
        pass

    with pytest.raises(RolledBack), transaction.atomic():
        assert post(here, described(STRING_ID, "three")).status_code == 201
        level(here, "none")
        assert post(here, described(INTEGER_ID, "four")).status_code == 201
        level(here, "backward_transitive")
        assert post(here, described(INTEGER_ID, "five")).status_code == 409  # reads "four", its own
        raise RolledBack
    created = post(here, described(STRING_ID, "three again"))
    assert created.status_code == 201, created.content
    assert sorted(Version.objects.filter(resource__rid="s").values_list("vid", flat=True), key=int) == ["1", "2", "3"]
