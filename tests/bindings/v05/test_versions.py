"""Versions: ids, latest, retention, PUT/DELETE of versions, compatibility (docs/api-contract.md sections 2, 5, 10)."""

import json

import pytest

from tests.helpers import (
    CUSTOM,
    JSON_SCHEMA_V1,
    JSON_SCHEMA_V2,
    TEXT,
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

S1 = "/schemaGroups/g1/schemas/s1"


@pytest.fixture
def s1(su):
    make_group(su, "g1")
    post_schema(su, "g1", "s1", body=b"v1")


def versions(client, path=S1):
    response = client.get(path + "/versions")
    assert response.status_code == 200
    return response.json()


def latest(client, path=S1):
    return meta(client, path)["version"]


def test_server_assigns_increasing_string_ids(su, s1):
    for expected in ("2", "3", "4"):
        response = new_version(su, body=f"v{expected}".encode())
        assert response["Registry-version"] == expected
        assert response["Location"] == "http://testserver" + S1
        assert response["Content-Location"] == f"http://testserver{S1}/versions/{expected}"
    body = versions(su)
    assert list(body) == ["1", "2", "3", "4"]
    assert all(isinstance(v["version"], str) for v in body.values())
    assert latest(su) == "4"


def test_the_next_id_after_many_versions_written_through_another_door(su, s1):
    # versions written by PUT move the counter beyond them: the next new version asks about the numbers after it
    assert new_version(su)["Registry-version"] == "2"
    for n in range(3, 33):
        assert send(su, "PUT", f"{S1}/versions/{n}", f"v{n}".encode()).status_code == 201
    assert new_version(su, body=b"next")["Registry-version"] == "33"
    assert latest(su) == "33"
    assert new_version(su)["Registry-version"] == "34"


def test_the_next_id_skips_numbers_stored_above_the_counter_by_another_door(su, s1):
    # versions stored without the services (plain ORM or SQL, a bulk import) leave the counter where it was: a new
    # version still finds the numbers they took, by insert and by update of an id (on PostgreSQL a trigger marks the
    # resource then: migration 0013)
    from registry.models import Resource, Version

    resource = Resource.objects.get(rid="s1")
    first = Version.objects.get(resource=resource, vid="1")

    def stored(vid):
        at = first.created_on
        return Version.objects.create(
            resource=resource, vid=vid, content=b"x", media_type="text/plain", created_on=at, modified_on=at
        )

    Version.objects.filter(pk=stored("draft").pk).update(vid="2")  # an id updated to a number
    assert new_version(su)["Registry-version"] == "3"
    stored("5")
    assert [new_version(su)["Registry-version"] for _ in range(2)] == ["4", "6"]
    stored("0008")  # not the number 8
    assert [new_version(su)["Registry-version"] for _ in range(2)] == ["7", "8"]


def test_version_ids_never_reused_after_delete(su, s1):
    new_version(su)
    new_version(su)
    assert su.delete(S1 + "/versions/3").status_code == 200
    assert latest(su) == "2"
    assert new_version(su)["Registry-version"] == "4"
    assert set(versions(su)) == {"1", "2", "4"}


def test_latest_is_the_greatest_id(su, s1):
    """The latest (default) version is the one whose id is the greatest after every id is left-padded with spaces to
    one length (CONTRACT 18, the seed), whatever order they were created in (issue 39 item 1; every binding:
    tests/bindings/every_binding/test_latest_version.py)."""
    new_version(su, version="9")
    new_version(su, version="10")
    assert latest(su) == "10"
    assert su.get(S1).content == b"next document"
    new_version(su, version="2")  # created last, not the latest
    assert latest(su) == "10"
    assert list(versions(su)) == ["1", "9", "10", "2"]  # listed in the order they were created
    # the next server-assigned id continues after the greatest numeric id given, and is the latest
    assert new_version(su)["Registry-version"] == "11"
    assert latest(su) == "11"


def test_a_version_without_an_id_after_a_longer_one(su, s1):
    new_version(su, version="1.0")
    assert latest(su) == "1.0"
    assert new_version(su)["Registry-version"] == "2"  # the next number: "1.0" is longer, still the latest
    assert latest(su) == "1.0"
    assert su.get("/registry/schemagroups/g1/schemas/s1$details").json()["versionid"] == "1.0"


def test_deleting_the_latest_promotes_the_greatest_remaining(su, s1):
    new_version(su, version="9")
    new_version(su, version="10")
    new_version(su, version="2")
    assert su.delete(S1 + "/versions/10").status_code == 200
    assert latest(su) == "9"
    assert su.get(S1)["Registry-version"] == "9"


def test_version_ids_unique_irrespective_of_case(su, s1):
    new_version(su, version="Beta")
    before = snapshot()
    assert_problem(new_version(su, version="beta", expect=None), 409, "beta")
    assert snapshot() == before
    assert "Beta" in versions(su)


def test_invalid_version_id_is_400(su, s1):
    assert_problem(new_version(su, version="a b", expect=None), 400)
    assert_problem(new_version(su, version="v" * 129, expect=None), 400)
    assert list(versions(su)) == ["1"]


def test_new_version_inherits_attributes_of_latest(su):
    make_group(su, "g1")
    post_schema(su, "g1", "s1", description="inherited", tags_owner="team")
    response = new_version(su)
    assert response["Registry-description"] == "inherited"
    assert response["Registry-format"] == CUSTOM
    body = meta(su, S1)
    assert body["description"] == "inherited" and body["format"] == CUSTOM
    response = new_version(su, description="own")
    assert response["Registry-description"] == "own"
    assert meta(su, S1 + "/versions/2")["description"] == "inherited"


def test_each_version_has_its_own_epoch(su, s1):
    new_version(su)
    assert meta(su, S1 + "/versions/1")["epoch"] == 1
    assert meta(su, S1 + "/versions/2")["epoch"] == 1
    send(su, "PUT", S1 + "/versions/1", b"v1 again", TEXT)
    assert meta(su, S1 + "/versions/1")["epoch"] == 2
    assert meta(su, S1 + "/versions/2")["epoch"] == 1


def test_new_version_with_epoch_of_latest(su, s1):
    before = snapshot()
    assert_problem(new_version(su, epoch="7", expect=None), 409, "epoch")
    assert snapshot() == before
    response = send(su, "POST", S1 + "?epoch=1", b"v2", TEXT)
    assert response.status_code == 201


def test_schemas_keep_all_versions(su, s1):
    for _ in range(5):
        new_version(su)
    assert len(versions(su)) == 6
    assert su.get(S1 + "/versions/1").content == b"v1"


def test_definitions_keep_only_the_latest(su):
    make_definition_group(su, "dg1")
    path = "/definitionGroups/dg1/definitions/d1"
    post_definition(su, "dg1", "d1", doc=definition("com.example.one"))
    response = send(su, "POST", path, definition("com.example.two"), "application/json")
    assert response.status_code == 201, response.content
    assert response["Registry-version"] == "2"
    assert set(versions(su, path)) == {"2"}
    assert su.get(path + "/versions/1").status_code == 404
    doc = su.get(path).json()
    assert doc["metadata"]["attributes"]["type"]["value"] == "com.example.two"
    # ids still never reused
    send(su, "POST", path, definition("com.example.three"), "application/json")
    assert set(versions(su, path)) == {"3"}


# ---- PUT .../versions/V ------------------------------------------------------------------------------------


def test_put_version_updates_that_version(su, s1):
    new_version(su, body=b"v2")
    response = send(su, "PUT", S1 + "/versions/1", b"v1 edited", "text/csv")
    assert response.status_code == 200
    assert response["Registry-version"] == "1" and response["Registry-epoch"] == "2"
    assert response["Content-Location"] == f"http://testserver{S1}/versions/1"
    got = su.get(S1 + "/versions/1")
    assert got.content == b"v1 edited" and got["Content-Type"] == "text/csv"
    assert latest(su) == "2"


def test_put_unknown_version_creates_it(su, s1):
    response = send(su, "PUT", S1 + "/versions/5.0", b"v5", TEXT)
    assert response.status_code == 201, response.content
    assert response["Location"] == f"http://testserver{S1}/versions/5.0"
    assert response["Registry-version"] == "5.0"
    assert set(versions(su)) == {"1", "5.0"}
    assert latest(su) == "5.0"


def test_put_version_header_must_match_url(su, s1):
    before = snapshot()
    assert_problem(send(su, "PUT", S1 + "/versions/1", b"x", TEXT, version="2"), 409)
    assert snapshot() == before


def test_put_version_epoch_mismatch(su, s1):
    before = snapshot()
    assert_problem(send(su, "PUT", S1 + "/versions/1?epoch=2", b"x", TEXT), 409, "epoch")
    assert snapshot() == before


def test_put_version_empty_header_removes_missing_keeps(su):
    make_group(su, "g1")
    post_schema(su, "g1", "s1", description="d", docs="https://example.com/doc")
    response = send(su, "PUT", S1 + "/versions/1", b"v1", TEXT, docs="")
    assert response.status_code == 200
    assert "Registry-docs" not in response
    assert response["Registry-description"] == "d"


# ---- DELETE versions -----------------------------------------------------------------------------------------


def test_delete_version_returns_last_state(su, s1):
    new_version(su, description="second")
    response = su.delete(S1 + "/versions/2")
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == "s1" and body["version"] == "2" and body["description"] == "second"


def test_delete_only_version_is_400(su, s1):
    before = snapshot()
    assert_problem(su.delete(S1 + "/versions/1"), 400)
    assert snapshot() == before


def test_delete_version_epoch_mismatch(su, s1):
    new_version(su)
    assert_problem(su.delete(S1 + "/versions/2?epoch=3"), 409)
    assert set(versions(su)) == {"1", "2"}


def test_delete_versions_without_body_keeps_latest(su, s1):
    new_version(su, version="9")
    new_version(su, version="10")
    response = su.delete(S1 + "/versions")
    assert response.status_code == 200
    assert set(response.json()) == {"1", "9"}
    assert set(versions(su)) == {"10"}
    assert latest(su) == "10"


def test_delete_versions_listed(su, s1):
    new_version(su)
    new_version(su)
    response = su.generic(
        "DELETE", S1 + "/versions", '[{"version": "1"}, {"id": "3", "epoch": 1}]', content_type="application/json"
    )
    assert response.status_code == 200, response.content
    assert set(response.json()) == {"1", "3"}
    assert set(versions(su)) == {"2"}
    assert latest(su) == "2"


def test_delete_versions_all_or_nothing(su, s1):
    new_version(su)
    new_version(su)
    before = snapshot()
    response = su.generic(
        "DELETE", S1 + "/versions", '[{"version": "1"}, {"version": "8"}]', content_type="application/json"
    )
    assert_problem(response, 404, "versions/8")
    response = su.generic(
        "DELETE", S1 + "/versions", '[{"version": "1"}, {"version": "2", "epoch": 5}]', content_type="application/json"
    )
    assert_problem(response, 409, "versions/2")
    response = su.generic(
        "DELETE",
        S1 + "/versions",
        '[{"version": "1"}, {"version": "2"}, {"version": "3"}]',
        content_type="application/json",
    )
    assert_problem(response, 400)
    response = su.generic("DELETE", S1 + "/versions", '[{"version": "1", "id": "2"}]', content_type="application/json")
    assert_problem(response, 400)
    assert snapshot() == before


# ---- JSON Schema format (needs catalog/validators) --------------------------------------------------------------


def post_json_schema(client, sid, doc, fmt="JsonSchema/draft-07", expect=201):
    return post_schema(client, "g1", sid, body=json.dumps(doc), content_type="application/json", fmt=fmt, expect=expect)


def test_json_schema_versions_compatible(su):
    make_group(su, "g1")
    post_json_schema(su, "js", JSON_SCHEMA_V1)
    response = new_version(su, "g1", "js", body=json.dumps(JSON_SCHEMA_V2), content_type="application/json")
    assert response["Registry-version"] == "2"
    assert response["Registry-format"] == "JsonSchema/draft-07"


def test_format_alias_stored_as_written(su):
    make_group(su, "g1")
    response = post_json_schema(su, "js", JSON_SCHEMA_V1, fmt="JSONSchema/draft-07")
    assert response["Registry-format"] == "JSONSchema/draft-07"
    bad = post_json_schema(su, "bad", {"type": 5}, fmt="JSONSchema/draft-07", expect=None)
    assert_problem(bad, 400)


def test_invalid_json_schema_is_400(su):
    make_group(su, "g1")
    before = snapshot()
    assert_problem(post_json_schema(su, "js", {"type": "objekt"}, expect=None), 400)
    assert snapshot() == before


def test_incompatible_json_schema_version_is_409(su):
    make_group(su, "g1")
    post_json_schema(su, "js", JSON_SCHEMA_V1)
    v2 = {
        **JSON_SCHEMA_V1,
        "required": ["id"],
        "additionalProperties": False,
        "properties": {"id": {"type": "integer"}},
    }
    before = snapshot()
    response = new_version(su, "g1", "js", body=json.dumps(v2), content_type="application/json", expect=None)
    assert_problem(response, 409)
    assert snapshot() == before


def test_a_schema_deleted_and_made_again_is_checked_against_its_own_versions(su):
    # made again under the same id, the schema is another row, whose versions alone the new one is checked against
    make_group(su, "g1")
    js = "/schemaGroups/g1/schemas/js"
    integer_id = {**JSON_SCHEMA_V1, "properties": {"id": {"type": "integer"}}}
    post_json_schema(su, "js", integer_id)
    new_version(su, "g1", "js", body=json.dumps({**integer_id, "title": "two"}), content_type="application/json")
    assert su.delete(js).status_code == 200
    post_json_schema(su, "js", JSON_SCHEMA_V1)
    before = snapshot()
    refused = new_version(su, "g1", "js", body=json.dumps(integer_id), content_type="application/json", expect=None)
    assert_problem(refused, 409)
    assert snapshot() == before
    response = new_version(su, "g1", "js", body=json.dumps(JSON_SCHEMA_V2), content_type="application/json")
    assert response["Registry-version"] == "2"
    assert list(versions(su, js)) == ["1", "2"]
    assert json.loads(su.get(js).content) == JSON_SCHEMA_V2
    assert (
        new_version(su, "g1", "js", body=json.dumps({**JSON_SCHEMA_V2, "title": "3"}), content_type="application/json")[
            "Registry-version"
        ]
        == "3"
    )


def test_compatibility_none_on_the_schema_relaxes_the_check(su):
    make_group(su, "g1")
    post_json_schema(su, "js", JSON_SCHEMA_V1)
    v2 = {**JSON_SCHEMA_V1, "properties": {"id": {"type": "integer"}}}
    response = new_version(su, "g1", "js", body=json.dumps(v2), content_type="application/json", compatibility="none")
    assert response["Registry-compatibility"] == "none"


def test_compatibility_none_on_the_group_relaxes_the_check(su):
    make_group(su, "g1", compatibility="none")
    post_json_schema(su, "js", JSON_SCHEMA_V1)
    v2 = {**JSON_SCHEMA_V1, "properties": {"id": {"type": "integer"}}}
    new_version(su, "g1", "js", body=json.dumps(v2), content_type="application/json")


def test_versions_of_a_schema_share_one_format(su):
    make_group(su, "g1")
    post_json_schema(su, "js", JSON_SCHEMA_V1)
    avro = {"type": "record", "name": "R", "fields": [{"name": "id", "type": "string"}]}
    before = snapshot()
    response = new_version(
        su, "g1", "js", body=json.dumps(avro), content_type="application/json", format="Avro/1.11.0", expect=None
    )
    assert_problem(response, 400, "format")
    assert snapshot() == before


def test_schema_compatibility_wins_over_the_group(su):
    make_group(su, "g1", compatibility="none")
    post_schema(
        su,
        "g1",
        "js",
        body=json.dumps(JSON_SCHEMA_V1),
        content_type="application/json",
        fmt="JsonSchema/draft-07",
        compatibility="backward",
    )
    v2 = {
        **JSON_SCHEMA_V1,
        "required": ["id"],
        "additionalProperties": False,
        "properties": {"id": {"type": "integer"}},
    }
    before = snapshot()
    response = new_version(su, "g1", "js", body=json.dumps(v2), content_type="application/json", expect=None)
    assert_problem(response, 409)
    assert snapshot() == before
