"""Resources: POST/GET/PUT/DELETE of .../RESOURCEs and .../rID (docs/api-contract.md sections 2 and 5)."""

import base64
import json

import pytest

from registry.models import Resource, Version
from tests.helpers import (
    CUSTOM,
    JSON_SCHEMA_V1,
    TEXT,
    TIMESTAMP,
    assert_problem,
    definition,
    make_definition_group,
    make_group,
    meta,
    new_version,
    post_definition,
    post_schema,
    send,
    snapshot,
)

pytestmark = pytest.mark.django_db

RAW = b"  line one\r\n\tline \xc3\xa9two  \n\n"


@pytest.fixture
def g1(su):
    return make_group(su, "g1")


@pytest.fixture
def dg1(su):
    return make_definition_group(su, "dg1")


# ---- POST .../RESOURCEs -----------------------------------------------------------------------------------


def test_post_creates_resource_with_first_version(su, g1):
    response = post_schema(su, "g1", "s1", body=RAW, description="first", name="Schema One")
    assert response.status_code == 201
    assert response["Location"] == "http://testserver/schemaGroups/g1/schemas/s1"
    assert response["Content-Location"] == "http://testserver/schemaGroups/g1/schemas/s1/versions/1"
    assert response["Content-Type"] == TEXT
    assert response.content == RAW
    assert response["Registry-id"] == "s1"
    assert response["Registry-version"] == "1"
    assert response["Registry-epoch"] == "1"
    assert response["Registry-name"] == "Schema One"
    assert response["Registry-description"] == "first"
    assert response["Registry-format"] == CUSTOM
    assert response["Registry-self"] == "http://testserver/schemaGroups/g1/schemas/s1/versions/1"


def test_post_without_id_is_server_generated(su, g1):
    response = post_schema(su, "g1", None)
    rid = response["Registry-id"]
    assert rid
    assert response["Location"] == f"http://testserver/schemaGroups/g1/schemas/{rid}"
    assert Resource.objects.get().rid == rid


def test_post_with_registry_version_sets_first_version_id(su, g1):
    response = post_schema(su, "g1", "s1", version="1.0")
    assert response["Registry-version"] == "1.0"
    assert set(su.get("/schemaGroups/g1/schemas/s1/versions").json()) == {"1.0"}


def test_post_existing_id_is_409_irrespective_of_case(su, g1):
    post_schema(su, "g1", "Orders")
    before = snapshot()
    assert_problem(post_schema(su, "g1", "orders", expect=None), 409, "orders")
    assert_problem(post_schema(su, "g1", "Orders", expect=None), 409)
    assert snapshot() == before
    assert set(su.get("/schemaGroups/g1/schemas").json()) == {"Orders"}


@pytest.mark.parametrize("bad", ["a b", "x" * 129, "a:b"])
def test_post_invalid_resource_id_is_400(su, g1, bad):
    assert_problem(post_schema(su, "g1", bad, expect=None), 400, "id")
    assert not Resource.objects.exists()


def test_post_into_unknown_group_is_404(su):
    before = snapshot()
    assert_problem(post_schema(su, "nope", "s1", expect=None), 404, "/schemaGroups/nope")
    assert snapshot() == before


# ---- GET documents, headers, HEAD -----------------------------------------------------------------------


def test_media_type_and_bytes_preserved(su, g1):
    post_schema(su, "g1", "s1", body=RAW, content_type="text/x-weird; charset=latin-1; foo=bar")
    response = su.get("/schemaGroups/g1/schemas/s1")
    assert response.status_code == 200
    assert response.content == RAW
    assert response["Content-Type"] == "text/x-weird; charset=latin-1; foo=bar"
    versioned = su.get("/schemaGroups/g1/schemas/s1/versions/1")
    assert versioned.content == RAW


def test_json_schema_bytes_preserved_verbatim(su, g1):
    raw = b'{ "type" :"object",\n  "properties": {"a": {"type": "string"}} }\n'
    post_schema(su, "g1", "js", body=raw, content_type="application/json", fmt="JsonSchema/draft-07")
    response = su.get("/schemaGroups/g1/schemas/js")
    assert response.content == raw
    assert response["Content-Type"] == "application/json"


def test_get_resource_headers(su, g1):
    post_schema(su, "g1", "s1", description="d", tags_owner="team")
    response = su.get("/schemaGroups/g1/schemas/s1")
    assert response["Registry-id"] == "s1"
    assert response["Registry-name"] == "s1"
    assert response["Registry-version"] == "1"
    assert response["Registry-epoch"] == "1"
    assert response["Registry-self"] == "http://testserver/schemaGroups/g1/schemas/s1/versions/1"
    assert response["Registry-format"] == CUSTOM
    assert response["Registry-description"] == "d"
    assert TIMESTAMP.match(response["Registry-createdOn"])
    assert TIMESTAMP.match(response["Registry-modifiedOn"])
    assert response["Registry-createdBy"] == "alice"
    assert response["Content-Location"] == "http://testserver/schemaGroups/g1/schemas/s1/versions/1"


@pytest.mark.parametrize("path", ["/schemaGroups/g1/schemas/s1", "/schemaGroups/g1/schemas/s1/versions/1"])
def test_head_equals_get_without_body(su, g1, path):
    post_schema(su, "g1", "s1", body=RAW)
    got = su.get(path)
    head = su.head(path)
    assert head.status_code == got.status_code == 200
    assert head.content == b""
    got_headers = {k.lower(): v for k, v in got.items() if k.lower() not in ("date", "x-request-id")}
    head_headers = {k.lower(): v for k, v in head.items() if k.lower() not in ("date", "x-request-id")}
    assert head_headers == got_headers
    assert head["Content-Length"] == str(len(RAW))


def test_head_on_collections_and_groups(su, g1):
    post_schema(su, "g1", "s1")
    for path in (
        "/",
        "/schemaGroups",
        "/schemaGroups/g1",
        "/schemaGroups/g1/schemas",
        "/schemaGroups/g1/schemas/s1/versions",
    ):
        got, head = su.get(path), su.head(path)
        assert head.status_code == got.status_code == 200, path
        assert head.content == b""
        assert head["Content-Type"] == got["Content-Type"]


def test_unknown_resource_and_version_are_404(anon, su, g1):
    post_schema(su, "g1", "s1")
    assert_problem(anon.get("/schemaGroups/g1/schemas/nope"), 404, "nope")
    assert_problem(anon.get("/schemaGroups/g1/schemas/s1/versions/7"), 404, "versions/7")
    head = anon.head("/schemaGroups/g1/schemas/nope")
    assert head.status_code == 404 and head.content == b""
    assert head["Content-Type"].startswith("application/problem+json")


# ---- RESOURCEURI -------------------------------------------------------------------------------------------


def test_schema_uri_gives_307(su, g1):
    response = send(
        su,
        "POST",
        "/schemaGroups/g1/schemas",
        b"",
        TEXT,
        id="ext",
        format=CUSTOM,
        schemaURI="https://schemas.example.com/a.json",
    )
    assert response.status_code == 201, response.content
    assert response.content == b""
    for path in ("/schemaGroups/g1/schemas/ext", "/schemaGroups/g1/schemas/ext/versions/1"):
        got = su.get(path)
        assert got.status_code == 307
        assert got["Location"] == "https://schemas.example.com/a.json"
        assert got.content == b""
        assert got["Registry-schemaURI"] == "https://schemas.example.com/a.json"
        assert got["Registry-id"] == "ext"
        head = su.head(path)
        assert head.status_code == 307 and head["Location"] == "https://schemas.example.com/a.json"
    body = meta(su, "/schemaGroups/g1/schemas/ext")
    assert body["schemaURI"] == "https://schemas.example.com/a.json"
    listed = su.get("/schemaGroups/g1/schemas").json()["ext"]
    assert listed["schemaURI"] == "https://schemas.example.com/a.json"


def test_schema_uri_with_body_is_400(su, g1):
    response = send(
        su,
        "POST",
        "/schemaGroups/g1/schemas",
        b"doc",
        TEXT,
        id="ext",
        format=CUSTOM,
        schemaURI="https://schemas.example.com/a.json",
    )
    assert_problem(response, 400, "schemaURI")
    assert not Resource.objects.exists()


def test_schema_uri_into_this_registry_refused(su, g1):
    response = send(
        su,
        "POST",
        "/schemaGroups/g1/schemas",
        b"",
        TEXT,
        id="ext",
        format=CUSTOM,
        schemaURI="http://testserver/schemaGroups/g1/schemas/other",
    )
    assert_problem(response, 400, "schemaURI")
    assert not Resource.objects.exists()


# ---- collection shape ---------------------------------------------------------------------------------------


def test_list_resources_metadata(su, g1):
    post_schema(su, "g1", "s2", body=b"x", description="second")
    post_schema(su, "g1", "s1", body=b"y")
    new_version(su, "g1", "s1")
    body = su.get("/schemaGroups/g1/schemas").json()
    assert list(body) == ["s1", "s2"]
    s1 = body["s1"]
    assert s1["id"] == "s1" and s1["name"] == "s1" and s1["version"] == "2" and s1["epoch"] == 1
    assert s1["self"] == "http://testserver/schemaGroups/g1/schemas/s1/versions/2"
    assert s1["format"] == CUSTOM
    assert s1["versionsURL"] == "http://testserver/schemaGroups/g1/schemas/s1/versions"
    assert s1["versionsCount"] == 2
    assert body["s2"]["description"] == "second"
    assert "schema" not in s1 and "schemaBase64" not in s1


def test_list_resources_inline_documents(su, g1):
    post_schema(su, "g1", "txt", body=b"plain")
    post_schema(
        su, "g1", "js", body=json.dumps(JSON_SCHEMA_V1), content_type="application/json", fmt="JsonSchema/draft-07"
    )
    body = su.get("/schemaGroups/g1/schemas?inline").json()
    assert base64.b64decode(body["txt"]["schemaBase64"]) == b"plain"
    assert body["js"]["schema"] == JSON_SCHEMA_V1
    assert set(body["js"]["versions"]) == {"1"}


def test_get_resource_meta_and_inline(su, g1):
    post_schema(su, "g1", "s1", body=b"doc")
    body = meta(su, "/schemaGroups/g1/schemas/s1")
    assert body["id"] == "s1" and body["version"] == "1"
    assert body["versionsCount"] == 1
    inline = su.get("/schemaGroups/g1/schemas/s1?inline").json()
    assert base64.b64decode(inline["schemaBase64"]) == b"doc"
    assert set(inline["versions"]) == {"1"}


# ---- PUT .../rID -------------------------------------------------------------------------------------------


def test_put_unknown_resource_creates_201(su, g1):
    response = send(su, "PUT", "/schemaGroups/g1/schemas/fresh", b"made by put", TEXT, format=CUSTOM)
    assert response.status_code == 201, response.content
    assert response["Location"] == "http://testserver/schemaGroups/g1/schemas/fresh"
    assert response["Registry-version"] == "1"
    assert su.get("/schemaGroups/g1/schemas/fresh").content == b"made by put"


def test_put_updates_latest_in_place(su, g1):
    post_schema(su, "g1", "s1", body=b"v1")
    new_version(su, "g1", "s1", body=b"v2")
    response = send(su, "PUT", "/schemaGroups/g1/schemas/s1", b"v2 changed", "text/markdown")
    assert response.status_code == 200
    assert response["Registry-version"] == "2" and response["Registry-epoch"] == "2"
    assert set(su.get("/schemaGroups/g1/schemas/s1/versions").json()) == {"1", "2"}
    got = su.get("/schemaGroups/g1/schemas/s1")
    assert got.content == b"v2 changed" and got["Content-Type"] == "text/markdown"
    assert su.get("/schemaGroups/g1/schemas/s1/versions/1").content == b"v1"


def test_put_header_rules(su, g1):
    post_schema(su, "g1", "s1", body=b"v1", description="keep me", name="Nice")
    # a missing header leaves the attribute unchanged
    response = send(su, "PUT", "/schemaGroups/g1/schemas/s1", b"v1b", TEXT)
    assert response.status_code == 200
    assert response["Registry-description"] == "keep me"
    assert response["Registry-name"] == "Nice"
    assert response["Registry-format"] == CUSTOM
    # an empty header removes it
    response = send(su, "PUT", "/schemaGroups/g1/schemas/s1", b"v1c", TEXT, description="")
    assert response.status_code == 200
    assert "Registry-description" not in response
    assert "description" not in meta(su, "/schemaGroups/g1/schemas/s1")
    # a header changes it
    response = send(su, "PUT", "/schemaGroups/g1/schemas/s1", b"v1d", TEXT, name="Nicer")
    assert response["Registry-name"] == "Nicer"
    assert meta(su, "/schemaGroups/g1/schemas/s1")["epoch"] == 4


def test_put_id_header_must_match(su, g1):
    post_schema(su, "g1", "s1")
    before = snapshot()
    assert_problem(send(su, "PUT", "/schemaGroups/g1/schemas/s1", b"x", TEXT, id="other"), 400, "id")
    assert snapshot() == before


@pytest.mark.parametrize("how", ["query", "header"])
def test_put_resource_epoch_mismatch_is_409(su, g1, how):
    post_schema(su, "g1", "s1", body=b"v1")
    before = snapshot()
    if how == "query":
        response = send(su, "PUT", "/schemaGroups/g1/schemas/s1?epoch=3", b"changed", TEXT)
    else:
        response = send(su, "PUT", "/schemaGroups/g1/schemas/s1", b"changed", TEXT, epoch="3")
    assert_problem(response, 409, "epoch")
    assert snapshot() == before
    ok = send(su, "PUT", "/schemaGroups/g1/schemas/s1?epoch=1", b"changed", TEXT)
    assert ok.status_code == 200 and ok["Registry-epoch"] == "2"


# ---- DELETE -------------------------------------------------------------------------------------------------


def test_delete_resource_returns_last_state(su, g1):
    post_schema(su, "g1", "s1", description="last")
    new_version(su, "g1", "s1")
    response = su.delete("/schemaGroups/g1/schemas/s1")
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == "s1" and body["version"] == "2" and body["description"] == "last"
    assert su.get("/schemaGroups/g1/schemas/s1").status_code == 404
    assert not Version.objects.exists()


def test_delete_resource_epoch_mismatch(su, g1):
    post_schema(su, "g1", "s1")
    assert_problem(su.delete("/schemaGroups/g1/schemas/s1?epoch=9"), 409)
    assert Resource.objects.exists()


def test_bulk_delete_resources_all_or_nothing(su, g1):
    for sid in ("a", "b", "c"):
        post_schema(su, "g1", sid)
    before = snapshot()
    response = su.generic(
        "DELETE", "/schemaGroups/g1/schemas", '[{"id": "a"}, {"id": "missing"}]', content_type="application/json"
    )
    assert_problem(response, 404, "missing")
    assert snapshot() == before
    response = su.generic(
        "DELETE", "/schemaGroups/g1/schemas", '[{"id": "a"}, {"id": "b", "epoch": 2}]', content_type="application/json"
    )
    assert_problem(response, 409, "/schemaGroups/g1/schemas/b")
    assert snapshot() == before
    response = su.generic(
        "DELETE", "/schemaGroups/g1/schemas", '[{"id": "a"}, {"id": "b", "epoch": 1}]', content_type="application/json"
    )
    assert response.status_code == 200
    assert set(response.json()) == {"a", "b"}
    assert set(su.get("/schemaGroups/g1/schemas").json()) == {"c"}
    response = su.delete("/schemaGroups/g1/schemas")
    assert response.status_code == 200 and set(response.json()) == {"c"}
    assert su.get("/schemaGroups/g1/schemas").json() == {}


# ---- definitions: shared attributes in the JSON document ------------------------------------------------------


def test_definition_shared_attributes_from_body(su, dg1):
    doc = definition(description="from the body", name="Nice name", tags={"team": "a"})
    response = post_definition(su, "dg1", None, doc=doc, id="d1")
    assert response["Registry-id"] == "d1"
    assert response["Registry-description"] == "from the body"
    assert response["Registry-name"] == "Nice name"
    assert response["Registry-format"] == "CloudEvents/1.0"
    body = response.json()
    assert body["id"] == "d1" and body["description"] == "from the body" and body["name"] == "Nice name"
    got = su.get("/definitionGroups/dg1/definitions/d1")
    assert got["Registry-description"] == "from the body"
    assert got.json()["description"] == "from the body"
    assert got.json()["metadata"] == doc["metadata"]
    listed = su.get("/definitionGroups/dg1/definitions").json()["d1"]
    assert listed["description"] == "from the body" and listed["format"] == "CloudEvents/1.0"


def test_definition_id_from_body(su, dg1):
    response = post_definition(su, "dg1", None, doc=definition(id="fromBody"))
    assert response["Registry-id"] == "fromBody"
    assert su.get("/definitionGroups/dg1/definitions/fromBody").status_code == 200


def test_definition_header_and_body_disagree_is_400(su, dg1):
    before = snapshot()
    response = post_definition(su, "dg1", "d1", doc=definition(description="body"), expect=None, description="header")
    assert_problem(response, 400, "description")
    response = post_definition(su, "dg1", "d1", doc=definition(id="other"), expect=None)
    assert_problem(response, 400, "id")
    response = post_definition(su, "dg1", "d1", doc=definition(), expect=None, format="HTTP/1.1")
    assert_problem(response, 400, "format")
    assert snapshot() == before


def test_definition_header_and_body_agreeing_is_fine(su, dg1):
    response = post_definition(su, "dg1", "d1", doc=definition(description="same"), description="same")
    assert response["Registry-description"] == "same"


def test_definition_put_header_body_disagreement(su, dg1):
    post_definition(su, "dg1", "d1", doc=definition(description="one"))
    before = snapshot()
    response = send(
        su,
        "PUT",
        "/definitionGroups/dg1/definitions/d1",
        definition(description="two"),
        "application/json",
        description="three",
    )
    assert_problem(response, 400, "description")
    assert snapshot() == before
    response = send(
        su, "PUT", "/definitionGroups/dg1/definitions/d1", definition(description="two"), "application/json"
    )
    assert response.status_code == 200
    assert response["Registry-description"] == "two"


def test_definition_must_match_group_format(su, dg1):
    doc = {"format": "HTTP/1.1", "metadata": {"method": "POST"}}
    assert_problem(post_definition(su, "dg1", "d1", doc=doc, expect=None), 400, "format")
    assert not Resource.objects.exists()


def test_invalid_cloudevents_definition_is_400(su, dg1):
    doc = definition()
    doc["metadata"]["attributes"]["type"]["required"] = False
    assert_problem(post_definition(su, "dg1", "d1", doc=doc, expect=None), 400, "required")
    assert not Resource.objects.exists()


def test_definition_body_must_be_json_object(su, dg1):
    response = send(su, "POST", "/definitionGroups/dg1/definitions", b"[1, 2]", "application/json", id="d1")
    assert_problem(response, 400)
    response = send(su, "POST", "/definitionGroups/dg1/definitions", b"{not json", "application/json", id="d1")
    assert_problem(response, 400)
    assert not Resource.objects.exists()


def test_endpoint_inlined_definitions(su):
    make_group(su, "e1", "endpoints", usage="producer", format="CloudEvents/1.0")
    response = send(su, "POST", "/endpoints/e1/definitions", definition(), "application/json", id="d1")
    assert response.status_code == 201, response.content
    assert response["Location"] == "http://testserver/endpoints/e1/definitions/d1"
    assert su.get("/endpoints/e1").json()["definitionsCount"] == 1


def test_put_headers_only_keeps_document(su, g1):
    post_schema(su, "g1", "s1", body=RAW)
    response = send(su, "PUT", "/schemaGroups/g1/schemas/s1", b"", TEXT, description="meta only")
    assert response.status_code == 200, response.content
    assert response["Registry-description"] == "meta only"
    got = su.get("/schemaGroups/g1/schemas/s1")
    assert got.content == RAW and got["Content-Type"] == TEXT
    assert got["Registry-epoch"] == "2"


def test_switch_between_document_and_schema_uri(su, g1):
    post_schema(su, "g1", "s1", body=b"stored")
    response = send(su, "PUT", "/schemaGroups/g1/schemas/s1", b"", TEXT, schemaURI="https://example.com/s.avsc")
    assert response.status_code == 200, response.content
    got = su.get("/schemaGroups/g1/schemas/s1")
    assert got.status_code == 307 and got["Location"] == "https://example.com/s.avsc"
    # an empty Registry-schemaURI removes it; the body is the document again
    response = send(su, "PUT", "/schemaGroups/g1/schemas/s1", b"stored again", TEXT, schemaURI="")
    assert response.status_code == 200, response.content
    got = su.get("/schemaGroups/g1/schemas/s1")
    assert got.status_code == 200 and got.content == b"stored again"
    assert "schemaURI" not in meta(su, "/schemaGroups/g1/schemas/s1")


def test_modified_by_is_the_writer(su, g1, django_user_model):
    from rest_framework.test import APIClient

    post_schema(su, "g1", "s1")
    other = APIClient()
    other.force_authenticate(django_user_model.objects.create_superuser("zoe", "z@example.com", "pw"))
    response = send(other, "PUT", "/schemaGroups/g1/schemas/s1", b"by zoe", TEXT)
    assert response["Registry-modifiedBy"] == "zoe"
    assert response["Registry-createdBy"] == "alice"
    group = send(other, "PUT", "/schemaGroups/g1", {}, "application/json").json()
    assert group["modifiedBy"] == "zoe" and group["createdBy"] == "alice"


def test_tag_headers_round_trip(su, g1):
    response = post_schema(su, "g1", "s1", tags_owner="team-a", tags_stage="prod")
    assert response["Registry-tags-owner"] == "team-a"
    assert meta(su, "/schemaGroups/g1/schemas/s1")["tags"] == {"owner": "team-a", "stage": "prod"}
    # headers replace the tag map; no tag header leaves it unchanged
    send(su, "PUT", "/schemaGroups/g1/schemas/s1", b"x", TEXT)
    assert meta(su, "/schemaGroups/g1/schemas/s1")["tags"] == {"owner": "team-a", "stage": "prod"}
    send(su, "PUT", "/schemaGroups/g1/schemas/s1", b"x", TEXT, tags_owner="team-b")
    assert meta(su, "/schemaGroups/g1/schemas/s1")["tags"] == {"owner": "team-b"}


def test_definition_body_epoch_is_checked_not_stored(su, dg1):
    path = "/definitionGroups/dg1/definitions/d1"
    post_definition(su, "dg1", "d1")
    before = snapshot()
    response = send(su, "PUT", path, definition(epoch=7), "application/json")
    assert_problem(response, 409, "epoch")
    assert_problem(send(su, "POST", path, definition("com.example.y", epoch=7), "application/json"), 409, "epoch")
    assert snapshot() == before
    response = send(su, "PUT", path, definition("com.example.z", epoch=1), "application/json")
    assert response.status_code == 200, response.content
    assert response["Registry-epoch"] == "2"
    assert "epoch" not in su.get(path).json()
