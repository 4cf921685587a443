"""?meta: metadata as JSON, PUT ...?meta (docs/api-contract.md sections 5 and 10)."""

import pytest

from tests.helpers import (
    CUSTOM,
    TIMESTAMP,
    assert_problem,
    definition,
    make_definition_group,
    make_group,
    meta,
    new_version,
    post_definition,
    post_schema,
    send_json,
    snapshot,
)

pytestmark = pytest.mark.django_db

S1 = "/schemaGroups/g1/schemas/s1"


@pytest.fixture
def s1(su):
    make_group(su, "g1")
    post_schema(su, "g1", "s1", body=b"doc one", description="d", tags_owner="team")
    new_version(su, body=b"doc two")


def test_meta_of_resource_and_version(su, s1):
    response = su.get(S1 + "?meta")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert response["Content-Location"] == f"http://testserver{S1}/versions/2"
    body = response.json()
    assert body["id"] == "s1" and body["version"] == "2" and body["name"] == "s1"
    assert body["epoch"] == 1 and body["format"] == CUSTOM and body["description"] == "d"
    assert body["self"] == f"http://testserver{S1}/versions/2"
    assert body["versionsURL"] == f"http://testserver{S1}/versions" and body["versionsCount"] == 2
    assert TIMESTAMP.match(body["createdOn"]) and TIMESTAMP.match(body["modifiedOn"])
    assert body["createdBy"] == "alice"
    assert "schema" not in body and "schemaBase64" not in body
    v1 = meta(su, S1 + "/versions/1")
    assert v1["id"] == "s1" and v1["version"] == "1"  # id is the resource id, version the version id
    assert v1["self"] == f"http://testserver{S1}/versions/1"


def test_put_meta_changes_metadata_only(su, s1):
    response = send_json(su, "PUT", S1 + "?meta", {"description": "new", "format": CUSTOM, "name": "Named"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["description"] == "new" and body["name"] == "Named"
    assert body["version"] == "2" and body["epoch"] == 2
    assert set(su.get(S1 + "/versions").json()) == {"1", "2"}  # no new version
    assert su.get(S1).content == b"doc two"  # document unchanged
    assert meta(su, S1 + "/versions/1")["epoch"] == 1


def test_put_meta_removes_missing_attributes(su, s1):
    body = send_json(su, "PUT", S1 + "?meta", {"format": CUSTOM}).json()
    assert "description" not in body and "tags" not in body
    assert body["format"] == CUSTOM
    assert body["name"] == "s1"
    body = send_json(su, "PUT", S1 + "?meta", {}).json()
    assert "format" not in body


def test_put_meta_ignores_server_owned(su, s1):
    response = send_json(
        su,
        "PUT",
        S1 + "?meta",
        {
            "id": "s1",
            "version": "2",
            "epoch": 1,
            "self": "http://elsewhere/",
            "description": "x",
            "createdBy": "mallory",
            "versionsCount": 42,
            "versionsURL": "http://elsewhere/v",
        },
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["self"] == f"http://testserver{S1}/versions/2"
    assert body["epoch"] == 2 and body["createdBy"] == "alice"


@pytest.mark.parametrize(
    "body,status",
    [
        ({"version": "1"}, 409),
        ({"epoch": 5}, 409),
        ({"id": "other"}, 400),
        ({"name": 5}, 400),
        ({"tags": []}, 400),
    ],
)
def test_put_meta_conflicts_change_nothing(su, s1, body, status):
    before = snapshot()
    assert_problem(send_json(su, "PUT", S1 + "?meta", body), status)
    assert snapshot() == before


def test_put_meta_epoch_query(su, s1):
    before = snapshot()
    assert_problem(send_json(su, "PUT", S1 + "?meta&epoch=3", {"description": "x"}), 409, "epoch")
    assert snapshot() == before
    assert send_json(su, "PUT", S1 + "?meta&epoch=1", {"description": "x"}).json()["epoch"] == 2


def test_put_meta_on_a_version(su, s1):
    response = send_json(su, "PUT", S1 + "/versions/1?meta", {"description": "old one", "format": CUSTOM})
    assert response.status_code == 200
    body = response.json()
    assert body["version"] == "1" and body["epoch"] == 2 and body["description"] == "old one"
    assert meta(su, S1)["description"] == "d"  # latest untouched
    assert su.get(S1 + "/versions/1").content == b"doc one"
    assert_problem(send_json(su, "PUT", S1 + "/versions/1?meta", {"version": "2"}), 409)


def test_put_meta_needs_a_json_object(su, s1):
    before = snapshot()
    assert_problem(su.generic("PUT", S1 + "?meta", "[1]", content_type="application/json"), 400)
    assert_problem(su.generic("PUT", S1 + "?meta", "{oops", content_type="application/json"), 400)
    assert_problem(su.generic("PUT", S1 + "?meta", "", content_type="application/json"), 400)
    assert snapshot() == before


def test_meta_of_unknown_version_is_404(su, s1):
    assert_problem(su.get(S1 + "/versions/9?meta"), 404)
    assert_problem(send_json(su, "PUT", S1 + "/versions/9?meta", {}), 404)


def test_definition_meta_keeps_document(su):
    make_definition_group(su, "dg1")
    path = "/definitionGroups/dg1/definitions/d1"
    post_definition(su, "dg1", "d1", doc=definition(description="d"))
    body = send_json(su, "PUT", path + "?meta", {"description": "renamed", "format": "CloudEvents/1.0"}).json()
    assert body["description"] == "renamed" and body["epoch"] == 2 and body["version"] == "1"
    doc = su.get(path).json()
    assert doc["description"] == "renamed"
    assert doc["metadata"]["attributes"]["type"]["value"] == "com.example.x"
