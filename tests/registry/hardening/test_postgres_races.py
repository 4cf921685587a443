"""Issue 11 item 6: a create below a group racing the group's delete, on PostgreSQL: a clean 201, 404 or 409
with a problem document, never a 500 (the foreign key failed at commit before), and no resource left behind
without its group."""

import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections
from rest_framework.test import APIClient

from registry.models import Group, Resource

ROUNDS = 40


def racer(user):
    client = APIClient(raise_request_exception=False)
    client.force_authenticate(user)
    return client


@pytest.mark.postgres
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("write", ["post_schema", "put_schema", "new_group_put"])
def test_create_below_a_group_racing_its_delete(write):
    if connection.vendor != "postgresql":
        pytest.skip("the race needs PostgreSQL's concurrency (REGISTRY_TEST_DB=postgres)")
    user = get_user_model().objects.create_superuser(f"racer-{write}", "r@example.com", "pw")
    setup = racer(user)
    seen = []
    for round_number in range(ROUNDS):
        gid = f"race{round_number}"
        assert setup.put(f"/schemaGroups/{gid}", {}, format="json").status_code == 201
        barrier = threading.Barrier(2)
        results = {}

        def delete(gid=gid, barrier=barrier, results=results):
            client = racer(user)
            barrier.wait()
            results["delete"] = client.delete(f"/schemaGroups/{gid}")
            connections.close_all()

        def create(gid=gid, barrier=barrier, results=results):
            client = racer(user)
            barrier.wait()
            if write == "post_schema":
                response = client.generic(
                    "POST",
                    f"/schemaGroups/{gid}/schemas",
                    b"doc",
                    content_type="text/plain",
                    headers={"Registry-id": "s", "Registry-format": "Custom/1"},
                )
            elif write == "put_schema":
                response = client.generic(
                    "PUT",
                    f"/schemaGroups/{gid}/schemas/s",
                    b"doc",
                    content_type="text/plain",
                    headers={"Registry-format": "Custom/1"},
                )
            else:
                response = client.generic(
                    "PUT",
                    f"/schemaGroups/{gid}/schemas/s/versions/1",
                    b"doc",
                    content_type="text/plain",
                    headers={"Registry-format": "Custom/1"},
                )
            results["create"] = response
            connections.close_all()

        threads = [threading.Thread(target=delete), threading.Thread(target=create)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        created = results["create"]
        seen.append(created.status_code)
        assert created.status_code in (201, 404, 409), (round_number, created.status_code, created.content)
        if created.status_code != 201:
            assert created["Content-Type"].startswith("application/problem+json")
        assert results["delete"].status_code == 200
        assert not Group.objects.filter(gid=gid).exists()
        assert not Resource.objects.filter(group__gid=gid).exists()
    assert not Resource.objects.filter(group__isnull=True).exists()
