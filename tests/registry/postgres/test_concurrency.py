"""Optimistic concurrency on PostgreSQL: 16 threads update one group with the same epoch at once.

Exactly one update wins per epoch, the others get 409, and no accepted update is lost.
"""

import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections
from rest_framework.test import APIClient

THREADS = 16
ROUNDS = 5


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_one_winner_per_epoch():
    if connection.vendor != "postgresql":
        pytest.skip("row locking is only meaningful on PostgreSQL (REGISTRY_TEST_DB=postgres)")
    user = get_user_model().objects.create_superuser("racer", "r@example.com", "pw")
    setup = APIClient()
    setup.force_authenticate(user)
    assert setup.post("/schemaGroups", {"id": "contended"}, format="json").status_code == 201

    for round_number in range(ROUNDS):
        epoch = setup.get("/schemaGroups/contended").json()["epoch"]
        barrier = threading.Barrier(THREADS)
        results: dict[int, int] = {}

        def update(index: int, epoch=epoch, barrier=barrier, results=results, round_number=round_number):
            client = APIClient()
            client.force_authenticate(user)
            barrier.wait()
            response = client.put(
                f"/schemaGroups/contended?epoch={epoch}",
                {"name": f"round {round_number} thread {index}"},
                format="json",
            )
            results[index] = response.status_code
            connections.close_all()

        threads = [threading.Thread(target=update, args=(i,)) for i in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        statuses = sorted(results.values())
        assert statuses.count(200) == 1, statuses
        assert statuses.count(409) == THREADS - 1, statuses
        winner = next(i for i, s in results.items() if s == 200)
        group = setup.get("/schemaGroups/contended").json()
        assert group["epoch"] == epoch + 1
        assert group["name"] == f"round {round_number} thread {winner}"
