"""pytest plugin of the test harness, loaded early with ``-p tests.harness.plugin`` (pyproject addopts).

Environment it reads:

* ``REGISTRY_TEST_DB=postgres`` -- run the suite on a throwaway PostgreSQL (default: SQLite, as configured by
  config/settings.py without DATABASE_URL).
* ``REQUIRE_SERVICES=1`` -- a missing PostgreSQL or redis-server binary fails the run instead of skipping.
* ``PG_BIN`` -- where initdb/pg_ctl/postgres live (default /usr/lib/postgresql/15/bin).

Ordering: pytest-django reads the settings module (and calls ``django.setup()``) in its own
``pytest_load_initial_conftests`` hook. This plugin is imported while pytest parses the command line, before
that hook runs, and starts PostgreSQL in a *wrapper* implementation of the same hook -- wrappers run before
every plain implementation whatever the registration order -- then exports ``DATABASE_URL``, so
config/settings.py builds DATABASES from it. A guard refuses to start when Django settings were already loaded.
The server is stopped in ``pytest_unconfigure`` (which pytest also runs after a failure or Ctrl-C); atexit and
a SIGTERM handler are backstops.

Fixtures: ``redis_url`` (session; a throwaway Redis started on first use, stopped at session end).
"""

from __future__ import annotations

import os
import secrets
import signal
import sys
import threading

import pytest

from tests.harness import services

MARKERS = [
    "postgres: needs the throwaway PostgreSQL server the harness starts",
    "redis: needs the throwaway Redis server the harness starts",
    "slow: takes more than a few seconds",
]


def want_postgres() -> bool:
    return os.environ.get("REGISTRY_TEST_DB", "").strip().lower() in {"postgres", "postgresql"}


def services_required() -> bool:
    return os.environ.get("REQUIRE_SERVICES", "").strip().lower() in {"1", "true", "yes", "on"}


class Harness:
    """What the plugin started during this run, and why a service is missing."""

    def __init__(self) -> None:
        self.postgres: services.Service | None = None
        self.postgres_missing: str | None = None
        self.redis: services.Service | None = None
        self.saved_env: dict[str, str | None] = {}

    def set_env(self, name: str, value: str) -> None:
        self.saved_env.setdefault(name, os.environ.get(name))
        os.environ[name] = value

    def restore_env(self) -> None:
        for name, value in self.saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        self.saved_env.clear()

    def stop(self) -> None:
        for service in (self.redis, self.postgres):
            if service is not None:
                service.stop()
        self.redis = self.postgres = None
        self.restore_env()


harness = Harness()


def _sigterm(signum, frame):
    """SIGTERM (a CI timeout, `kill`) ends the run like Ctrl-C, so the servers are stopped."""
    raise KeyboardInterrupt(f"signal {signum}")


def start_postgres_for_django() -> None:
    """Start PostgreSQL and point DATABASE_URL at it; must run before Django reads its settings."""
    if "django.conf" in sys.modules and sys.modules["django.conf"].settings.configured:
        raise pytest.UsageError(
            "tests.harness.plugin: Django settings were loaded before the harness could start "
            "PostgreSQL; load the plugin early (-p tests.harness.plugin in addopts)"
        )
    if not services.postgres_available():
        message = (
            f"REGISTRY_TEST_DB=postgres but the PostgreSQL binaries (initdb, pg_ctl, postgres) are missing "
            f"in {services.pg_bin()} (install postgresql-15 or set PG_BIN)"
        )
        if services_required():
            raise pytest.UsageError(f"REQUIRE_SERVICES=1: {message}")
        harness.postgres_missing = message
        return
    try:
        harness.postgres = services.start_postgres()
    except Exception as exc:
        raise pytest.UsageError(f"the throwaway PostgreSQL did not start: {exc}")
    harness.set_env("DATABASE_URL", harness.postgres.url)
    # no persistent connections: they would keep the test database busy when pytest-django drops it
    harness.set_env("DATABASE_CONN_MAX_AGE", "0")


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    """Runs before pytest-django's implementation of this hook (which loads the Django settings)."""
    known = early_config.known_args_namespace
    # test users' passwords hashed cheaply, in this process and the servers and workers it starts (they inherit
    # the environment): config/settings.py
    harness.set_env("REGISTRY_TEST_FAST_PASSWORDS", "1")
    # a secret key of the run's own: the gunicorns the tests start refuse the development key (gunicorn.conf.py)
    harness.set_env("DJANGO_SECRET_KEY", os.environ.get("DJANGO_SECRET_KEY") or secrets.token_urlsafe(50))
    # anonymous throttling off: the suite's many anonymous checks would run into it (tests/catalog/
    # test_check_budgets.py turns it on where it is tested)
    harness.set_env("REGISTRY_THROTTLE_ANON_CHECKS", "off")
    harness.set_env("REGISTRY_THROTTLE_ANON_MAP", "off")
    # failed HTTP Basic sign-ins too: schemathesis sends wrong credentials to every operation (tests/bindings/v05/
    # test_basic_auth.py turns it on where it is tested)
    harness.set_env("REGISTRY_BASIC_AUTH_FAILURES", "off")
    if want_postgres() and not (getattr(known, "help", False) or getattr(known, "version", False)):
        if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _sigterm)
        start_postgres_for_django()
    return (yield)


def pytest_configure(config):
    for line in MARKERS:
        config.addinivalue_line("markers", line)


def pytest_unconfigure(config):
    harness.stop()


def pytest_report_header(config):
    if not want_postgres():
        database = "sqlite"
    elif harness.postgres is not None:
        database = (
            f"postgresql (throwaway, {harness.postgres.url}, started in {harness.postgres.startup_seconds:.1f} s)"
        )
    else:
        database = f"postgresql requested but unavailable: {harness.postgres_missing}"
    return [f"registry test database: {database}"]


def pytest_collection_modifyitems(config, items):
    if harness.postgres_missing:
        skip = pytest.mark.skip(reason=harness.postgres_missing)
        for item in items:
            item.add_marker(skip)
        return
    if harness.postgres is None:
        _prebuild_xrcg(items)
        skip = pytest.mark.skip(reason="needs PostgreSQL: run with REGISTRY_TEST_DB=postgres")
        once = pytest.mark.skip(reason="runs once, in the PostgreSQL run of make test")
        for item in items:
            if item.get_closest_marker("postgres"):
                item.add_marker(skip)
            elif item.get_closest_marker("postgres_run"):
                item.add_marker(once)
        return
    # a test against a server of its own on SQLite (tests/harness/gunicorn.py) would repeat itself unchanged on
    # the PostgreSQL run: `make test` runs it once, in the SQLite run
    repeat = pytest.mark.skip(reason="runs against its own SQLite server: run in the SQLite run of make test")
    for item in items:
        if item.get_closest_marker("own_sqlite_server"):
            item.add_marker(repeat)


def _prebuild_xrcg(items) -> None:
    """Start building `.venv-xrcg` (tests/harness/xrcg.py) in the background while the other tests run, when
    this run will use it: the build (a minute or more of pip on a fresh machine) then overlaps the suite instead of
    holding up the first xrcg test. The `xrcg` fixture calls `ensure_xrcg` again; its file lock waits for this
    build, and a failure here is raised there (the build is tried again and reported)."""
    if not any("xrcg" in getattr(item, "fixturenames", ()) for item in items):
        return
    from tests.harness.xrcg import ensure_xrcg

    def build():
        try:
            ensure_xrcg()
        except Exception:  # noqa: BLE001 - reported by the fixture, which builds again
            pass

    threading.Thread(target=build, name="xrcg-prebuild", daemon=True).start()


def pytest_runtest_setup(item):
    if item.get_closest_marker("redis"):
        require_redis()


def require_redis() -> None:
    if not services.redis_available():
        if services_required():
            pytest.fail(
                "REQUIRE_SERVICES=1 but redis-server is not installed (apt-get install redis-server)", pytrace=False
            )
        pytest.skip("redis-server is not installed (apt-get install redis-server)")


@pytest.fixture(scope="session")
def redis_url():
    """redis://127.0.0.1:PORT/0 of a throwaway Redis, started on first use and stopped at session end."""
    require_redis()
    if harness.redis is None:
        harness.redis = services.start_redis()
    yield harness.redis.url
    if harness.redis is not None:
        harness.redis.stop()
        harness.redis = None
