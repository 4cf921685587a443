"""A broker that is down does not hold up writes, and loses nothing (issue 37, item 11).

After each commit that wrote change events the process queues an outbox relay in the broker
(subscriptions/relay_flag.py). With the broker's address pointing at a closed port, the Redis client's and Celery's
connection attempts cost each write 0.6-0.8 s before its answer. Now the kick is sent by a thread of the process:
a gunicorn whose broker is down answers writes as fast as one without a broker (whose relay even runs inside the
request), the change events stay in the outbox (the backlog `/metrics` shows), and the sweep beat runs relays them.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.harness.gunicorn import ROOT, start_gunicorn
from tests.harness.services import free_port

pytestmark = [pytest.mark.slow, pytest.mark.own_sqlite_server]
METRICS = "metrics-token-for-tests"
WRITES = 6


def backlog(base: str) -> float:
    response = httpx.get(f"{base}/metrics", headers={"Authorization": f"Bearer {METRICS}"}, timeout=30)
    assert response.status_code == 200, response.text
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            if sample.name == "registry_outbox_backlog_events":
                return sample.value
    raise AssertionError("no registry_outbox_backlog_events in /metrics")


def test_a_write_does_not_wait_for_a_broker_that_is_down_and_its_events_wait_for_the_sweep(tmp_path):
    closed = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    (tmp_path / "down").mkdir()
    (tmp_path / "none").mkdir()
    down, down_base, down_token = start_gunicorn(
        tmp_path / "down", CELERY_BROKER_URL=closed, REGISTRY_METRICS_TOKEN=METRICS
    )
    try:
        eager, eager_base, eager_token = start_gunicorn(tmp_path / "none", REGISTRY_METRICS_TOKEN=METRICS)
        try:
            servers = {"down": (down_base, down_token), "none": (eager_base, eager_token)}
            took: dict[str, list[float]] = {"down": [], "none": []}
            for n in range(WRITES + 1):  # the first write of each loads the write code: not timed
                for label, (base, token) in servers.items():
                    started = time.monotonic()
                    response = httpx.put(
                        f"{base}/schemaGroups/g{n}", json={}, headers={"Authorization": f"Token {token}"}, timeout=30
                    )
                    elapsed = time.monotonic() - started
                    assert response.status_code == 201, response.text
                    if n:
                        took[label].append(elapsed)
            overhead = statistics.median(took["down"]) - statistics.median(took["none"])
            assert overhead < 0.2, took
            assert backlog(eager_base) == 0  # relayed inside each request, with no broker
        finally:
            eager.stop()
        assert backlog(down_base) >= WRITES + 1  # every change's events wait in the outbox

        # what the sweep (celery beat's task, relay_outbox first) does in a worker, here in a process of its own
        env = {
            **os.environ,
            "SQLITE_PATH": str(tmp_path / "down" / "db.sqlite3"),
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "CELERY_BROKER_URL": closed,
        }
        env.pop("DATABASE_URL", None)
        swept = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", "from subscriptions.tasks import sweep; sweep()"],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert swept.returncode == 0, swept.stderr[-2000:]
        assert backlog(down_base) == 0
    finally:
        down.stop()
