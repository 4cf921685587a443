"""Issue 37 item 6: the client address the throttles count by (the anonymous checks and map, the Confluent API's
compatibility tests, failed HTTP Basic sign-ins: DRF's `get_ident` everywhere) is the socket's unless the proxy is
trusted (`DJANGO_TRUST_FORWARDED=1`: DRF's `NUM_PROXIES` 1, the last `X-Forwarded-For` entry, the one the proxy
appended). A client that writes a new `X-Forwarded-For` on each request is counted as one client either way."""

from __future__ import annotations

import base64
import json

import pytest
from django.core.cache import cache

from tests.catalog.test_check_budgets import JS_FORMAT, JS_V1, JSON
from tests.helpers import make_group, post_schema
from tests.operations.test_secure_settings import manage

RATE = 15
CLIENT, OTHER_CLIENT = "192.0.2.10", "192.0.2.11"  # socket peers: a client, or the proxy in front


@pytest.fixture
def routes(su, settings):
    """The anonymous check routes, throttled at RATE a minute: the compatibility dry run, the Confluent API's test."""
    cache.clear()
    make_group(su, "g1")
    post_schema(su, "g1", "js", JS_V1, JSON, fmt=JS_FORMAT)
    response = su.post(
        "/confluent/subjects/cs/versions", {"schema": JS_V1.decode(), "schemaType": "JSON"}, format="json"
    )
    assert response.status_code == 200, response.content
    settings.REGISTRY_THROTTLE_ANON_CHECKS = f"{RATE}/minute"
    yield {
        "catalog": ("/schemaGroups/g1/schemas/js/compatibility", JS_V1),
        "confluent": (
            "/confluent/compatibility/subjects/cs/versions/latest",
            json.dumps({"schema": JS_V1.decode(), "schemaType": "JSON"}),
        ),
    }
    cache.clear()


def check(anon, route, forwarded: str | None, peer: str = CLIENT) -> int:
    path, body = route
    headers = {"REMOTE_ADDR": peer}
    if forwarded is not None:
        headers["HTTP_X_FORWARDED_FOR"] = forwarded
    return anon.generic("POST", path, body, content_type=JSON, **headers).status_code


@pytest.mark.parametrize("name", ["catalog", "confluent"])
def test_without_a_trusted_proxy_the_socket_address_is_counted_whatever_x_forwarded_for_says(routes, anon, name):
    route = routes[name]
    statuses = [check(anon, route, f"198.51.100.{n}") for n in range(RATE + 1)]  # a new address each time
    assert statuses == [200] * RATE + [429]
    assert check(anon, route, None) == 429  # the same client without the header
    assert check(anon, route, "198.51.100.99", peer=OTHER_CLIENT) == 200  # another socket: a count of its own


@pytest.mark.parametrize("name", ["catalog", "confluent"])
def test_behind_a_trusted_proxy_the_address_it_appended_is_counted(routes, anon, settings, name):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}  # what DJANGO_TRUST_FORWARDED=1 sets
    route = routes[name]
    # the client writes its own X-Forwarded-For; the proxy (the socket's peer) appends the address it saw
    statuses = [check(anon, route, f"203.0.113.{n}, 198.51.100.7") for n in range(RATE + 1)]
    assert statuses == [200] * RATE + [429]
    assert check(anon, route, "198.51.100.7") == 429
    assert check(anon, route, "203.0.113.1, 198.51.100.8") == 200  # another client behind the same proxy


def basic(name: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{name}:{password}".encode()).decode()


def test_failed_basic_sign_ins_are_counted_by_the_socket_address(anon, settings):
    """Each attempt names another user (so only the address count can refuse it) and another X-Forwarded-For."""
    cache.clear()
    settings.REGISTRY_BASIC_AUTH_FAILURES = "3/minute"
    statuses = [
        anon.get(
            "/schemaGroups",
            HTTP_AUTHORIZATION=basic(f"nobody{n}", "wrong"),
            HTTP_X_FORWARDED_FOR=f"198.51.100.{n}",
            REMOTE_ADDR=CLIENT,
        ).status_code
        for n in range(4)
    ]
    assert statuses == [401, 401, 401, 429]
    cache.clear()


def test_the_proxy_setting_names_how_many_proxies_drf_trusts(tmp_path):
    probe = "from django.conf import settings as s; print(s.REST_FRAMEWORK['NUM_PROXIES'])"
    for value, proxies in (("0", "0"), ("1", "1")):
        result = manage("shell", "-c", probe, env={"DJANGO_TRUST_FORWARDED": value}, tmp_path=tmp_path)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip().splitlines()[-1] == proxies
    result = manage("shell", "-c", probe, env={}, tmp_path=tmp_path)
    assert result.stdout.strip().splitlines()[-1] == "0"
