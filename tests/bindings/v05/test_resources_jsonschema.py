"""Resources and versions (docs/api-contract.md section 5): documents, headers, 307, version ids, latest, retention."""

import json

import pytest

from registry.models import Resource, Version
from tests.helpers import snapshot

from .jsonschema_docs import SCHEMA_V1, SCHEMA_V2, new_version, post_schema

pytestmark = pytest.mark.django_db


def test_create_resource_201_with_headers_and_document(su, group):
    response = post_schema(su, format="JsonSchema/draft-07", description="first schema")
    assert response.status_code == 201, response.content
    assert response["Location"] == "http://testserver/schemaGroups/g1/schemas/s1"
    assert response["Content-Location"] == "http://testserver/schemaGroups/g1/schemas/s1/versions/1"
    assert response["Registry-id"] == "s1" and response["Registry-version"] == "1"
    assert response["Registry-epoch"] == "1" and response["Registry-format"] == "JsonSchema/draft-07"
    assert response["Registry-self"] == response["Content-Location"]
    assert json.loads(response.content) == SCHEMA_V1


def test_media_type_and_bytes_preserved(su, group):
    document = b'syntax = "proto3";\nmessage Ping { string id = 1; }\n'
    post_schema(su, body=document, content_type="text/x-protobuf; charset=utf-8", format="Protobuf/3")
    response = su.get("/schemaGroups/g1/schemas/s1")
    assert response.content == document
    assert response["Content-Type"] == "text/x-protobuf; charset=utf-8"
    head = su.head("/schemaGroups/g1/schemas/s1")
    assert head.content == b"" and head["Registry-version"] == "1" and head["Content-Length"] == str(len(document))


def test_server_assigned_version_ids_never_reused(su, group):
    post_schema(su)
    assert new_version(su)["Registry-version"] == "2"
    assert su.delete("/schemaGroups/g1/schemas/s1/versions/2").status_code == 200
    assert new_version(su)["Registry-version"] == "3"


def test_latest_is_the_greatest_version_id(su, group):
    post_schema(su, version="9")
    new_version(su, version="10")
    assert su.get("/schemaGroups/g1/schemas/s1")["Registry-version"] == "10"
    new_version(su, body=SCHEMA_V2, version="2")  # created last, compared with 9 and 10, not the latest
    assert su.get("/schemaGroups/g1/schemas/s1")["Registry-version"] == "10"
    listing = su.get("/schemaGroups/g1/schemas/s1/versions").json()
    assert list(listing) == ["9", "10", "2"]  # in the order they were created


def test_new_version_inherits_attributes(su, group):
    post_schema(su, format="JsonSchema/draft-07", description="kept")
    response = new_version(su)
    assert response["Registry-description"] == "kept" and response["Registry-format"] == "JsonSchema/draft-07"


def test_schemas_keep_all_versions_definitions_only_latest(su, group):
    post_schema(su)
    new_version(su)
    assert Version.objects.filter(resource__rid="s1").count() == 2
    su.post("/definitionGroups", {"id": "d", "format": "CloudEvents/1.0"}, format="json")
    for _ in range(3):
        response = su.generic(
            "POST",
            "/definitionGroups/d/definitions/ev" if _ else "/definitionGroups/d/definitions",
            json.dumps({"format": "CloudEvents/1.0", "metadata": {"attributes": {"type": {"value": "t"}}}}),
            content_type="application/json",
            **({} if _ else {"HTTP_REGISTRY_ID": "ev"}),
        )
        assert response.status_code == 201, response.content
    versions = list(Version.objects.filter(resource__rid="ev").values_list("vid", flat=True))
    assert versions == ["3"]


def test_resource_uri_redirects_with_307(su, group):
    response = su.generic(
        "POST",
        "/schemaGroups/g1/schemas",
        b"",
        HTTP_REGISTRY_ID="ext",
        HTTP_REGISTRY_SCHEMAURI="https://schemas.example.com/ext.json",
    )
    assert response.status_code == 201
    response = su.get("/schemaGroups/g1/schemas/ext")
    assert response.status_code == 307 and response["Location"] == "https://schemas.example.com/ext.json"
    assert response.content == b""
    meta = su.get("/schemaGroups/g1/schemas/ext?meta").json()
    assert meta["schemaURI"] == "https://schemas.example.com/ext.json"


def test_schema_uri_into_this_registry_is_refused(su, group):
    before = snapshot()
    response = su.generic(
        "POST",
        "/schemaGroups/g1/schemas",
        b"",
        HTTP_REGISTRY_ID="loop",
        HTTP_REGISTRY_SCHEMAURI="http://testserver/schemaGroups/g1/schemas/x",
    )
    assert response.status_code == 400 and "points into this registry" in response.json()["detail"]
    assert snapshot() == before


def test_uri_with_body_is_400(su, group):
    before = snapshot()
    response = su.generic(
        "POST",
        "/schemaGroups/g1/schemas",
        b"{}",
        content_type="application/json",
        HTTP_REGISTRY_ID="x",
        HTTP_REGISTRY_SCHEMAURI="https://example.com/x",
    )
    assert response.status_code == 400
    assert snapshot() == before


def test_put_updates_latest_in_place_and_header_rules(su, group):
    post_schema(su, description="d1", format="JsonSchema/draft-07")
    response = su.generic(
        "PUT",
        "/schemaGroups/g1/schemas/s1",
        json.dumps(SCHEMA_V2),
        content_type="application/json",
        HTTP_REGISTRY_NAME="Nice name",
    )
    assert response.status_code == 200
    assert response["Registry-epoch"] == "2" and response["Registry-version"] == "1"
    assert response["Registry-description"] == "d1"  # missing header: unchanged
    assert response["Registry-name"] == "Nice name"
    response = su.generic(
        "PUT",
        "/schemaGroups/g1/schemas/s1",
        json.dumps(SCHEMA_V2),
        content_type="application/json",
        HTTP_REGISTRY_DESCRIPTION="",
    )
    assert "Registry-description" not in response  # empty header: removed
    assert Version.objects.filter(resource__rid="s1").count() == 1


def test_put_unknown_resource_and_version_create(su, group):
    response = su.generic("PUT", "/schemaGroups/g1/schemas/new", json.dumps(SCHEMA_V1), content_type="application/json")
    assert response.status_code == 201 and response["Location"].endswith("/schemas/new")
    response = su.generic(
        "PUT", "/schemaGroups/g1/schemas/new/versions/v2", json.dumps(SCHEMA_V2), content_type="application/json"
    )
    assert response.status_code == 201 and response["Registry-version"] == "v2"


def test_version_id_mismatch_is_409(su, group):
    post_schema(su)
    before = snapshot()
    response = su.generic(
        "PUT",
        "/schemaGroups/g1/schemas/s1/versions/1",
        json.dumps(SCHEMA_V1),
        content_type="application/json",
        HTTP_REGISTRY_VERSION="7",
    )
    assert response.status_code == 409
    assert snapshot() == before


def test_version_epochs_and_stale_writes(su, group):
    post_schema(su)
    url = "/schemaGroups/g1/schemas/s1/versions/1"
    assert (
        su.generic("PUT", url + "?epoch=1", json.dumps(SCHEMA_V1), content_type="application/json").status_code == 200
    )
    stale = su.generic("PUT", url + "?epoch=1", json.dumps(SCHEMA_V2), content_type="application/json")
    assert stale.status_code == 409
    assert json.loads(su.get(url).content) == SCHEMA_V1
    assert su.delete(url + "?epoch=1").status_code == 409


def test_delete_versions_rules(su, group):
    post_schema(su)
    new_version(su)
    new_version(su, body={**SCHEMA_V2, "title": "three"})
    base = "/schemaGroups/g1/schemas/s1"
    response = su.generic(
        "DELETE",
        base + "/versions",
        '[{"version": "1"}, {"version": "2"}, {"version": "3"}]',
        content_type="application/json",
    )
    assert response.status_code == 400  # deleting every version
    response = su.generic(
        "DELETE", base + "/versions", '[{"version": "1"}, {"version": "nope"}]', content_type="application/json"
    )
    assert response.status_code == 404
    assert Version.objects.filter(resource__rid="s1").count() == 3
    assert su.delete(base + "/versions/3").status_code == 200
    assert su.get(base)["Registry-version"] == "2"  # greatest remaining became latest
    response = su.delete(base + "/versions")  # no body: all but the latest
    assert response.status_code == 200 and list(response.json()) == ["1"]
    assert su.delete(base + "/versions/2").status_code == 400  # the only one


def test_delete_resource_and_bulk(su, group):
    post_schema(su, sid="a")
    post_schema(su, sid="b")
    response = su.generic(
        "DELETE", "/schemaGroups/g1/schemas", '[{"id": "a"}, {"id": "zz"}]', content_type="application/json"
    )
    assert response.status_code == 404 and Resource.objects.count() == 2
    response = su.delete("/schemaGroups/g1/schemas/a")
    assert response.status_code == 200 and response.json()["id"] == "a"
    assert su.delete("/schemaGroups/g1/schemas").status_code == 200
    assert Resource.objects.count() == 0


def test_listing_shapes(su, group):
    post_schema(su, format="JsonSchema/draft-07")
    listing = su.get("/schemaGroups/g1/schemas").json()
    entry = listing["s1"]
    assert entry["self"].endswith("/schemas/s1/versions/1") and entry["version"] == "1"
    assert entry["format"] == "JsonSchema/draft-07" and "schema" not in entry
    inline = su.get("/schemaGroups/g1/schemas?inline").json()
    assert inline["s1"]["schema"] == SCHEMA_V1
    post_schema(su, sid="bin", body=b"\x00\x01", content_type="application/octet-stream")
    assert su.get("/schemaGroups/g1/schemas?inline").json()["bin"]["schemaBase64"] == "AAE="
    assert su.get("/schemaGroups/g1?inline").json()["schemas"]["s1"]["versions"]["1"]["schema"] == SCHEMA_V1
