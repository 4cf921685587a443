"""Shared fixtures of the whole suite: API clients (anonymous, plain, authenticated by a superuser's DRF token).

The database (SQLite, or a throwaway PostgreSQL with REGISTRY_TEST_DB=postgres) and the `redis_url` fixture
come from the harness plugin, tests/harness/plugin.py, which pytest loads early (-p in pyproject's addopts).
"""

import os
import shutil

import pytest


@pytest.fixture
def api_client():
    """A DRF APIClient without credentials."""
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def anon_client(db):
    """An anonymous APIClient, with database access for the views it calls."""
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def superuser(db, django_user_model):
    """A superuser in the test database (`editor`)."""
    return django_user_model.objects.create_superuser("editor", "editor@example.com", "pw")


def token_client(user):
    """An APIClient authenticated with a DRF token of `user` (the real authentication path)."""
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


@pytest.fixture
def editor_client(superuser):
    """A client of the superuser `editor`."""
    return token_client(superuser)


@pytest.fixture
def admin_user(db, django_user_model):
    """A superuser in the test database (`alice`)."""
    return django_user_model.objects.create_superuser("alice", "alice@example.com", "pw")


@pytest.fixture
def su(admin_user):
    """A client of the superuser `alice` (the name most HTTP tests use)."""
    return token_client(admin_user)


@pytest.fixture
def anon(db):
    """An anonymous APIClient (the same as `anon_client`, by the name most HTTP tests use)."""
    from rest_framework.test import APIClient

    return APIClient()


def chromium_path():
    """Debian's Chromium, if installed (the browser tests drive it with Playwright)."""
    return shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
