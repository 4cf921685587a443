"""The Confluent compatibility routes run the catalog's checker on a caller's schema: anonymous callers are throttled
as on the other check routes (REGISTRY_THROTTLE_ANON_CHECKS), and a check past its CPU budget (REGISTRY_CHECK_SECONDS)
is refused in Confluent's words (503, 50002, naming the budget), for a test and for a registration, nothing written."""

import json

import httpx
import pytest

from tests.catalog.test_check_budgets import chain
from tests.confluent.test_errors import refused, state

pytestmark = pytest.mark.django_db(transaction=True)
JS_V1 = json.dumps({"type": "object", "properties": {"id": {"type": "string"}}})


@pytest.fixture
def js_subject(http):
    assert http.put("/config/js", json={"compatibility": "FULL"}).status_code == 200
    response = http.post("/subjects/js/versions", json={"schema": JS_V1, "schemaType": "JSON"})
    assert response.status_code == 200, response.text
    return "js"


def test_anonymous_compatibility_tests_are_throttled(http, base_url, js_subject, settings):
    from django.core.cache import cache

    cache.clear()
    settings.REGISTRY_THROTTLE_ANON_CHECKS = "2/minute"
    body = {"schema": JS_V1, "schemaType": "JSON"}
    paths = [f"/compatibility/subjects/{js_subject}/versions/latest", f"/compatibility/subjects/{js_subject}/versions"]
    for path in paths:
        assert httpx.post(base_url + path, json=body).json() == {"is_compatible": True}
    for path in paths:
        response = httpx.post(base_url + path, json=body)
        assert "throttled" in refused(response, 429, 429).lower()
        assert int(response.headers["retry-after"]) >= 1
        assert http.post(path, json=body).json() == {"is_compatible": True}  # signed in: not throttled
    assert httpx.get(f"{base_url}/subjects").json() == ["js"]  # plain reads and lookups are not throttled
    assert httpx.post(f"{base_url}/subjects/js", json=body).status_code == 200
    settings.REGISTRY_THROTTLE_ANON_CHECKS = "off"
    assert httpx.post(base_url + paths[0], json=body).status_code == 200
    cache.clear()


def test_a_check_past_its_budget_is_confluents_50002(http, js_subject, settings):
    settings.REGISTRY_CHECK_SECONDS = 0.3
    candidate = {"schema": chain(19, "anyOf").decode(), "schemaType": "JSON"}
    before = state()
    for method_path in (
        "/compatibility/subjects/js/versions/latest",
        "/compatibility/subjects/js/versions",
        "/subjects/js/versions",
    ):
        message = refused(http.post(method_path, json=candidate), 503, 50002)
        assert "REGISTRY_CHECK_SECONDS" in message and "0.3 s" in message, message
    assert state() == before
    settings.REGISTRY_CHECK_SECONDS = 1.0
    small = {"schema": chain(3, "anyOf").decode(), "schemaType": "JSON"}
    assert http.post("/compatibility/subjects/js/versions/latest", json=small).status_code == 200
