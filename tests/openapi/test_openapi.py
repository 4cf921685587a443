"""The OpenAPI document: valid with no warning, and the server keeps to it under generated requests.

A bounded schemathesis run (at least 300 requests, authenticated so that writes are exercised) finds
no 5xx and no response that contradicts the document (status codes, content types, JSON shapes).
"""
import pytest
import schemathesis
from django.core.management import call_command
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from config.wsgi import application

schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
REQUESTS = {"count": 0}
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


def test_spectacular_validates_without_warnings(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "openapi.yaml"))
    assert (tmp_path / "openapi.yaml").stat().st_size > 10_000


@pytest.fixture
def keep_connection():
    """The WSGI app closes the connection after each request; inside a test transaction it must not
    (Django's own test client does the same)."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def auth_headers(db, keep_connection):
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    user = get_user_model().objects.create_superuser("fuzzer", "f@example.com", "pw")
    return {"Authorization": f"Token {Token.objects.create(user=user).key}"}


@pytest.mark.slow
@pytest.mark.django_db
@schema.parametrize()
@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.filter_too_much])
def test_api_keeps_to_its_document(case, auth_headers):
    REQUESTS["count"] += 1
    case.call_and_validate(headers=auth_headers, checks=CHECKS)


def test_zz_enough_generated_requests():
    """Runs after the generated tests (file order): the run was not trivially small."""
    if REQUESTS["count"] == 0:
        pytest.skip("the generated tests were not selected in this run")
    assert REQUESTS["count"] >= 300
