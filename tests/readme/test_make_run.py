"""Issue 26: `make run PORT=N` serves on that port, and under it (no broker: eager Celery) a failed delivery is
retried: the development server runs celery beat's schedule in its process (registry/management/dev_beat.py). Before, the
port was fixed at 8000 and a failed delivery stayed `retrying` for ever."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
import time

import httpx
import pytest

from tests.harness.gunicorn import ROOT, answers
from tests.harness.services import free_port, start_process, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.own_sqlite_server]


class FlakySink(http.server.BaseHTTPRequestHandler):
    """Answers the first delivery with 503, every later one with 204; counts what it got."""

    received: list[str] = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        type(self).received.append(json.loads(body).get("subject", ""))
        self.send_response(503 if len(type(self).received) == 1 else 204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def sink():
    FlakySink.received = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FlakySink)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook"
    server.shutdown()


def make_run(tmp_path, port: int, **settings):
    env = {
        **os.environ,
        "SQLITE_PATH": str(tmp_path / "registry.sqlite3"),
        "REGISTRY_VAR_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "CELERY_BROKER_URL": "",
        **settings,
    }
    for name in ("DATABASE_URL", "REGISTRY_TEST_DB", "REGISTRY_BASE_URL"):
        env.pop(name, None)
    # -o: the shared .venv is taken as installed (the test must not reinstall it)
    process = start_process(
        ["make", "-o", ".venv/.installed", "run", f"PORT={port}"],
        env=env,
        cwd=str(ROOT),
        ready_check=lambda: answers(port),
        timeout=180,
    )
    return process, env


def test_make_run_serves_on_port_and_retries_failed_deliveries(tmp_path, sink):
    port = free_port()
    server, env = make_run(
        tmp_path,
        port,
        REGISTRY_ALLOW_PRIVATE_SINKS="1",
        REGISTRY_WEBHOOK_HANDSHAKE="0",
        REGISTRY_SWEEP_SECONDS="1",
        REGISTRY_SWEEP_GRACE_SECONDS="0",
        REGISTRY_DELIVERY_BACKOFF_BASE="0.5",
    )
    try:
        output = server.output()
        assert f"http://127.0.0.1:{port}/admin/" in output
        assert "beat's schedule" in output
        token = subprocess.run(
            [sys.executable, "manage.py", "drf_create_token", "admin"],
            env=env,
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()[2]
        headers = {"Authorization": f"Token {token}"}
        base = f"http://127.0.0.1:{port}"
        created = httpx.post(
            f"{base}/subscriptions",
            json={"protocol": "HTTP", "sink": sink, "filters": [{"prefix": {"subject": "/schemaGroups/retried"}}]},
            headers=headers,
            timeout=30,
        )
        assert created.status_code == 201, created.text
        assert httpx.put(f"{base}/schemaGroups/retried", json={}, headers=headers, timeout=30).status_code == 201
        started = time.monotonic()
        wait_for(lambda: len(FlakySink.received) >= 2, 60, "the retried delivery")
        assert FlakySink.received[:2] == ["/schemaGroups/retried"] * 2
        deliveries = httpx.get(f"{base}/subscriptions/{created.json()['id']}", headers=headers, timeout=30)
        assert deliveries.status_code == 200
        print(f"retried after {time.monotonic() - started:.1f} s")
    finally:
        server.stop()
    assert "Traceback" not in server.output()
