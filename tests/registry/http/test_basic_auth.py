"""HTTP Basic credentials are checked with the password hasher once, then remembered for a while; failed attempts are
throttled before the hasher runs (issue 37, item 10; registry/http/basic_auth.py).

The hasher's work is observed through a hasher of the tests' own, configured as Django's only one
(`PASSWORD_HASHERS`): Django's MD5 hasher that counts how often it hashes a password (to verify one, or to hash a
password for an unknown user, as Django does so that unknown users take as long as known ones). Every test also shows
that the count moves when the hasher has to run, so a count that never moved could not pass them.
"""

from __future__ import annotations

import base64
import json
import time

import pytest
from django.contrib.auth.hashers import MD5PasswordHasher
from django.core.cache import cache
from rest_framework.test import APIClient

from registry.models import Group
from tests.helpers import PROBLEM_TYPE

CONFLUENT = "application/vnd.schemaregistry.v1+json"


class CountingHasher(MD5PasswordHasher):
    """Django's MD5 hasher, counting the passwords it hashes."""

    algorithm = "counting_md5"
    runs = 0

    def encode(self, password, salt):
        CountingHasher.runs += 1
        return super().encode(password, salt)


@pytest.fixture
def hasher(settings):
    settings.PASSWORD_HASHERS = [f"{__name__}.CountingHasher"]
    settings.REGISTRY_BASIC_AUTH_CACHE_SECONDS = 120
    settings.REGISTRY_BASIC_AUTH_FAILURES = "off"
    cache.clear()  # the failure counts of other tests
    CountingHasher.runs = 0
    yield CountingHasher
    cache.clear()


def basic(user: str, password: str, address: str = "127.0.0.1") -> APIClient:
    client = APIClient(REMOTE_ADDR=address)
    client.credentials(HTTP_AUTHORIZATION="Basic " + base64.b64encode(f"{user}:{password}".encode()).decode())
    return client


def lookup(client: APIClient):
    """A Confluent lookup (what a serializer sends before producing): a read, with the caller's credentials."""
    return client.post("/confluent/subjects/s", json.dumps({"schema": '"string"'}), content_type=CONFLUENT)


def write(client: APIClient, gid: str):
    return client.put(f"/schemaGroups/{gid}", {}, format="json")


def made_user(django_user_model, hasher, name="bob", password="pw1"):
    user = django_user_model.objects.create_superuser(name, f"{name}@example.com", password)
    assert user.password.startswith("counting_md5$")
    hasher.runs = 0
    return user


def test_a_verified_pair_is_remembered_and_a_changed_password_or_user_is_checked_again(hasher, django_user_model):
    user = made_user(django_user_model, hasher)
    assert lookup(basic("bob", "pw1")).status_code == 404  # the subject does not exist: signed in, nothing found
    assert hasher.runs == 1
    for n in range(5):  # reads and writes with the same pair, new connections each: no hasher
        assert lookup(basic("bob", "pw1")).status_code == 404
        assert write(basic("bob", "pw1"), f"g{n}").status_code == 201
    assert hasher.runs == 1
    assert Group.objects.get(gid="g4").created_by == "bob"  # the remembered pair is bob's

    refused = lookup(basic("bob", "wrong"))  # another password of the same user: the whole way, refused
    assert refused.status_code == 401 and refused.json()["error_code"] == 40101
    assert hasher.runs == 2

    user.set_password("pw2")
    user.save()
    hasher.runs = 0
    old = write(basic("bob", "pw1"), "after-change")  # refused at once, not after the pair's time
    assert old.status_code == 401 and old["Content-Type"] == PROBLEM_TYPE
    assert not Group.objects.filter(gid="after-change").exists()
    assert hasher.runs == 1
    assert write(basic("bob", "pw2"), "with-new").status_code == 201
    assert write(basic("bob", "pw2"), "with-new-again").status_code == 201
    assert hasher.runs == 2

    user.is_active = False
    user.save()
    deactivated = write(basic("bob", "pw2"), "after-deactivation")
    assert deactivated.status_code == 401
    assert not Group.objects.filter(gid="after-deactivation").exists()

    user.is_active = True
    user.username = "robert"
    user.save()
    assert write(basic("bob", "pw2"), "old-name").status_code == 401  # the old name no longer signs in
    assert not Group.objects.filter(gid="old-name").exists()
    assert write(basic("robert", "pw2"), "new-name").status_code == 201


def test_the_pair_is_forgotten_after_its_time_and_never_kept_at_zero(hasher, django_user_model, settings):
    made_user(django_user_model, hasher)
    settings.REGISTRY_BASIC_AUTH_CACHE_SECONDS = 0
    for _ in range(3):
        assert lookup(basic("bob", "pw1")).status_code == 404
    assert hasher.runs == 3

    # a window wide enough that a loaded 2-core machine answers the second lookup inside it (0.3 s was not)
    settings.REGISTRY_BASIC_AUTH_CACHE_SECONDS = 1.5
    assert lookup(basic("bob", "pw1")).status_code == 404
    assert lookup(basic("bob", "pw1")).status_code == 404
    assert hasher.runs == 4
    time.sleep(1.6)
    assert lookup(basic("bob", "pw1")).status_code == 404
    assert hasher.runs == 5


def test_failed_attempts_are_throttled_per_address_without_running_the_hasher(hasher, django_user_model, settings):
    made_user(django_user_model, hasher)
    made_user(django_user_model, hasher, "alice", "pw")
    settings.REGISTRY_BASIC_AUTH_FAILURES = "3/minute"
    assert lookup(basic("alice", "pw", "10.0.0.1")).status_code == 404  # remembered before the attack
    hasher.runs = 0

    for n in range(3):  # random names from one address: each runs the hasher (as for a known user)
        assert lookup(basic(f"nobody{n}", "guess", "10.0.0.1")).status_code == 401
    assert hasher.runs == 3
    for client in (basic("nobody9", "guess", "10.0.0.1"), basic("bob", "pw1", "10.0.0.1")):
        throttled = lookup(client)
        assert throttled.status_code == 429, throttled.content
        assert throttled.json()["error_code"] == 429
        assert 1 <= int(throttled["Retry-After"]) <= 60
    refused = write(basic("bob", "pw1", "10.0.0.1"), "throttled")  # the registry's own problem document
    assert refused.status_code == 429 and refused["Content-Type"] == PROBLEM_TYPE
    assert refused.json()["type"].endswith(":too-many-requests") and "Retry-After" in refused
    assert not Group.objects.filter(gid="throttled").exists()
    assert hasher.runs == 3  # none of the throttled requests ran it

    # a pair remembered before passes from that address too; other addresses are not held up
    assert lookup(basic("alice", "pw", "10.0.0.1")).status_code == 404
    assert write(basic("bob", "pw1", "10.0.0.2"), "elsewhere").status_code == 201
    assert hasher.runs == 4


def test_failed_attempts_are_throttled_per_user_name_from_any_address(hasher, django_user_model, settings):
    made_user(django_user_model, hasher)
    settings.REGISTRY_BASIC_AUTH_FAILURES = "3/minute"
    for n in range(3):
        assert lookup(basic("bob", f"guess{n}", f"10.0.1.{n}")).status_code == 401
    assert hasher.runs == 3
    throttled = lookup(basic("bob", "guess9", "10.0.1.9"))
    assert throttled.status_code == 429 and int(throttled["Retry-After"]) >= 1
    assert write(basic("bob", "pw1", "10.0.1.10"), "throttled").status_code == 429
    assert not Group.objects.filter(gid="throttled").exists()
    assert hasher.runs == 3
    assert lookup(basic("carol", "guess", "10.0.1.11")).status_code == 401  # another name: checked
    assert hasher.runs == 4

    cache.clear()  # the window has passed
    assert write(basic("bob", "pw1", "10.0.1.12"), "later").status_code == 201
