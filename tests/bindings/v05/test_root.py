"""The registry root: GET /, ?model, ?inline and its size limit (docs/api-contract.md section 3)."""

import json

import pytest

from tests.helpers import (
    JSON_SCHEMA_V1,
    assert_problem,
    make_definition_group,
    make_group,
    post_definition,
    post_schema,
    snapshot,
)

pytestmark = pytest.mark.django_db


def test_root_document_shape(su):
    make_group(su, "g1")
    make_group(su, "g2")
    make_definition_group(su, "dg1")
    response = su.get("/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["specVersion"] == "0.5-wip"
    assert body["id"] and body["name"]
    assert body["self"] == "http://testserver/"
    assert body["schemaGroupsURL"] == "http://testserver/schemaGroups"
    assert body["schemaGroupsCount"] == 2
    assert body["definitionGroupsURL"] == "http://testserver/definitionGroups"
    assert body["definitionGroupsCount"] == 1
    assert body["endpointsURL"] == "http://testserver/endpoints"
    assert body["endpointsCount"] == 0
    assert "model" not in body and "schemaGroups" not in body


def test_root_urls_follow_the_request_host(anon, settings):
    settings.ALLOWED_HOSTS = ["registry.example.org", "testserver"]
    body = anon.get("/", HTTP_HOST="registry.example.org").json()
    assert body["self"] == "http://registry.example.org/"
    assert body["schemaGroupsURL"] == "http://registry.example.org/schemaGroups"


def test_root_description_and_docs_omitted_when_unset(anon, settings):
    settings.REGISTRY_DESCRIPTION = ""
    settings.REGISTRY_DOCS = ""
    body = anon.get("/").json()
    assert "description" not in body and "docs" not in body
    settings.REGISTRY_DESCRIPTION = "the test registry"
    settings.REGISTRY_DOCS = "https://example.com/docs"
    body = anon.get("/").json()
    assert body["description"] == "the test registry"
    assert body["docs"] == "https://example.com/docs"


def test_model(anon):
    response = anon.get("/?model")
    assert response.status_code == 200
    groups = {g["plural"]: g for g in response.json()["groups"]}
    assert set(groups) == {"endpoints", "definitionGroups", "schemaGroups"}
    assert groups["endpoints"]["singular"] == "endpoint"
    assert "mutable" not in groups["endpoints"]  # the spec's model marks the endpoint's definitions
    assert groups["endpoints"]["resources"] == [
        {"singular": "definition", "plural": "definitions", "versions": 0, "mutable": True}
    ]
    assert groups["definitionGroups"]["singular"] == "definitionGroup"
    assert groups["definitionGroups"]["resources"] == [
        {"singular": "definition", "plural": "definitions", "versions": 0}
    ]
    assert groups["schemaGroups"]["singular"] == "schemaGroup"
    assert groups["schemaGroups"]["resources"] == [{"singular": "schema", "plural": "schemas", "versions": -1}]


def test_inline_holds_model_and_nested_maps(su):
    make_group(su, "g1")
    post_schema(su, "g1", "s1", body=b"plain text v1")
    post_schema(
        su, "g1", "js", body=json.dumps(JSON_SCHEMA_V1), content_type="application/json", fmt="JsonSchema/draft-07"
    )
    make_definition_group(su, "dg1")
    post_definition(su, "dg1", "d1")
    response = su.get("/?inline")
    assert response.status_code == 200
    body = json.loads(b"".join(response.streaming_content) if response.streaming else response.content)
    assert body["specVersion"] == "0.5-wip"
    assert {g["plural"] for g in body["model"]["groups"]} == {"endpoints", "definitionGroups", "schemaGroups"}
    assert body["endpoints"] == {}
    schemas = body["schemaGroups"]["g1"]["schemas"]
    assert set(schemas) == {"s1", "js"}
    assert schemas["s1"]["versions"]["1"]["schemaBase64"]  # a text document: base64
    assert schemas["js"]["schema"] == JSON_SCHEMA_V1  # a JSON document: inline
    assert schemas["js"]["versions"]["1"]["schema"] == JSON_SCHEMA_V1
    definitions = body["definitionGroups"]["dg1"]["definitions"]
    assert definitions["d1"]["definition"]["format"] == "CloudEvents/1.0"
    assert set(definitions["d1"]["versions"]) == {"1"}


def test_inline_off_values(anon):
    body = anon.get("/?inline=false").json()
    assert "model" not in body


def test_inline_too_large_is_400(su, settings):
    make_group(su, "g1")
    post_schema(su, "g1", "s1")
    settings.REGISTRY_MAX_INLINE_ENTITIES = 2  # 1 group + 1 resource + 1 version = 3
    response = su.get("/?inline")
    body = assert_problem(response, 400)
    assert "page" in body["detail"]
    assert_problem(su.get("/schemaGroups?inline"), 400)
    assert_problem(su.get("/schemaGroups/g1?inline"), 400)
    settings.REGISTRY_MAX_INLINE_ENTITIES = 1  # 1 resource + 1 version = 2
    assert_problem(su.get("/schemaGroups/g1/schemas?inline"), 400)
    assert_problem(su.get("/schemaGroups/g1/schemas/s1?inline"), 400)
    assert su.get("/schemaGroups/g1/schemas/s1/versions?inline").status_code == 200
    settings.REGISTRY_MAX_INLINE_ENTITIES = 0
    assert_problem(su.get("/schemaGroups/g1/schemas/s1/versions?inline"), 400)
    assert su.get("/schemaGroups/g1/schemas").status_code == 200  # without ?inline: no limit
    settings.REGISTRY_MAX_INLINE_ENTITIES = 3
    assert su.get("/?inline").status_code == 200
    assert su.get("/schemaGroups?inline").status_code == 200


def test_unknown_root_flag_is_400(anon):
    assert_problem(anon.get("/?bogus=1"), 400, "bogus")


def test_root_methods_not_allowed(su):
    before = snapshot()
    response = su.delete("/")
    assert_problem(response, 405)
    assert snapshot() == before
    assert "GET" in response["Allow"]


IMPORT_DOC = {
    "$schema": "https://cloudevents.io/schemas/registry",
    "specversion": "0.5-wip",
    "schemaGroups": {
        "ig": {
            "id": "ig",
            "description": "imported",
            "schemas": {
                "s1": {"id": "s1", "format": "Custom/1", "versions": {"1": {"id": "1", "schema": "plain text"}}},
            },
        },
    },
    "definitionGroups": {
        "idg": {
            "id": "idg",
            "format": "CloudEvents/1.0",
            "definitions": {
                "d1": {
                    "id": "d1",
                    "format": "CloudEvents/1.0",
                    "metadata": {"attributes": {"type": {"value": "com.example.imported"}}},
                },
            },
        },
    },
}


def test_import_document_all_or_nothing(su):
    from registry.models import Group

    response = su.generic("POST", "/", json.dumps(IMPORT_DOC), content_type="application/json")
    assert response.status_code == 200, response.content
    report = response.json()
    assert set(report) == {"created", "updated", "unchanged", "warnings", "teamsCreated"}
    assert "/schemaGroups/ig" in report["created"]
    assert "/schemaGroups/ig/schemas/s1/versions/1" in report["created"]
    assert "/definitionGroups/idg" in report["created"]
    assert su.get("/schemaGroups/ig/schemas/s1").content == b"plain text"
    again = su.generic("POST", "/", json.dumps(IMPORT_DOC), content_type="application/json").json()
    assert again["created"] == [] and again["updated"] == []
    assert "/schemaGroups/ig" in again["unchanged"]
    # an invalid entity fails the whole import
    bad = json.loads(json.dumps(IMPORT_DOC))
    bad["schemaGroups"]["new"] = {"id": "new"}
    bad["definitionGroups"]["broken"] = {"id": "broken", "format": "CloudEvents"}  # not NAME/VERSION
    before = sorted(Group.objects.values_list("gid", "epoch"))
    response = su.generic("POST", "/", json.dumps(bad), content_type="application/json")
    assert_problem(response, 400, "broken")
    assert sorted(Group.objects.values_list("gid", "epoch")) == before


def test_import_unsupported_media_type_is_415(su):
    before = snapshot()
    assert_problem(su.generic("POST", "/", json.dumps(IMPORT_DOC), content_type="text/csv"), 415)
    assert snapshot() == before
