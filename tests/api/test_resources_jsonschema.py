"""Resources and versions (docs/api-contract.md section 5): documents, headers, 307, version ids, latest, retention."""

import json

import pytest

from registry.models import Resource, Version
from tests.helpers import snapshot

from .jsonschema_docs import SCHEMA_V1, SCHEMA_V2, new_version, post_schema

pytestmark = pytest.mark.django_db


def test_create_resource_201_with_headers_and_document(writer, group):
    response = post_schema(writer, format="JsonSchema/draft-07", description="first schema")
    assert response.status_code == 201, response.content
    assert response["Location"] == "http://testserver/schemaGroups/g1/schemas/s1"
    assert response["Content-Location"] == "http://testserver/schemaGroups/g1/schemas/s1/versions/1"
    assert response["Registry-id"] == "s1" and response["Registry-version"] == "1"
    assert response["Registry-epoch"] == "1" and response["Registry-format"] == "JsonSchema/draft-07"
    assert response["Registry-self"] == response["Content-Location"]
    assert json.loads(response.content) == SCHEMA_V1


def test_media_type_and_bytes_preserved(writer, group):
    document = b'syntax = "proto3";\nmessage Ping { string id = 1; }\n'
    post_schema(writer, body=document, content_type="text/x-protobuf; charset=utf-8", format="Protobuf/3")
    response = writer.get("/schemaGroups/g1/schemas/s1")
    assert response.content == document
    assert response["Content-Type"] == "text/x-protobuf; charset=utf-8"
    head = writer.head("/schemaGroups/g1/schemas/s1")
    assert head.content == b"" and head["Registry-version"] == "1" and head["Content-Length"] == str(len(document))


def test_server_assigned_version_ids_never_reused(writer, group):
    post_schema(writer)
    assert new_version(writer)["Registry-version"] == "2"
    assert writer.delete("/schemaGroups/g1/schemas/s1/versions/2").status_code == 200
    assert new_version(writer)["Registry-version"] == "3"


def test_latest_is_the_version_created_last(writer, group):
    post_schema(writer, version="9")
    new_version(writer, version="10")
    assert writer.get("/schemaGroups/g1/schemas/s1")["Registry-version"] == "10"
    new_version(writer, body=SCHEMA_V2, version="2")
    assert writer.get("/schemaGroups/g1/schemas/s1")["Registry-version"] == "2"
    listing = writer.get("/schemaGroups/g1/schemas/s1/versions").json()
    assert list(listing) == ["9", "10", "2"]


def test_new_version_inherits_attributes(writer, group):
    post_schema(writer, format="JsonSchema/draft-07", description="kept")
    response = new_version(writer)
    assert response["Registry-description"] == "kept" and response["Registry-format"] == "JsonSchema/draft-07"


def test_schemas_keep_all_versions_definitions_only_latest(writer, group):
    post_schema(writer)
    new_version(writer)
    assert Version.objects.filter(resource__rid="s1").count() == 2
    writer.post("/definitionGroups", {"id": "d", "format": "CloudEvents/1.0"}, format="json")
    for _ in range(3):
        response = writer.generic(
            "POST",
            "/definitionGroups/d/definitions/ev" if _ else "/definitionGroups/d/definitions",
            json.dumps({"format": "CloudEvents/1.0", "metadata": {"attributes": {"type": {"value": "t"}}}}),
            content_type="application/json",
            **({} if _ else {"HTTP_REGISTRY_ID": "ev"}),
        )
        assert response.status_code == 201, response.content
    versions = list(Version.objects.filter(resource__rid="ev").values_list("vid", flat=True))
    assert versions == ["3"]


def test_resource_uri_redirects_with_307(writer, group):
    response = writer.generic(
        "POST",
        "/schemaGroups/g1/schemas",
        b"",
        HTTP_REGISTRY_ID="ext",
        HTTP_REGISTRY_SCHEMAURI="https://schemas.example.com/ext.json",
    )
    assert response.status_code == 201
    response = writer.get("/schemaGroups/g1/schemas/ext")
    assert response.status_code == 307 and response["Location"] == "https://schemas.example.com/ext.json"
    assert response.content == b""
    meta = writer.get("/schemaGroups/g1/schemas/ext?meta").json()
    assert meta["schemaURI"] == "https://schemas.example.com/ext.json"


def test_schema_uri_into_this_registry_is_refused(writer, group):
    before = snapshot()
    response = writer.generic(
        "POST",
        "/schemaGroups/g1/schemas",
        b"",
        HTTP_REGISTRY_ID="loop",
        HTTP_REGISTRY_SCHEMAURI="http://testserver/schemaGroups/g1/schemas/x",
    )
    assert response.status_code == 400 and "points into this registry" in response.json()["detail"]
    assert snapshot() == before


def test_uri_with_body_is_400(writer, group):
    before = snapshot()
    response = writer.generic(
        "POST",
        "/schemaGroups/g1/schemas",
        b"{}",
        content_type="application/json",
        HTTP_REGISTRY_ID="x",
        HTTP_REGISTRY_SCHEMAURI="https://example.com/x",
    )
    assert response.status_code == 400
    assert snapshot() == before


def test_put_updates_latest_in_place_and_header_rules(writer, group):
    post_schema(writer, description="d1", format="JsonSchema/draft-07")
    response = writer.generic(
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
    response = writer.generic(
        "PUT",
        "/schemaGroups/g1/schemas/s1",
        json.dumps(SCHEMA_V2),
        content_type="application/json",
        HTTP_REGISTRY_DESCRIPTION="",
    )
    assert "Registry-description" not in response  # empty header: removed
    assert Version.objects.filter(resource__rid="s1").count() == 1


def test_put_unknown_resource_and_version_create(writer, group):
    response = writer.generic(
        "PUT", "/schemaGroups/g1/schemas/new", json.dumps(SCHEMA_V1), content_type="application/json"
    )
    assert response.status_code == 201 and response["Location"].endswith("/schemas/new")
    response = writer.generic(
        "PUT", "/schemaGroups/g1/schemas/new/versions/v2", json.dumps(SCHEMA_V2), content_type="application/json"
    )
    assert response.status_code == 201 and response["Registry-version"] == "v2"


def test_version_id_mismatch_is_409(writer, group):
    post_schema(writer)
    before = snapshot()
    response = writer.generic(
        "PUT",
        "/schemaGroups/g1/schemas/s1/versions/1",
        json.dumps(SCHEMA_V1),
        content_type="application/json",
        HTTP_REGISTRY_VERSION="7",
    )
    assert response.status_code == 409
    assert snapshot() == before


def test_version_epochs_and_stale_writes(writer, group):
    post_schema(writer)
    url = "/schemaGroups/g1/schemas/s1/versions/1"
    assert (
        writer.generic("PUT", url + "?epoch=1", json.dumps(SCHEMA_V1), content_type="application/json").status_code
        == 200
    )
    stale = writer.generic("PUT", url + "?epoch=1", json.dumps(SCHEMA_V2), content_type="application/json")
    assert stale.status_code == 409
    assert json.loads(writer.get(url).content) == SCHEMA_V1
    assert writer.delete(url + "?epoch=1").status_code == 409


def test_delete_versions_rules(writer, group):
    post_schema(writer)
    new_version(writer)
    new_version(writer, body={**SCHEMA_V2, "title": "three"})
    base = "/schemaGroups/g1/schemas/s1"
    response = writer.generic(
        "DELETE",
        base + "/versions",
        '[{"version": "1"}, {"version": "2"}, {"version": "3"}]',
        content_type="application/json",
    )
    assert response.status_code == 400  # deleting every version
    response = writer.generic(
        "DELETE", base + "/versions", '[{"version": "1"}, {"version": "nope"}]', content_type="application/json"
    )
    assert response.status_code == 404
    assert Version.objects.filter(resource__rid="s1").count() == 3
    assert writer.delete(base + "/versions/3").status_code == 200
    assert writer.get(base)["Registry-version"] == "2"  # greatest remaining became latest
    response = writer.delete(base + "/versions")  # no body: all but the latest
    assert response.status_code == 200 and list(response.json()) == ["1"]
    assert writer.delete(base + "/versions/2").status_code == 400  # the only one


def test_delete_resource_and_bulk(writer, group):
    post_schema(writer, sid="a")
    post_schema(writer, sid="b")
    response = writer.generic(
        "DELETE", "/schemaGroups/g1/schemas", '[{"id": "a"}, {"id": "zz"}]', content_type="application/json"
    )
    assert response.status_code == 404 and Resource.objects.count() == 2
    response = writer.delete("/schemaGroups/g1/schemas/a")
    assert response.status_code == 200 and response.json()["id"] == "a"
    assert writer.delete("/schemaGroups/g1/schemas").status_code == 200
    assert Resource.objects.count() == 0


def test_listing_shapes(writer, group):
    post_schema(writer, format="JsonSchema/draft-07")
    listing = writer.get("/schemaGroups/g1/schemas").json()
    entry = listing["s1"]
    assert entry["self"].endswith("/schemas/s1/versions/1") and entry["version"] == "1"
    assert entry["format"] == "JsonSchema/draft-07" and "schema" not in entry
    inline = writer.get("/schemaGroups/g1/schemas?inline").json()
    assert inline["s1"]["schema"] == SCHEMA_V1
    post_schema(writer, sid="bin", body=b"\x00\x01", content_type="application/octet-stream")
    assert writer.get("/schemaGroups/g1/schemas?inline").json()["bin"]["schemaBase64"] == "AAE="
    assert writer.get("/schemaGroups/g1?inline").json()["schemas"]["s1"]["versions"]["1"]["schema"] == SCHEMA_V1
