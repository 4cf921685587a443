"""Strict input handling and problem documents (docs/api-contract.md section 2)."""

import pytest

from registry.models import Group
from tests.helpers import (
    PROBLEM_TYPE,
    TEXT,
    assert_problem,
    make_group,
    post_schema,
    send,
    send_json,
    snapshot,
)

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "raw", ["{", '{"id": "g1",}', "{'id': 'g1'}", '{"id": NaN}', '{"id": "a", "id": "b"}', b'{"id": "\xff"}']
)
def test_malformed_json_is_400(su, raw):
    response = su.generic("POST", "/schemaGroups", raw, content_type="application/json")
    assert_problem(response, 400)
    assert not Group.objects.exists()


@pytest.mark.parametrize("raw", ["[]", '"g1"', "5", "null", "true"])
def test_non_object_body_is_400(su, raw):
    before = snapshot()
    assert_problem(su.generic("POST", "/schemaGroups", raw, content_type="application/json"), 400, "object")
    assert snapshot() == before
    make_group(su, "g1")
    before = snapshot()
    assert_problem(su.generic("PUT", "/schemaGroups/g1", raw, content_type="application/json"), 400)
    assert snapshot() == before


def test_empty_body_on_group_post_is_400(su):
    before = snapshot()
    assert_problem(su.generic("POST", "/schemaGroups", "", content_type="application/json"), 400)
    assert snapshot() == before


@pytest.mark.parametrize(
    "path",
    [
        "/schemaGroups?inlinee",
        "/schemaGroups?foo=bar",
        "/?model&x=1",
        "/schemaGroups/g1?limit=3",
        "/schemaGroups/g1/schemas/s1?filter=x=y",
        "/schemaGroups/g1/schemas/s1/versions/1?inline",
    ],
)
def test_unknown_query_flag_on_read_is_400(su, path):
    make_group(su, "g1")
    post_schema(su, "g1", "s1")
    assert_problem(su.get(path), 400)


def test_unknown_query_flag_on_write_is_400_and_writes_nothing(su):
    make_group(su, "g1")
    before = snapshot()
    assert_problem(send_json(su, "POST", "/schemaGroups?force=1", {"id": "g2"}), 400, "force")
    assert_problem(send_json(su, "PUT", "/schemaGroups/g1?meta", {"description": "x"}), 400, "meta")
    assert_problem(send(su, "POST", "/schemaGroups/g1/schemas?dryrun", b"x", TEXT, id="s1"), 400, "dryrun")
    assert snapshot() == before


@pytest.mark.parametrize(
    "body,attribute",
    [
        ({"id": "g1", "name": 5}, "name"),
        ({"id": "g1", "tags": []}, "tags"),
        ({"id": "g1", "tags": "x"}, "tags"),
        ({"id": "g1", "name": ""}, "name"),
    ],
)
def test_wrong_types(su, body, attribute):
    assert_problem(send_json(su, "POST", "/schemaGroups", body), 400, attribute)
    assert not Group.objects.exists()


def test_bad_epoch_values(su):
    make_group(su, "g1")
    before = snapshot()
    assert_problem(send_json(su, "PUT", "/schemaGroups/g1?epoch=abc", {}), 400, "epoch")
    assert_problem(send_json(su, "PUT", "/schemaGroups/g1", {"epoch": "1"}), 409)
    assert_problem(send_json(su, "PUT", "/schemaGroups/g1", {"epoch": True}), 409)
    response = su.generic(
        "PUT", "/schemaGroups/g1?epoch=1", "{}", content_type="application/json", HTTP_REGISTRY_EPOCH="2"
    )
    assert_problem(response, 400, "epoch")
    assert snapshot() == before


def test_body_over_limit_is_413(su, settings):
    settings.REGISTRY_MAX_BODY_BYTES = 64
    settings.REGISTRY_MAX_IMPORT_BYTES = 64  # POST / (a registry document) has its own limit
    make_group(su, "g1")
    before = snapshot()
    big = '{"id": "g2", "description": "' + "x" * 100 + '"}'
    assert_problem(su.generic("POST", "/schemaGroups", big, content_type="application/json"), 413)
    assert_problem(post_schema(su, "g1", "s1", body=b"y" * 65, expect=None), 413)
    assert_problem(su.generic("PUT", "/schemaGroups/g1", big, content_type="application/json"), 413)
    assert_problem(su.generic("POST", "/", big, content_type="application/json"), 413)
    assert snapshot() == before
    assert post_schema(su, "g1", "s1", body=b"y" * 64).status_code == 201


@pytest.mark.parametrize("content_type", ["text/plain", "application/xml", "application/x-www-form-urlencoded"])
def test_non_json_group_post_is_415(su, content_type):
    response = su.generic("POST", "/schemaGroups", '{"id": "g1"}', content_type=content_type)
    assert_problem(response, 415)
    assert not Group.objects.exists()


def test_json_suffix_media_types_accepted(su):
    response = su.generic("POST", "/schemaGroups", '{"id": "g1"}', content_type="application/json; charset=utf-8")
    assert response.status_code == 201


@pytest.mark.parametrize(
    "method,path,allowed",
    [
        ("PATCH", "/schemaGroups/g1", {"GET", "PUT", "DELETE"}),
        ("PUT", "/schemaGroups", {"GET", "POST", "DELETE"}),
        ("POST", "/schemaGroups/g1", {"GET", "PUT", "DELETE"}),
        ("POST", "/schemaGroups/g1/schemas/s1/versions", {"GET", "DELETE"}),
        ("POST", "/schemaGroups/g1/schemas/s1/versions/1", {"GET", "PUT", "DELETE"}),
        ("PUT", "/schemaGroups/g1/schemas", {"GET", "POST", "DELETE"}),
    ],
)
def test_unsupported_method_is_405_with_allow(su, method, path, allowed):
    make_group(su, "g1")
    post_schema(su, "g1", "s1")
    before = snapshot()
    response = su.generic(method, path, "{}", content_type="application/json")
    assert_problem(response, 405, method)
    allow = {m.strip() for m in response["Allow"].split(",")}
    assert allowed <= allow
    assert method not in allow
    assert snapshot() == before


def test_problem_document_shape(anon):
    response = anon.get("/schemaGroups/missing")
    assert response["Content-Type"] == PROBLEM_TYPE
    body = response.json()
    assert body["status"] == 404
    assert body["title"]
    assert "/schemaGroups/missing" in body["detail"]
    assert body["instance"] == "/schemaGroups/missing"
    assert body["type"].startswith("urn:") or body["type"].startswith("http")
    # the type is stable per kind of error
    other = anon.get("/definitionGroups/other").json()
    assert other["type"] == body["type"]
    assert anon.get("/schemaGroups?bogus").json()["type"] != body["type"]


def test_unknown_paths_answer_problem_documents(anon):
    assert_problem(anon.get("/noSuchThing"), 404)
    assert_problem(anon.get("/schemaGroups/g/nope"), 404)
    assert_problem(anon.get("/schemaGroups/g/schemas/s/versions/1/extra"), 404)


def test_conflict_problem_names_the_entity(su):
    make_group(su, "g1")
    before = snapshot()
    body = assert_problem(send_json(su, "POST", "/schemaGroups", {"id": "g1"}), 409, "g1")
    assert body["instance"] == "/schemaGroups"
    assert snapshot() == before


def test_invalid_document_in_group_import_body(su):
    make_group(su, "g1")
    before = snapshot()
    response = su.generic("PUT", "/schemaGroups/g1", '{"description": "\\u0000"}', content_type="application/json")
    assert_problem(response, 400)
    assert snapshot() == before


def test_other_json_bodies_are_strict(su):
    make_group(su, "g1")
    post_schema(su, "g1", "s1")
    before = snapshot()
    assert_problem(su.generic("DELETE", "/schemaGroups", "[{", content_type="application/json"), 400)
    assert_problem(
        su.generic("DELETE", "/schemaGroups/g1/schemas", '{"id": "s1"}', content_type="application/json"), 400
    )
    assert_problem(
        su.generic("DELETE", "/schemaGroups/g1/schemas/s1/versions", "[1]", content_type="application/json"), 400
    )
    assert_problem(su.generic("PUT", "/schemaGroups/g1/schemas/s1?meta", "{}", content_type="text/plain"), 415)
    assert_problem(su.generic("PUT", "/schemaGroups/g1", "{}", content_type="text/plain"), 415)
    assert_problem(su.generic("POST", "/", "{", content_type="application/json"), 400)
    assert snapshot() == before


def test_registry_epoch_header_on_delete(su):
    make_group(su, "g1")
    before = snapshot()
    assert_problem(su.delete("/schemaGroups/g1", HTTP_REGISTRY_EPOCH="4"), 409)
    assert snapshot() == before
    assert su.delete("/schemaGroups/g1", HTTP_REGISTRY_EPOCH="1").status_code == 200
