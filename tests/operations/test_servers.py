"""The operations endpoints of a real deployment: gunicorn with the checkout's gunicorn.conf.py over a database of
the test's own (a SQLite file, or a new database on the harness's PostgreSQL with REGISTRY_TEST_DB=postgres).

- readiness follows the database: not ready while migrations are missing (an upgrade's new code before its
  migration job), ready after `migrate`, not ready again when the database goes away, alive throughout;
- several workers count requests together (prometheus-client's multiprocess mode): every scrape, whichever
  worker answers it, has them all;
- LOG_FORMAT=json: every line on stderr is a JSON object, the access records carry the request id of the answer.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.harness.services import free_port, start_process, wait_for

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "scrape-token-for-tests"
MAKE_TOKEN = (
    "from django.contrib.auth import get_user_model; from rest_framework.authtoken.models import Token; "
    "u = get_user_model().objects.create_superuser('ops', 'o@example.com', 'pw'); print(Token.objects.create(user=u).key)"
)

pytestmark = pytest.mark.slow


class OwnDatabase:
    """A database nobody else uses, in the run's backend: its environment, `migrate`, and `take_down`."""

    def __init__(self, tmp_path: Path):
        self.harness_url = os.environ.get("DATABASE_URL", "")
        self.tmp_path = tmp_path
        if self.harness_url:
            self.name = f"ops_{uuid.uuid4().hex[:12]}"
            self.admin(f'CREATE DATABASE "{self.name}"')
            self.env = {"DATABASE_URL": urlunparse(urlparse(self.harness_url)._replace(path=f"/{self.name}"))}
        else:
            self.directory = tmp_path / "data"
            self.directory.mkdir()
            self.env = {"SQLITE_PATH": str(self.directory / "registry.sqlite3")}

    def admin(self, sql: str) -> None:
        import psycopg

        url = urlunparse(urlparse(self.harness_url)._replace(path="/postgres"))
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute(sql)

    def migrate(self) -> None:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=ROOT,
            env=server_env(self.env),
            check=True,
            timeout=300,
        )

    def take_down(self) -> None:
        """The database goes away under the running server."""
        self.name_taken_down = self.name if self.harness_url else str(self.directory)
        if self.harness_url:
            self.admin(f'DROP DATABASE "{self.name}" WITH (FORCE)')
            self.name = ""
        else:
            shutil.rmtree(self.directory)

    def close(self) -> None:
        if self.harness_url and self.name:
            self.admin(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


@pytest.fixture
def own_database(tmp_path):
    database = OwnDatabase(tmp_path)
    yield database
    database.close()


def server_env(extra: dict) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "SQLITE_PATH", "CELERY_BROKER_URL")}
    env.update(DJANGO_SETTINGS_MODULE="config.settings", DATABASE_CONN_MAX_AGE="0", **extra)
    return env


def start_server(env: dict, workers: int = 1, threads: int = 4):
    port = free_port()
    base = f"http://127.0.0.1:{port}"

    def alive() -> bool:
        try:
            return httpx.get(f"{base}/healthz", timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    process = start_process(
        [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py")],
        env=server_env(
            {
                **env,
                "GUNICORN_BIND": f"127.0.0.1:{port}",
                "WEB_CONCURRENCY": str(workers),
                "GUNICORN_THREADS": str(threads),
            }
        ),
        cwd=str(ROOT),
        ready_check=alive,
        timeout=90,
    )
    return process, base


def test_readiness_follows_migrations_and_the_database(own_database):
    process, base = start_server(own_database.env)
    try:
        pending = httpx.get(f"{base}/readyz", timeout=30)
        assert pending.status_code == 503
        assert pending.headers["Content-Type"] == "application/problem+json"
        body = pending.json()
        assert body["checks"] == {"database": "ok", "migrations": "failed", "broker": "not configured"}
        assert "migration(s) not applied" in body["detail"] and "run manage.py migrate" in body["detail"]
        assert "contenttypes.0001_initial" in body["detail"]  # the first of the plan

        own_database.migrate()
        ready = httpx.get(f"{base}/readyz", timeout=30)
        assert ready.status_code == 200, ready.text
        assert ready.json()["checks"] == {"database": "ok", "migrations": "ok", "broker": "not configured"}

        own_database.take_down()
        down = httpx.get(f"{base}/readyz", timeout=30)
        assert down.status_code == 503, down.text
        body = down.json()
        assert body["detail"] == "database unreachable (OperationalError; the server's log has the error)", body
        assert own_database.name_taken_down not in down.text and "127.0.0.1" not in down.text  # not where it was
        assert body["checks"] == {"database": "failed", "migrations": "not checked", "broker": "not configured"}
        # liveness is not readiness: a database outage must not get every web process restarted
        assert httpx.get(f"{base}/healthz", timeout=30).status_code == 200
    finally:
        process.stop()


def observed(own_database, metrics_dir: Path) -> dict:
    """The environment of a server whose metrics (shared by its workers in `metrics_dir`) and JSON log are read."""
    return {
        **own_database.env,
        "REGISTRY_METRICS_TOKEN": TOKEN,
        "LOG_FORMAT": "json",
        "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
    }


def json_records(process) -> list[dict]:
    """The server's log records: every line one JSON object."""
    records = []
    for line in process.output().splitlines():
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            pytest.fail(f"a log line that is not JSON: {line!r}")
    return records


def scrape(base: str) -> dict:
    response = httpx.get(f"{base}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)
    assert response.status_code == 200, response.text
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def test_workers_count_together_and_log_json_with_request_ids(own_database, tmp_path):
    own_database.migrate()
    metrics_dir = tmp_path / "prometheus"
    env = observed(own_database, metrics_dir)
    process, base = start_server(env, workers=2, threads=1)
    try:
        requests = 40
        # a connection each, eight at a time: the workers take turns accepting them
        with ThreadPoolExecutor(8) as pool:
            statuses = list(
                pool.map(
                    lambda _i: (
                        httpx.get(f"{base}/schemaGroups", headers={"Connection": "close"}, timeout=30).status_code
                    ),
                    range(requests),
                )
            )
        assert statuses == [200] * requests
        answered_by = {path.stem.rsplit("_", 1)[1] for path in metrics_dir.glob("counter_*.db")}
        assert len(answered_by) == 2, f"one worker answered every request: {answered_by}"
        labels = frozenset({"route": "/schemaGroups", "method": "GET", "status": "200"}.items())
        for _scrape in range(6):  # whichever worker answers the scrape sees every worker's requests
            samples = scrape(base)
            assert samples[("registry_http_requests_total", labels)] == requests
            assert samples[("registry_http_request_duration_seconds_count", labels)] == requests
            assert samples[("registry_database_up", frozenset())] == 1

        tagged = httpx.get(f"{base}/schemaGroups/nope", headers={"X-Request-ID": "trace-4242"}, timeout=30)
        assert tagged.status_code == 404 and tagged.headers["X-Request-ID"] == "trace-4242"
        untagged = httpx.get(f"{base}/schemaGroups", timeout=30)
        generated = untagged.headers["X-Request-ID"]
    finally:
        process.stop()

    records = json_records(process)
    assert any(r["logger"] == "gunicorn.error" and "Booting worker" in r["message"] for r in records)
    access = [r for r in records if r["logger"] == "operations.access"]
    assert len(access) >= requests + 2
    mine = [r for r in access if r["request_id"] == "trace-4242"]
    assert len(mine) == 1
    assert mine[0]["status"] == 404 and mine[0]["route"] == "/schemaGroups/<str:gid>"
    assert mine[0]["path"] == "/schemaGroups/nope" and mine[0]["method"] == "GET"
    assert mine[0]["duration_ms"] >= 0 and mine[0]["level"] == "INFO" and mine[0]["time"]
    # Django's own warning about the 404 was written during the same request, so it carries the same id
    assert any(r["logger"] == "django.request" and r["request_id"] == "trace-4242" for r in records)
    assert [r["status"] for r in access if r["request_id"] == generated] == [200]


def test_document_reads_are_fresh_counted_and_logged_on_every_worker(own_database, tmp_path):
    """Public document reads, which on PostgreSQL the fast path's WSGI layer answers before any middleware runs
    (registry/http/fast_reads.py): after each write every worker answers the new document at once, and each
    answer carries its request id, is counted in the metrics and written in the access log as the others."""
    own_database.migrate()
    token = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", MAKE_TOKEN],
        cwd=ROOT,
        env=server_env(own_database.env),
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout.split()[-1]
    metrics_dir = tmp_path / "prometheus"
    env = observed(own_database, metrics_dir)
    process, base = start_server(env, workers=3, threads=1)
    auth = {"Authorization": f"Token {token}", "Content-Type": "text/plain"}
    path = "/schemaGroups/g/schemas/s"
    reads, ids = 0, set()
    try:
        group = httpx.put(f"{base}/schemaGroups/g", json={}, headers={"Authorization": f"Token {token}"}, timeout=30)
        assert group.status_code in (200, 201), group.text
        first = {"Registry-id": "s", "Registry-format": "Custom/1"}
        for round_ in range(6):
            to = f"{base}/schemaGroups/g/schemas" if round_ == 0 else f"{base}{path}"
            sent = httpx.post(to, content=f"v{round_}", headers={**auth, **(first if round_ == 0 else {})}, timeout=30)
            assert sent.status_code in (200, 201), sent.text
            # new connections, eight at a time: the workers take turns accepting them
            with ThreadPoolExecutor(8) as pool:
                answers = list(
                    pool.map(
                        lambda _i: httpx.get(f"{base}{path}", headers={"Connection": "close"}, timeout=30), range(12)
                    )
                )
            assert [a.text for a in answers] == [f"v{round_}"] * 12
            assert {a.headers["Registry-version"] for a in answers} == {str(round_ + 1)}
            reads += len(answers)
            ids |= {a.headers["X-Request-ID"] for a in answers}
        assert len(ids) == reads
        tagged = httpx.get(f"{base}{path}", headers={"X-Request-ID": "trace-doc"}, timeout=30)
        assert tagged.status_code == 200 and tagged.headers["X-Request-ID"] == "trace-doc"
        reads += 1
        labels = frozenset(
            {"route": "/schemaGroups/<str:gid>/schemas/<str:rid>", "method": "GET", "status": "200"}.items()
        )
        samples = scrape(base)
        assert samples[("registry_http_requests_total", labels)] == reads
        assert samples[("registry_http_request_duration_seconds_count", labels)] == reads
    finally:
        process.stop()
    records = json_records(process)
    access = [r for r in records if r["logger"] == "operations.access" and r["path"] == path and r["method"] == "GET"]
    assert len(access) == reads
    assert {r["request_id"] for r in access} == ids | {"trace-doc"}
    assert all(r["status"] == 200 and r["route"] == "/schemaGroups/<str:gid>/schemas/<str:rid>" for r in access)


@pytest.mark.redis
def test_celery_worker_logs_json_lines_too(own_database, redis_url):
    own_database.migrate()
    env = server_env({**own_database.env, "LOG_FORMAT": "json", "CELERY_BROKER_URL": redis_url})

    def ready() -> bool:
        return " ready." in process.output()  # in whatever format: the assertions below check which

    process = start_process(
        [sys.executable, "-m", "celery", "-A", "registry", "--quiet", "worker", "--pool", "solo", "--loglevel", "INFO"],
        env=env,
        cwd=str(ROOT),
    )
    try:
        wait_for(ready, 90, "the Celery worker")
    finally:
        process.stop()
    records = [json.loads(line) for line in process.output().splitlines() if line.startswith("{")]
    assert any(
        r["logger"] == "celery.worker.consumer.connection" and "Connected to redis" in r["message"] for r in records
    )
    assert all(r["level"] and r["time"] for r in records)
    # Celery's own text format ("[2026-01-31 12:00:00,000: INFO/MainProcess] ...") is not used
    assert not re.search(r"^\[\d{4}-\d\d-\d\d [^\]]*: (INFO|WARNING)/", process.output(), re.M)
