"""Registry level (docs/api-contract.md section 3): GET /, ?model, ?inline and its size limit."""

import json

import pytest

from .jsonschema_docs import post_schema

pytestmark = pytest.mark.django_db


def test_model_is_fixed(anon):
    model = anon.get("/?model").json()
    groups = {g["plural"]: g for g in model["groups"]}
    assert groups["endpoints"]["resources"] == [
        {"singular": "definition", "plural": "definitions", "versions": 0, "mutable": True}
    ]
    assert "mutable" not in groups["endpoints"]  # the spec's model marks the endpoint's definitions
    assert groups["definitionGroups"]["resources"][0]["versions"] == 0
    assert groups["schemaGroups"]["resources"] == [{"singular": "schema", "plural": "schemas", "versions": -1}]
    assert [g["singular"] for g in model["groups"]] == ["endpoint", "definitionGroup", "schemaGroup"]


def test_root_document(anon, su, group):
    response = anon.get("/")
    assert response["Content-Type"] == "application/json; charset=utf-8"
    root = response.json()
    assert root["specVersion"] == "0.5-wip"
    assert root["self"] == "http://testserver/"
    assert root["schemaGroupsURL"] == "http://testserver/schemaGroups"
    assert root["schemaGroupsCount"] == 1
    assert root["endpointsCount"] == 0 and root["definitionGroupsCount"] == 0
    assert {"id", "name"} <= set(root)


def test_inline_holds_everything(anon, su, group):
    assert post_schema(su).status_code == 201
    response = anon.get("/?inline")
    body = json.loads(b"".join(response.streaming_content))
    assert body["model"]["groups"]
    schema = body["schemaGroups"]["g1"]["schemas"]["s1"]
    assert schema["schema"] == {"type": "object", "properties": {"id": {"type": "string"}}}
    assert schema["versions"]["1"]["version"] == "1"
    assert body["endpoints"] == {} and body["definitionGroups"] == {}


def test_inline_too_large_is_400(anon, su, group, settings):
    post_schema(su)
    settings.REGISTRY_MAX_INLINE_ENTITIES = 2
    response = anon.get("/?inline")
    assert response.status_code == 400
    assert "page through" in response.json()["detail"]
    # the paged way to read it instead (issue 40): each group collection, and the export command
    assert "http://testserver/schemaGroups?limit=100" in response.json()["alternatives"]
    assert "GET http://testserver/" in response.json()["detail"] and "export_registry" in response.json()["detail"]
    assert anon.get("/schemaGroups?inline").status_code == 400


def test_head_equals_get_without_body(anon, group):
    get, head = anon.get("/schemaGroups/g1"), anon.head("/schemaGroups/g1")
    assert head.status_code == 200 and head.content == b""
    assert head["Content-Length"] == str(len(get.content))
