"""Shared fixtures of the whole suite, one per role: `anon` (an anonymous client), `superuser` (the user `alice`)
and `su` (her client, by DRF token).

The database (SQLite, or a throwaway PostgreSQL with REGISTRY_TEST_DB=postgres) and the `redis_url` fixture
come from the harness plugin, tests/harness/plugin.py, which pytest loads early (-p in pyproject's addopts).
Tests marked `corpus` read the shared corpus (tests/corpus.py): they skip, or fail under REQUIRE_SERVICES=1,
when `../shared` is absent.
"""

import os
import shutil

import pytest

from tests import corpus


@pytest.hookimpl(tryfirst=True)  # before pytest's own skip marks: an empty parameter set would skip unexplained
def pytest_runtest_setup(item):
    """A test marked `corpus` (parametrized over tests.corpus.cases) skips naming the corpus when it is absent."""
    if item.get_closest_marker("corpus") and not corpus.PRESENT:
        corpus.missing(corpus.SHARED)


@pytest.fixture
def anon(db):
    """An anonymous APIClient (reads, and refusals of anonymous writes)."""
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def superuser(db, django_user_model):
    """The superuser `alice` in the test database."""
    return django_user_model.objects.create_superuser("alice", "alice@example.com", "pw")


def token_client(user):
    """An APIClient authenticated with a DRF token of `user` (the real authentication path)."""
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


@pytest.fixture
def su(superuser):
    """A client of the superuser `alice`, by token: the writer of most HTTP tests."""
    return token_client(superuser)


def chromium_path():
    """Debian's Chromium, if installed (the browser tests drive it with Playwright)."""
    return shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
