"""New versions of one schema written at once on PostgreSQL (issue 29): writes to one schema wait for its row lock,
and each checks the new version against the versions committed before it took the lock.

- 8 threads posting compatible versions: every post is accepted, the ids are consecutive and each is taken once,
  the versions' creation times are in the order of their ids (a version is never stamped before the one numbered
  before it), and the latest version is the last one written.
- 8 threads each posting a widening of the first version's enum that the others' do not hold: each one alone is
  compatible with the first version, and any two are incompatible (under `backward_transitive` a reader of the
  later one refuses the earlier one's value), so exactly one is accepted and nothing incompatible is stored.
"""

import json
import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections
from rest_framework.test import APIClient

from catalog.validators.compatibility import check_compatibility
from registry.models import Resource, Version
from tests.helpers import make_group, post_schema

THREADS = 8
SCHEMA = "/schemaGroups/g/schemas/s"


def _setup(first: dict):
    if connection.vendor != "postgresql":
        pytest.skip("row locking is only meaningful on PostgreSQL (REGISTRY_TEST_DB=postgres)")
    user = get_user_model().objects.create_superuser("racer", "r@example.com", "pw")
    client = APIClient()
    client.force_authenticate(user)
    make_group(client, "g")
    post_schema(client, "g", "s", json.dumps(first).encode(), "application/json", "JsonSchema/draft-07")
    return user


def _at_once(user, bodies: list[list[bytes]]) -> list[int]:
    """Each thread posts its bodies in turn, all threads starting together; the statuses."""
    barrier = threading.Barrier(len(bodies))
    statuses: list[int] = []

    def post(mine):
        client = APIClient()
        client.force_authenticate(user)
        barrier.wait()
        for body in mine:
            statuses.append(client.post(SCHEMA, body, content_type="application/json").status_code)
        connections.close_all()

    threads = [threading.Thread(target=post, args=(mine,)) for mine in bodies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return statuses


@pytest.mark.postgres
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_compatible_versions_written_at_once_all_get_their_own_id():
    base = {"type": "object", "properties": {"a": {"type": "string"}}}
    user = _setup(base)
    bodies = [[json.dumps({**base, "description": f"{t}-{n}"}).encode() for n in range(5)] for t in range(THREADS)]
    statuses = _at_once(user, bodies)
    assert statuses == [201] * THREADS * 5
    resource = Resource.objects.get(rid="s")
    versions = list(Version.objects.filter(resource=resource).order_by("created_on", "pk"))
    assert [int(v.vid) for v in versions] == list(range(1, THREADS * 5 + 2))
    assert resource.latest_id == versions[-1].pk
    assert resource.version_counter == THREADS * 5 + 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_of_versions_incompatible_with_each_other_written_at_once_one_is_accepted():
    first = {"type": "string", "enum": ["a"]}
    user = _setup(first)
    bodies = [[json.dumps({"type": "string", "enum": ["a", f"x{t}"]}).encode()] for t in range(THREADS)]
    statuses = _at_once(user, bodies)
    assert sorted(statuses) == [201] + [409] * (THREADS - 1)
    stored = [
        bytes(c)
        for c in Version.objects.filter(resource__rid="s")
        .order_by("created_on", "pk")
        .values_list("content", flat=True)
    ]
    assert len(stored) == 2
    assert check_compatibility("JsonSchema/draft-07", "backward_transitive", stored[:1], stored[1]) == []
