"""`?meta` reads and writes, and definitions whose JSON document shares the metadata (docs/api-contract.md sections 5, 10)."""

import json

import pytest

from registry.models import Version
from tests.helpers import snapshot

from .jsonschema_docs import post_schema

pytestmark = pytest.mark.django_db
DEFINITION = {"format": "CloudEvents/1.0", "metadata": {"attributes": {"type": {"value": "com.example.ping"}}}}


def test_meta_get_and_put(su, group):
    post_schema(su, format="JsonSchema/draft-07", description="old")
    meta = su.get("/schemaGroups/g1/schemas/s1?meta").json()
    assert meta["id"] == "s1" and meta["version"] == "1" and meta["epoch"] == 1 and meta["description"] == "old"
    response = su.put(
        "/schemaGroups/g1/schemas/s1?meta",
        {"name": "Renamed", "format": "JsonSchema/draft-07", "self": "ignored", "epoch": 1},
        format="json",
    )
    body = response.json()
    assert response.status_code == 200 and body["epoch"] == 2 and body["name"] == "Renamed"
    assert "description" not in body  # missing from the body: removed
    assert Version.objects.count() == 1  # no new version
    assert json.loads(su.get("/schemaGroups/g1/schemas/s1").content)["type"] == "object"  # document kept
    assert su.put("/schemaGroups/g1/schemas/s1?meta", {"version": "9"}, format="json").status_code == 409
    assert su.put("/schemaGroups/g1/schemas/s1?meta", {"epoch": 1}, format="json").status_code == 409
    version_meta = su.put("/schemaGroups/g1/schemas/s1/versions/1?meta", {"description": "v"}, format="json")
    assert version_meta.json()["epoch"] == 3


def test_definition_shares_its_metadata(su):
    su.post("/definitionGroups", {"id": "d", "format": "CloudEvents/1.0"}, format="json")
    body = {**DEFINITION, "id": "ping", "description": "a ping", "tags": {"team": "a"}}
    response = su.post("/definitionGroups/d/definitions", body, format="json")
    assert response.status_code == 201, response.content
    assert response["Registry-id"] == "ping" and response["Registry-description"] == "a ping"
    assert response["Registry-format"] == "CloudEvents/1.0"
    su.put("/definitionGroups/d/definitions/ping?meta", {"description": "renamed ping"}, format="json")
    document = su.get("/definitionGroups/d/definitions/ping").json()
    assert document["id"] == "ping" and document["description"] == "renamed ping"
    assert document["metadata"] == DEFINITION["metadata"]


def test_definition_header_and_body_disagree_is_400(su):
    su.post("/definitionGroups", {"id": "d", "format": "CloudEvents/1.0"}, format="json")
    before = snapshot()
    response = su.generic(
        "POST",
        "/definitionGroups/d/definitions",
        json.dumps({**DEFINITION, "name": "body name"}),
        content_type="application/json",
        HTTP_REGISTRY_ID="x",
        HTTP_REGISTRY_NAME="header name",
    )
    assert response.status_code == 400 and "name" in response.json()["detail"]
    assert snapshot() == before


def test_definition_validation_names_path_and_attribute(su):
    su.post("/definitionGroups", {"id": "d", "format": "CloudEvents/1.0"}, format="json")
    bad = {
        "format": "CloudEvents/1.0",
        "metadata": {"attributes": {"type": {"required": False}, "source": {"type": "uritemplate", "value": "{a"}}},
    }
    before = snapshot()
    response = su.generic(
        "POST",
        "/definitionGroups/d/definitions",
        json.dumps(bad),
        content_type="application/json",
        HTTP_REGISTRY_ID="bad",
    )
    assert response.status_code == 400
    assert snapshot() == before
    detail = response.json()["detail"]
    assert detail.startswith("/definitionGroups/d/definitions/bad/versions/1: ")
    assert "metadata.attributes.type.required must not be false" in detail
    assert "metadata.attributes.source.value" in detail
    other = {"format": "MQTT/5.0", "metadata": {}}
    response = su.generic(
        "POST",
        "/definitionGroups/d/definitions",
        json.dumps(other),
        content_type="application/json",
        HTTP_REGISTRY_ID="other",
    )
    assert response.status_code == 400 and "group's format" in response.json()["detail"]


def test_incompatible_schema_version_is_409_with_each_incompatibility(su, group):
    post_schema(su, format="JsonSchema/draft-07")
    breaking = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id", "total"]}
    response = su.generic("POST", "/schemaGroups/g1/schemas/s1", json.dumps(breaking), content_type="application/json")
    assert response.status_code == 409
    problem = response.json()
    assert problem["type"].endswith(":incompatible-version")
    changes = {(e["path"], e["change"]) for e in problem["errors"]}
    assert any("properties.id" in p for p, _c in changes) and any("total" in p for p, _c in changes)
    assert all({"path", "change", "reason"} <= set(e) for e in problem["errors"])
    assert Version.objects.count() == 1
    su.put(
        "/schemaGroups/g1/schemas/s1?meta", {"format": "JsonSchema/draft-07", "compatibility": "none"}, format="json"
    )
    assert (
        su.generic(
            "POST", "/schemaGroups/g1/schemas/s1", json.dumps(breaking), content_type="application/json"
        ).status_code
        == 201
    )


def test_invalid_schema_document_is_400(su, group):
    before = snapshot()
    response = post_schema(su, body={"type": 12}, format="JsonSchema/draft-07")
    assert response.status_code == 400 and "not valid JSON Schema" in response.json()["detail"]
    response = post_schema(su, sid="p", body=b"message {", content_type="text/plain", format="Protobuf/3")
    assert response.status_code == 400 and "Protobuf" in response.json()["detail"]
    assert snapshot() == before


def test_borrowed_definitions_must_have_the_group_format(su):
    su.post("/definitionGroups", {"id": "ce", "format": "CloudEvents/1.0"}, format="json")
    su.post("/definitionGroups", {"id": "ce2", "format": "CloudEvents/1.0"}, format="json")
    su.post("/definitionGroups", {"id": "mqtt", "format": "MQTT/5.0"}, format="json")
    su.generic(
        "POST",
        "/definitionGroups/ce/definitions",
        json.dumps(DEFINITION),
        content_type="application/json",
        HTTP_REGISTRY_ID="ping",
    )
    borrow = {"uri": "#/definitionGroups/ce/definitions/ping"}
    response = su.generic(
        "POST",
        "/definitionGroups/ce2/definitions",
        json.dumps(borrow),
        content_type="application/json",
        HTTP_REGISTRY_ID="ping",
    )
    assert response.status_code == 201, response.content
    response = su.generic(
        "POST",
        "/definitionGroups/mqtt/definitions",
        json.dumps(borrow),
        content_type="application/json",
        HTTP_REGISTRY_ID="ping",
    )
    assert response.status_code == 400 and "the group's format is 'MQTT/5.0'" in response.json()["detail"]
    missing = {"uri": "#/definitionGroups/ce/definitions/nope"}
    before = snapshot()
    response = su.generic(
        "POST",
        "/definitionGroups/ce2/definitions",
        json.dumps(missing),
        content_type="application/json",
        HTTP_REGISTRY_ID="nope",
    )
    assert response.status_code == 400 and "does not resolve" in response.json()["detail"]
    assert snapshot() == before
