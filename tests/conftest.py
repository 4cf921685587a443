"""Shared fixtures: the database the suite runs on (SQLite, or a throwaway PostgreSQL with
REGISTRY_TEST_DB=postgres), a throwaway Redis, and API clients.

REQUIRE_SERVICES=1 turns a missing PostgreSQL or Redis binary into a failure instead of a skip.
"""
import os
import shutil

import pytest

from tests.harness import services

WANT_POSTGRES = os.environ.get("REGISTRY_TEST_DB") == "postgres"
REQUIRED = os.environ.get("REQUIRE_SERVICES") == "1"


def pytest_report_header(config):
    return f"registry test database: {'postgresql (throwaway)' if WANT_POSTGRES else 'sqlite'}"


def pytest_collection_modifyitems(config, items):
    if WANT_POSTGRES and not services.postgres_available():
        if REQUIRED:
            raise pytest.UsageError(f"REQUIRE_SERVICES=1 but PostgreSQL is missing in {services.pg_bin()}")
        skip = pytest.mark.skip(reason="REGISTRY_TEST_DB=postgres but PostgreSQL is not installed")
        for item in items:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    """Point Django at a throwaway PostgreSQL before the test database is created (pytest-django hook)."""
    if not WANT_POSTGRES:
        yield
        return
    from django.conf import settings
    from django.db import connections

    from config.settings import database_from_url

    server = services.start_postgres()
    os.environ["DATABASE_URL"] = server.url
    settings.DATABASES["default"] = {**database_from_url(server.url), "CONN_MAX_AGE": 0, "ATOMIC_REQUESTS": False,
                                     "AUTOCOMMIT": True, "CONN_HEALTH_CHECKS": False, "OPTIONS": {}, "TIME_ZONE": None,
                                     "TEST": {}}
    connections.close_all()
    for alias in list(connections.settings):
        try:
            del connections[alias]
        except AttributeError:
            pass
    connections.__dict__.pop("settings", None)
    connections._settings = None
    assert connections["default"].vendor == "postgresql"
    try:
        yield
    finally:
        connections.close_all()
        server.stop()


@pytest.fixture(scope="session")
def redis_url():
    """A throwaway Redis for the session (started on first use)."""
    if not services.redis_available():
        if REQUIRED:
            pytest.fail("REQUIRE_SERVICES=1 but redis-server is not installed")
        pytest.skip("redis-server is not installed")
    server = services.start_redis()
    yield server.url
    server.stop()


@pytest.fixture
def api_client():
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def superuser(db, django_user_model):
    return django_user_model.objects.create_superuser("editor", "editor@example.com", "pw")


@pytest.fixture
def editor_client(superuser):
    """An APIClient authenticated with a DRF token of a superuser."""
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=superuser).key}")
    return client


def chromium_path():
    return shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
