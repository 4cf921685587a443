"""Issue 24 item 12: a database that refuses, is down or is locked answers 503 with Retry-After, never 500.

- PostgreSQL with few connection slots, the development server (a thread per request) and 40 concurrent reads:
  each request thread used to keep a connection of its own (DATABASE_CONN_MAX_AGE) until the server ran out
  ("sorry, too many clients already": 500); psycopg's pool (DATABASE_POOL_SIZE) bounds the process's connections.
- The same server once PostgreSQL is stopped, and gunicorn pointed at a closed port: 503 problem documents with
  Retry-After for reads, writes and the admin.
- SQLite locked by another writer past SQLITE_TIMEOUT: 503 with Retry-After, nothing written.
- PostgreSQL restarted under a gunicorn whose pool holds connections (issue 37): once `/readyz` answers 200, every
  read does, whichever worker answers it; the connections the restart ended, kept by the pools of the workers that
  did not answer `/readyz`, were handed to requests (4-6 of 90 reads answered 503).
"""

from __future__ import annotations

import concurrent.futures
import os
import sqlite3
import subprocess
import sys
import time

import httpx
import pytest

from tests.harness.gunicorn import ROOT, answers, start_gunicorn
from tests.harness.services import free_port, port_open, postgres_available, start_postgres, start_process

pytestmark = pytest.mark.slow

READS = ["/", "/schemaGroups", "/?model", "/definitionGroups", "/endpoints", "/registry/", "/registry/schemagroups"]


def assert_unavailable(response: httpx.Response) -> None:
    assert response.status_code == 503, (response.status_code, response.text[:500])
    assert response.headers["Content-Type"].startswith("application/problem+json")
    assert int(response.headers["Retry-After"]) > 0
    assert "database" in response.json()["detail"]


def answers_at_all(port: int) -> bool:
    """Whether the server answers HTTP (a 503 included: its database is away)."""
    if not port_open(port):
        return False
    try:
        httpx.get(f"http://127.0.0.1:{port}/", timeout=10)
        return True
    except httpx.HTTPError:
        return False


def server_env(**settings) -> dict:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "CELERY_BROKER_URL": "", **settings}
    env.pop("REGISTRY_TEST_DB", None)
    return env


def start_runserver(env: dict):
    port = free_port()
    process = start_process(
        [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        env=env,
        cwd=str(ROOT),
        ready_check=lambda: answers(port),
        timeout=90,
    )
    return process, f"http://127.0.0.1:{port}"


@pytest.fixture
def small_postgres():
    if not postgres_available():
        pytest.skip("PostgreSQL binaries are missing")
    server = start_postgres(max_connections=6)
    yield server
    server.stop()


def connections(url: str) -> int:
    import psycopg

    with psycopg.connect(url) as conn:
        return (
            conn.execute("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'").fetchone()[0]
            - 1
        )


def admin_session(base: str) -> httpx.Client:
    """A client logged in to the admin as `ops` (its session is read from the database on every page)."""
    client = httpx.Client(base_url=base, timeout=30)
    client.get("/admin/login/")
    response = client.post(
        "/admin/login/?next=/admin/",
        data={"username": "ops", "password": "pw", "csrfmiddlewaretoken": client.cookies["csrftoken"]},
        headers={"Referer": base + "/admin/login/"},
    )
    assert response.status_code == 302, response.text[:300]
    return client


@pytest.mark.postgres_run  # a PostgreSQL of its own: the SQLite run would repeat it unchanged
def test_postgresql_out_of_connections_then_down_is_503_never_500(small_postgres):
    env = server_env(
        DATABASE_URL=small_postgres.url, DATABASE_CONN_MAX_AGE="60", DATABASE_POOL_SIZE="2", DATABASE_POOL_TIMEOUT="3"
    )
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--noinput", "-v", "0"], env=env, cwd=ROOT, check=True)
    subprocess.run(
        [*manage, "createsuperuser", "--noinput", "--username", "ops", "--email", "o@example.com"],
        env={**env, "DJANGO_SUPERUSER_PASSWORD": "pw"},
        cwd=ROOT,
        check=True,
    )
    server, base = start_runserver(env)
    try:

        def read(path):
            with httpx.Client(timeout=60) as client:
                return path, client.get(base + path).status_code

        with concurrent.futures.ThreadPoolExecutor(40) as pool:
            codes = list(pool.map(read, READS * 6))
        assert {code for _path, code in codes} == {200}, [c for c in codes if c[1] != 200]
        assert connections(small_postgres.url) <= 2  # the pool's size, whatever the threads
        admin = admin_session(base)
        assert admin.get("/admin/").status_code == 200

        small_postgres.stop()
        for path in ("/schemaGroups", "/registry/schemagroups"):
            assert_unavailable(httpx.get(base + path, timeout=30))
        assert_unavailable(admin.get("/admin/"))
        write = httpx.put(base + "/schemaGroups/g", json={}, headers={"Authorization": "Token x"}, timeout=30)
        assert_unavailable(write)
        assert "Traceback" not in server.output()
    finally:
        server.stop()


@pytest.mark.own_sqlite_server  # no database of the suite's: once is enough
def test_a_closed_database_port_is_503(tmp_path):
    port = free_port()  # nothing listens there
    bind = free_port()
    env = server_env(
        DATABASE_URL=f"postgres://registry@127.0.0.1:{port}/registry",
        DATABASE_POOL_TIMEOUT="2",
        GUNICORN_BIND=f"127.0.0.1:{bind}",
        WEB_CONCURRENCY="1",
    )
    server = start_process(
        [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py")],
        env=env,
        cwd=str(ROOT),
        ready_check=lambda: answers_at_all(bind),
        timeout=90,
    )
    try:
        base = f"http://127.0.0.1:{bind}"
        for path in ("/", "/schemaGroups", "/registry/"):
            assert_unavailable(httpx.get(base + path, timeout=30))
        assert_unavailable(
            httpx.post(base + "/schemaGroups", json={"id": "g"}, headers={"Authorization": "Token x"}, timeout=30)
        )
    finally:
        server.stop()


@pytest.mark.own_sqlite_server
def test_a_locked_sqlite_database_is_503_and_nothing_is_written(tmp_path):
    server, base, token = start_gunicorn(tmp_path, SQLITE_TIMEOUT="1")
    headers = {"Authorization": f"Token {token}"}
    try:
        assert httpx.put(base + "/schemaGroups/before", json={}, headers=headers, timeout=30).status_code == 201
        other = sqlite3.connect(tmp_path / "db.sqlite3", isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")  # another writer holding the database
        try:
            started = time.monotonic()
            assert_unavailable(httpx.put(base + "/schemaGroups/locked", json={}, headers=headers, timeout=30))
            assert_unavailable(httpx.get(base + "/schemaGroups", timeout=30))
            assert time.monotonic() - started < 15
        finally:
            other.execute("ROLLBACK")
            other.close()
        groups = httpx.get(base + "/schemaGroups", timeout=30).json()
        assert set(groups) == {"before"}  # nothing written by the refused request
        assert httpx.put(base + "/schemaGroups/after", json={}, headers=headers, timeout=30).status_code == 201
    finally:
        server.stop()
    assert "Traceback" not in server.output()


@pytest.mark.postgres_run  # a PostgreSQL of its own: the SQLite run would repeat it unchanged
def test_after_a_postgresql_restart_every_read_is_answered_once_ready():
    if not postgres_available():
        pytest.skip("PostgreSQL binaries are missing")
    restarted = start_postgres()
    try:
        restart_under_gunicorn(restarted)
    finally:
        restarted.stop()


def restart_under_gunicorn(postgres):
    env = server_env(DATABASE_URL=postgres.url, DATABASE_POOL_SIZE="4")
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], env=env, cwd=ROOT, check=True)
    port = free_port()
    server = start_process(
        [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py")],
        env={**env, "GUNICORN_BIND": f"127.0.0.1:{port}", "WEB_CONCURRENCY": "3", "GUNICORN_THREADS": "4"},
        cwd=str(ROOT),
        ready_check=lambda: answers(port),
        timeout=90,
    )
    base = f"http://127.0.0.1:{port}"
    try:

        def read(path):
            with httpx.Client(timeout=60, headers={"Connection": "close"}) as client:
                return path, client.get(base + path).status_code

        # each worker's pool holds connections: /readyz answered by one worker says nothing of the others'.
        # Which worker accepts a connection is the kernel's choice (a busy machine may hand most to one), so the
        # reads go on until the pools hold connections of several workers, or the deadline says they never do.
        deadline = time.monotonic() + 60
        while True:
            with concurrent.futures.ThreadPoolExecutor(12) as pool:
                assert {code for _path, code in pool.map(read, READS * 12)} == {200}
            if connections(postgres.url) >= 6:
                break
            assert time.monotonic() < deadline, f"the pools hold {connections(postgres.url)} connections, not 6"

        postgres.extra["restart"]()

        deadline = time.monotonic() + 60
        while httpx.get(base + "/readyz", timeout=30).status_code != 200:
            assert time.monotonic() < deadline, "not ready within 60 s of the restart"
            time.sleep(0.2)
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            codes = list(pool.map(read, (READS * 13)[:90]))
        assert [c for c in codes if c[1] != 200] == []
    finally:
        server.stop()
