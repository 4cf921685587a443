"""A new version's group read again with its schema's lock (issue 29, registry/services/locked_reads.py `seen_group`).

After a process's first new version in a group, the group as it last read it stands for the group until the lock, and
the group's row is read in the lock's round trip. What the row says then decides, as if it had been read first:

- owners changed by another door since (here the ORM): the write is authorized by the owners read with the lock, so
  a team that lost its role is refused (403, nothing written) and the new owners' team writes;
- the group deleted since: 404 naming the group, nothing written;
- the group deleted and made again with its schema: the version goes to the new group's schema;
- the group's row read with the lock: one round trip fewer than a write that reads it first.
"""

import json

import pytest
from django.contrib.auth.models import Group as Team
from django.db import connection

from registry.models import Group, OutboxEvent, Version
from tests.conftest import token_client
from tests.helpers import post_schema

pytestmark = [pytest.mark.postgres]
SCHEMA = "/schemaGroups/g/schemas/s"


def document(n: int) -> str:
    return json.dumps({"type": "object", "properties": {"n": {"type": "integer", "description": f"v{n}"}}})


def post(client, n: int):
    return client.post(SCHEMA, document(n), content_type="application/json")


def make_schema(su, owners: dict | None = None):
    response = su.put("/schemaGroups/g", {"owners": owners} if owners else {}, format="json")
    assert response.status_code in (200, 201), response.content
    post_schema(su, "g", "s", document(0).encode(), "application/json", "JsonSchema/draft-07")


@pytest.fixture
def writers(db, su, django_user_model):
    """`one` (team-one, editor of g) and `two` (team-two, not an owner yet); g/s made by the superuser."""
    if connection.vendor != "postgresql":
        pytest.skip("the group is kept on PostgreSQL only (REGISTRY_TEST_DB=postgres)")
    clients = {}
    for name in ("one", "two"):
        user = django_user_model.objects.create_user(name, password="pw", is_staff=True)
        user.groups.add(Team.objects.get_or_create(name=f"team-{name}")[0])
        clients[name] = token_client(user)
    make_schema(su, {"team-one": "editor"})
    return clients


def written() -> tuple[int, int]:
    return Version.objects.count(), OutboxEvent.objects.count()


def test_owners_changed_by_another_door_decide_the_next_write(writers):
    assert post(writers["one"], 1).status_code == 201  # the group is kept
    group = Group.objects.get(gid="g")
    group.extensions = {**group.extensions, "owners": {"team-two": "editor"}}
    group.save()  # (not through a new version: the kept group still names team-one)
    before = written()
    response = post(writers["one"], 2)
    assert response.status_code == 403, response.content
    assert written() == before
    response = post(writers["two"], 2)
    assert response.status_code == 201, response.content
    assert written() == (before[0] + 1, before[1] + 1)


def test_a_group_deleted_since_is_not_found(writers, su):
    assert post(su, 1).status_code == 201
    Group.objects.filter(gid="g").delete()
    before = written()
    response = post(su, 2)
    assert response.status_code == 404, response.content
    assert "/schemaGroups/g" in response.json()["detail"]
    assert "/schemas/s" not in response.json()["detail"]
    assert written() == before


def test_a_group_made_again_since_gets_the_version(writers, su):
    assert post(su, 1).status_code == 201
    old = Group.objects.get(gid="g").pk
    assert su.delete("/schemaGroups/g").status_code in (200, 204)
    make_schema(su)
    assert Group.objects.get(gid="g").pk != old
    response = post(su, 1)
    assert response.status_code == 201, response.content
    assert list(Version.objects.filter(resource__group__gid="g").order_by("pk").values_list("vid", flat=True)) == [
        "1",
        "2",
    ]


def test_the_group_is_read_with_the_lock(writers, su):
    from psycopg import _pipeline

    def round_trips(n: int) -> int:
        ends = []
        original = _pipeline.Pipeline.__exit__

        def exit_(self, *exc):
            ends.append(1)
            return original(self, *exc)

        _pipeline.Pipeline.__exit__ = exit_
        try:
            assert post(su, n).status_code == 201
        finally:
            _pipeline.Pipeline.__exit__ = original
        return len(ends)

    from registry.services import locked_reads

    assert post(su, 1).status_code == 201
    locked_reads._groups.clear()  # the group not kept (the schema's id and counter are)
    assert round_trips(2) == 3  # the group's, the lock's (and the reads'), the insert's (and the commit's)
    assert round_trips(3) == 2
