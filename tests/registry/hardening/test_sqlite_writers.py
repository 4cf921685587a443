"""Issue 37 item 11: on SQLite (the `make run` default), creates racing a delete and re-create of their group answered
503 "database is locked": writes must wait for the lock, not refuse.

No statement escaped `BEGIN IMMEDIATE`: every write transaction waited for the lock from its first statement. But
SQLite lets a waiting writer sleep and retry (up to 100 ms between tries), so under a steady stream of writes the
writers that had waited longest kept losing the lock to newer ones: `BEGIN IMMEDIATE` waited 10-15 s for transactions
that each held the lock for 20-50 ms, and those past SQLITE_TIMEOUT answered 503. Writers now take turns
(registry/sqlite_backend). Here against gunicorn over a SQLite file, with a short SQLITE_TIMEOUT so that a writer left
waiting shows: every answer is one the race allows (created, replaced, deleted, 404 when the group was gone, 409), none
is a 5xx, and the server logs no locked database and no traceback. And the backend's turns on their own, two
connections of one file in two threads: the second waits for the first's commit, and a turn not given within the
timeout is the error the 503 answers.
"""

from __future__ import annotations

import collections
import threading
import time

import httpx
import pytest
from django.db import OperationalError
from django.db.utils import ConnectionHandler

from registry.http.database_errors import is_unavailable
from tests.harness.gunicorn import start_gunicorn

CREATORS = 8
SECONDS = 10.0
ALLOWED = {200, 201, 204, 404, 409}


@pytest.mark.slow
@pytest.mark.own_sqlite_server
def test_creates_racing_a_group_deleted_and_made_again_wait_for_the_lock(tmp_path):
    server, base, token = start_gunicorn(tmp_path, workers=2, threads=4, SQLITE_TIMEOUT="3")
    headers = {"Authorization": f"Token {token}"}
    statuses: collections.Counter = collections.Counter()
    unexpected: list[str] = []
    stop = time.monotonic() + SECONDS

    def record(what: str, response: httpx.Response) -> None:
        statuses[(what, response.status_code)] += 1
        if response.status_code not in ALLOWED:
            unexpected.append(f"{what} {response.status_code} {response.text[:300]}")

    def creator(n: int) -> None:
        with httpx.Client(base_url=base, headers=headers, timeout=60) as client:
            i = 0
            while time.monotonic() < stop:
                i += 1
                if n % 2:  # the 0.5-wip binding: a new schema in the group (404 while it is gone)
                    response = client.post(
                        "/schemaGroups/g/schemas",
                        content=b"document",
                        headers={
                            "Content-Type": "text/plain",
                            "Registry-id": f"s{n}-{i}",
                            "Registry-format": "Custom/1",
                        },
                    )
                else:  # xRegistry 1.0: the group is created with the schema when it is gone
                    response = client.put(
                        f"/registry/schemagroups/g/schemas/s{n}-{i}",
                        content=b"document",
                        headers={"Content-Type": "text/plain", "xRegistry-format": "Custom/1"},
                    )
                record("create", response)

    def churner() -> None:
        with httpx.Client(base_url=base, headers=headers, timeout=60) as client:
            while time.monotonic() < stop:
                record("delete", client.delete("/schemaGroups/g?force=true"))
                record("re-create", client.put("/schemaGroups/g", json={"description": "made again"}))

    try:
        assert httpx.put(f"{base}/schemaGroups/g", json={}, headers=headers, timeout=60).status_code == 201
        threads = [threading.Thread(target=creator, args=(n,)) for n in range(CREATORS)]
        threads.append(threading.Thread(target=churner))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        server.stop()
    output = server.output()
    assert not unexpected, (unexpected[:5], dict(statuses))
    assert statuses[("create", 201)] > CREATORS and statuses[("delete", 200)] > 1, dict(statuses)
    assert "database is locked" not in output and "Traceback" not in output, output[-3000:]


@pytest.fixture
def unblocked(django_db_blocker):
    """Connections of the tests' own (not the suite's test database), which pytest-django lets open here."""
    with django_db_blocker.unblock():
        yield


def connections_of(path, timeout: float) -> ConnectionHandler:
    """Connections to the SQLite file `path` as config/settings.py makes them (each thread its own)."""
    options = {"timeout": timeout, "transaction_mode": "IMMEDIATE"}
    return ConnectionHandler({"default": {"ENGINE": "registry.sqlite_backend", "NAME": str(path), "OPTIONS": options}})


def begin(connection) -> None:
    """What `transaction.atomic` does first on SQLite."""
    connection.set_autocommit(False, force_begin_transaction_with_broken_autocommit=True)


def commit(connection) -> None:
    connection.commit()
    connection.set_autocommit(True)


@pytest.mark.parametrize("end", ["commit", "rollback", "close"])
def test_a_writer_waits_for_the_turn_of_another(tmp_path, unblocked, end):
    """The second writer begins once the first's transaction ends, however it ends."""
    handler = connections_of(tmp_path / "db.sqlite3", timeout=10)
    first = handler["default"]
    with first.cursor() as cursor:
        cursor.execute("CREATE TABLE t (n INTEGER)")
    begin(first)
    with first.cursor() as cursor:
        cursor.execute("INSERT INTO t VALUES (1)")
    waited: list[float] = []

    def second_writer() -> None:
        second = handler["default"]  # this thread's connection
        started = time.monotonic()
        begin(second)
        waited.append(time.monotonic() - started)
        with second.cursor() as cursor:
            cursor.execute("INSERT INTO t VALUES (2)")
        commit(second)
        second.close()

    thread = threading.Thread(target=second_writer)
    thread.start()
    time.sleep(0.5)
    assert not waited  # still waiting for the first's turn
    if end == "commit":
        commit(first)
    elif end == "rollback":
        first.rollback()
        first.set_autocommit(True)
    else:
        first.close()
    thread.join(10)
    assert waited and waited[0] >= 0.5, waited
    with first.cursor() as cursor:
        cursor.execute("SELECT n FROM t ORDER BY n")
        assert cursor.fetchall() == ([(1,), (2,)] if end == "commit" else [(2,)])
    first.close()


def test_a_turn_not_given_in_time_is_the_unavailable_database(tmp_path, unblocked):
    handler = connections_of(tmp_path / "db.sqlite3", timeout=0.5)
    first = handler["default"]
    begin(first)
    failures: list[BaseException] = []

    def second_writer() -> None:
        second = handler["default"]
        started = time.monotonic()
        try:
            begin(second)
        except OperationalError as exc:
            failures.append(exc)
            assert time.monotonic() - started < 5
        second.close()

    thread = threading.Thread(target=second_writer)
    thread.start()
    thread.join(10)
    assert failures and is_unavailable(failures[0]) and "database is locked" in str(failures[0]), failures
    commit(first)
    begin(first)  # the turn is free again once the first committed
    commit(first)
    first.close()
