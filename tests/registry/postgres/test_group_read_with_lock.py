"""A new version's group, as its row says when the version is written (issue 29; the group kept per process and read
again with the lock is gone, issue 40: these are the guarantees it kept).

After a process's first new version in a group, what the group's row says decides the next one:

- owners changed by another door since (here the ORM): the write is authorized by the owners read with the lock, so
  a team that lost its role is refused (403, nothing written) and the new owners' team writes;
- the group deleted since: 404 naming the group, nothing written;
- the group deleted and made again with its schema: the version goes to the new group's schema.
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
        pytest.skip("the group's FOR KEY SHARE is PostgreSQL's (REGISTRY_TEST_DB=postgres)")
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
