"""Fixtures of the xRegistry 1.0 binding tests: a signed-in writer and the corpus paths."""

import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User

SHARED = Path(__file__).resolve().parents[3] / "shared"
RC4 = SHARED / "corpus" / "rc4"
SEED = SHARED / "corpus" / "seed-shape"
SPEC = SHARED / "spec" / "1.0-rc4"
RC4_DOCUMENTS = sorted(RC4.glob("*.xreg.json"))
SEED_DOCUMENTS = sorted(p for p in SEED.glob("*.cereg"))


@pytest.fixture
def writer(client, db):
    User.objects.create_superuser("writer", "w@example.com", "pw")
    client.login(username="writer", password="pw")
    return client


def post_json(client, path, body, method="post"):
    return getattr(client, method)(path, data=json.dumps(body), content_type="application/json")
