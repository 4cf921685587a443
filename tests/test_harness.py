"""The harness itself: the suite runs on the database it says, Redis answers, and REQUIRE_SERVICES=1
turns a missing binary into a failed run."""
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.django_db
def test_database_vendor_matches_the_request():
    expected = "postgresql" if os.environ.get("REGISTRY_TEST_DB") == "postgres" else "sqlite"
    assert connection.vendor == expected


def test_redis_answers_ping(redis_url):
    port = int(redis_url.rsplit(":", 1)[1].split("/")[0])
    with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
        s.sendall(b"PING\r\n")
        assert s.recv(16).startswith(b"+PONG")


def test_required_missing_postgres_fails_the_run(tmp_path):
    env = {**os.environ, "REGISTRY_TEST_DB": "postgres", "REQUIRE_SERVICES": "1", "PG_BIN": str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "pytest", "tests/test_harness.py::test_database_vendor_matches_the_request",
                             "-q", "-p", "no:cacheprovider"], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode != 0
    assert "PostgreSQL is missing" in result.stdout + result.stderr


def test_missing_postgres_without_requirement_skips(tmp_path):
    env = {**os.environ, "REGISTRY_TEST_DB": "postgres", "REQUIRE_SERVICES": "0", "PG_BIN": str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "pytest", "tests/test_harness.py::test_database_vendor_matches_the_request",
                             "-q", "-p", "no:cacheprovider"], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stdout
    assert "1 skipped" in result.stdout
