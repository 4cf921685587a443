"""Fixtures of the xRegistry 1.0 yardstick tests: the reference server's `xr conform` checks ported to
Django's test client (test_conform.py, table in CONFORM.md) and xrcg run as a real client against a live
server (test_xrcg.py)."""

import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User

SHARED = Path(__file__).resolve().parents[3] / "shared"
RC4 = SHARED / "corpus" / "rc4"
RC4_DOCUMENTS = sorted(RC4.glob("*.xreg.json"))


@pytest.fixture
def xr(client, db):
    """What `xr conform -s http://testserver/registry` talks to: an anonymous client on an empty store."""
    return client


@pytest.fixture
def xr_writer(client, db):
    """A signed-in superuser, for the checks that need content in the store first."""
    User.objects.create_superuser("conform", "c@example.com", "pw")
    client.login(username="conform", password="pw")
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
