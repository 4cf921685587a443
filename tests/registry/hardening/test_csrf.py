"""Issue 11 item 12: a write authenticated by the admin's session cookie without a CSRF token is refused with
403 before anything else looks at the request: whatever the body (not JSON, malformed, empty, YAML, valid),
on every write route of every binding, and nothing is written."""

import json

import pytest
from django.test import Client

from tests.helpers import snapshot

pytestmark = pytest.mark.django_db

ROUTES = [
    "/",
    "/schemaGroups",
    "/schemaGroups/g",
    "/schemaGroups/g/schemas",
    "/schemaGroups/g/schemas/s",
    "/schemaGroups/g/schemas/s/versions",
    "/schemaGroups/g/schemas/s/versions/1",
    "/schemaGroups/g/schemas/s?meta",
    "/definitionGroups",
    "/definitionGroups/d",
    "/definitionGroups/d/definitions/e",
    "/definitionGroups/d/definitions/e/versions/1",
    "/endpoints",
    "/endpoints/p",
    "/endpoints/p/definitions/e",
    "/subscriptions",
    "/subscriptions/x",
    "/subscriptions/x/redeliver",
    "/subscriptions/x/revalidate",
    "/schemaregistry/schemagroups/g",
    "/schemaregistry/schemagroups/g/schemas/s",
    "/schemaregistry/schemagroups/g/schemas/s/versions/1",
    "/messagecatalog/d",
    "/messagecatalog/d/messagedefinitions/e",
    "/messagecatalog/d/messagedefinitions/e/versions/1",
]
BODIES = [
    ("text/plain", b"not json at all"),
    ("application/json", b"{not json"),
    ("application/json", b""),
    ("application/x-yaml", b"a: [1"),
    (
        "application/json",
        json.dumps({"id": "g", "description": "x", "format": "JsonSchema/draft-07", "type": "object"}).encode(),
    ),
]


@pytest.fixture
def session_client(superuser):
    client = Client(enforce_csrf_checks=True)
    client.force_login(superuser)
    return client


@pytest.mark.parametrize("path", ROUTES)
def test_session_writes_without_a_csrf_token_are_403_first(session_client, path):
    before = snapshot()
    for method in ("POST", "PUT", "PATCH", "DELETE"):
        for content_type, body in BODIES:
            response = session_client.generic(method, path, body, content_type=content_type)
            assert response.status_code == 403, (method, path, content_type, body, response.content[:300])
            assert "CSRF" in response.json()["detail"], (method, path, response.json())
    assert snapshot() == before


def test_with_the_token_the_same_session_write_goes_through(superuser):
    client = Client(enforce_csrf_checks=True)
    client.force_login(superuser)
    token = client.get("/admin/").cookies["csrftoken"].value  # the admin's pages set the cookie
    response = client.post(
        "/schemaGroups", {"id": "g"}, content_type="application/json", headers={"X-CSRFToken": token}
    )
    assert response.status_code == 201, response.content
