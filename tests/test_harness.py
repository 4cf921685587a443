"""The harness itself: the suite runs on the database it was asked for (PostgreSQL started before Django read
its settings), the Redis fixture answers PING, start_process/stop work, and a missing PostgreSQL either fails
the run (REQUIRE_SERVICES=1) or skips every test."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from tests.harness import services
from tests.harness.plugin import harness, want_postgres

ROOT = Path(__file__).resolve().parents[1]
VENDOR_TEST = "tests/test_harness.py::test_database_vendor_matches_the_request"


@pytest.mark.django_db
def test_database_vendor_matches_the_request():
    assert connection.vendor == ("postgresql" if want_postgres() else "sqlite")


@pytest.mark.skipif(not want_postgres(), reason="only with REGISTRY_TEST_DB=postgres")
def test_settings_were_built_from_the_throwaway_server():
    """config/settings.py itself saw DATABASE_URL: no settings were patched after Django set up."""
    assert harness.postgres is not None
    assert os.environ["DATABASE_URL"] == harness.postgres.url
    db = settings.DATABASES["default"]
    assert (db["ENGINE"], db["HOST"], db["PORT"]) == (
        "config.postgresql",  # Django's PostgreSQL backend, its pool's check replaced (config/postgresql/base.py)
        "127.0.0.1",
        str(harness.postgres.port),
    )


def test_redis_answers_ping(redis_url):
    port = int(redis_url.rsplit(":", 1)[1].split("/")[0])
    assert redis_url == f"redis://127.0.0.1:{port}/0"
    assert services.redis_ping(port)


def test_start_process_waits_until_ready_and_stops(tmp_path):
    port = services.free_port()
    process = services.start_process(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        dict(os.environ),
        lambda: services.port_open(port),
        timeout=30,
        cwd=str(tmp_path),
    )
    try:
        assert services.port_open(port)
    finally:
        process.stop()
    assert process.process.poll() is not None
    assert not services.port_open(port)


def test_start_process_reports_an_early_exit():
    with pytest.raises(RuntimeError, match="exited with 3"):
        services.start_process(
            [sys.executable, "-c", "import sys; print('boom'); sys.exit(3)"],
            dict(os.environ),
            lambda: False,
            timeout=30,
        )


def run_pytest_without_postgres(tmp_path, require: str) -> subprocess.CompletedProcess:
    """The vendor test in a pytest subprocess that asks for PostgreSQL while PG_BIN points at an empty dir."""
    env = {**os.environ, "REGISTRY_TEST_DB": "postgres", "REQUIRE_SERVICES": require, "PG_BIN": str(tmp_path)}
    env.pop("DATABASE_URL", None)  # the server this run may have started is not the subprocess's
    env.pop("DATABASE_CONN_MAX_AGE", None)
    fast = ["-p", "no:cacheprovider", "-p", "no:schemathesis", "-p", "no:hypothesispytest", "-p", "no:anyio"]
    return subprocess.run(
        [sys.executable, "-m", "pytest", VENDOR_TEST, "-q", *fast],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def test_required_missing_postgres_fails_the_run(tmp_path):
    result = run_pytest_without_postgres(tmp_path, "1")
    output = result.stdout + result.stderr
    assert result.returncode not in (0, 5), output
    assert "REQUIRE_SERVICES=1: REGISTRY_TEST_DB=postgres but the PostgreSQL binaries" in output, output
    assert str(tmp_path) in output


def test_missing_postgres_without_requirement_skips_everything(tmp_path):
    result = run_pytest_without_postgres(tmp_path, "0")
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "1 skipped" in output, output
    assert "PostgreSQL binaries" in output  # the reason, in the -ra summary


# --- the shared corpus (tests/corpus.py): a clone without ../shared ----------------------------------------------

CORPUS_MODULES = ["tests/registry/documents/test_document_http.py", "tests/catalog/test_compatibility.py"]


def run_pytest_without_the_corpus(tmp_path, require: str) -> subprocess.CompletedProcess:
    """Two modules that mix corpus tests with others, run in a copy of the repository with no `../shared` beside
    it (the copy is `tmp_path/clone`; `tmp_path/shared` does not exist), on SQLite."""
    from tests.readme.test_readme_commands import fresh_copy

    clone = fresh_copy(tmp_path)
    env = {**os.environ, "REQUIRE_SERVICES": require}
    for name in ("REGISTRY_TEST_DB", "DATABASE_URL", "DATABASE_CONN_MAX_AGE"):
        env.pop(name, None)
    fast = ["-p", "no:cacheprovider", "-p", "no:schemathesis", "-p", "no:hypothesispytest", "-p", "no:anyio"]
    return subprocess.run(
        [sys.executable, "-m", "pytest", *CORPUS_MODULES, "-q", "-p", "no:randomly", *fast],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.slow
@pytest.mark.own_sqlite_server
def test_a_clone_without_the_corpus_skips_its_tests_in_one_line_and_runs_the_others(tmp_path):
    result = run_pytest_without_the_corpus(tmp_path, "0")
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    skipped = [line for line in output.splitlines() if line.startswith("SKIPPED")]
    assert len(skipped) == 1, output
    assert "tests/corpus.py" in skipped[0] and f"needs the shared corpus {tmp_path / 'shared'}" in skipped[0]
    summary = output.strip().splitlines()[-1]
    assert " passed" in summary and " skipped" in summary and "error" not in summary, summary


@pytest.mark.slow
@pytest.mark.own_sqlite_server
def test_a_required_corpus_that_is_missing_fails_the_run(tmp_path):
    result = run_pytest_without_the_corpus(tmp_path, "1")
    output = result.stdout + result.stderr
    assert result.returncode not in (0, 5), output
    assert f"CorpusMissing: REQUIRE_SERVICES=1 but {tmp_path / 'shared'}" in output, output
