"""Fixtures of the xRegistry 1.0 binding tests (`/registry`): the binding's own tests, the corpus in both shapes,
the reference server's `xr conform` checks ported to Django's test client (test_conform.py, table in CONFORM.md)
and xrcg run as a real client against a live server (test_xrcg.py)."""

import json

import pytest
from django.contrib.auth.models import User


@pytest.fixture
def writer(client, db):
    """A signed-in superuser (session auth, as the viewer and a browser use the binding)."""
    User.objects.create_superuser("writer", "w@example.com", "pw")
    client.login(username="writer", password="pw")
    return client


def post_json(client, path, body, method="post"):
    return getattr(client, method)(path, data=json.dumps(body), content_type="application/json")


@pytest.fixture(scope="session")
def xrcg():
    """The pinned xrcg of tests/harness/xrcg.py (its own `.venv-xrcg`); skipped when it cannot be created,
    unless REQUIRE_SERVICES=1."""
    from tests.harness.services import ServiceUnavailable, require_services
    from tests.harness.xrcg import ensure_xrcg

    try:
        return ensure_xrcg()
    except ServiceUnavailable as exc:
        if require_services():
            pytest.fail(f"REQUIRE_SERVICES=1 but {exc}")
        pytest.skip(str(exc))
