"""Groups: /GROUPs and /GROUPs/gID (docs/api-contract.md sections 2 and 4)."""

import pytest

from registry.models import Group, Resource, Version
from tests.helpers import (
    CE_FORMAT,
    TIMESTAMP,
    assert_problem,
    make_definition_group,
    make_group,
    post_definition,
    post_schema,
    send_json,
    snapshot,
)

pytestmark = pytest.mark.django_db


# ---- ids ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["a b", "a/b", "", "caf\u00e9", "a?b", "a#b", "a:b", "a%zz"])
def test_forbidden_id_characters_are_400(su, bad):
    before = snapshot()
    assert_problem(send_json(su, "POST", "/schemaGroups", {"id": bad}), 400, "id")
    assert snapshot() == before


def test_id_of_128_characters_ok_129_refused(su):
    assert send_json(su, "POST", "/schemaGroups", {"id": "a" * 128}).status_code == 201
    assert_problem(send_json(su, "POST", "/schemaGroups", {"id": "b" * 129}), 400, "128")
    assert_problem(send_json(su, "PUT", "/schemaGroups/" + "c" * 129, {}), 400, "128")
    assert not Group.objects.filter(gid__startswith="b").exists()


def test_allowed_special_characters_in_ids(su):
    gid = "a-b._~!$&'()*+,;=@x%41"
    response = send_json(su, "POST", "/schemaGroups", {"id": gid})
    assert response.status_code == 201, response.content
    assert response.json()["id"] == gid


def test_ids_unique_irrespective_of_case_and_case_kept(su):
    body = make_group(su, "MyGroup")
    assert body["id"] == "MyGroup"
    assert set(su.get("/schemaGroups").json()) == {"MyGroup"}
    assert_problem(send_json(su, "POST", "/schemaGroups", {"id": "mygroup"}), 409, "mygroup")
    assert_problem(send_json(su, "PUT", "/schemaGroups/MYGROUP", {}), 409)
    assert_problem(send_json(su, "POST", "/schemaGroups", {"id": "MyGroup"}), 409)
    assert Group.objects.count() == 1
    # the same id in another group type is a different entity
    make_group(su, "MyGroup", "definitionGroups", format=CE_FORMAT)


def test_absent_id_is_server_generated(su):
    response = send_json(su, "POST", "/schemaGroups", {"description": "no id"})
    assert response.status_code == 201
    gid = response.json()["id"]
    assert gid
    assert response["Location"] == f"http://testserver/schemaGroups/{gid}"
    assert su.get(f"/schemaGroups/{gid}").json()["description"] == "no id"


# ---- attributes -----------------------------------------------------------------------------------------


def test_create_returns_201_location_and_common_attributes(su):
    response = send_json(
        su,
        "POST",
        "/schemaGroups",
        {"id": "g1", "description": "d", "tags": {"owner": "team-a"}, "docs": "https://example.com/g1"},
    )
    assert response.status_code == 201
    assert response["Location"] == "http://testserver/schemaGroups/g1"
    assert response["Content-Type"] == "application/json; charset=utf-8"
    body = response.json()
    assert body["id"] == "g1"
    assert body["name"] == "g1"  # name defaults to id
    assert body["description"] == "d"
    assert body["tags"] == {"owner": "team-a"}
    assert body["docs"] == "https://example.com/g1"
    assert body["epoch"] == 1
    assert body["self"] == "http://testserver/schemaGroups/g1"
    assert body["createdBy"] == "alice" and body["modifiedBy"] == "alice"
    assert TIMESTAMP.match(body["createdOn"]) and TIMESTAMP.match(body["modifiedOn"])
    assert body["schemasURL"] == "http://testserver/schemaGroups/g1/schemas"
    assert body["schemasCount"] == 0
    assert su.get("/schemaGroups/g1").json() == body


def test_attributes_without_value_are_omitted(su):
    body = make_group(su, "g1")
    for key in ("description", "tags", "docs"):
        assert key not in body
    for value in body.values():
        assert value is not None


def test_name_given_is_kept(su):
    assert make_group(su, "g1", name="Group One")["name"] == "Group One"


@pytest.mark.parametrize(
    "body,attribute",
    [
        ({"id": "g1", "name": 5}, "name"),
        ({"id": "g1", "description": ["x"]}, "description"),
        ({"id": "g1", "tags": []}, "tags"),
        ({"id": "g1", "tags": {"owner": 5}}, "tags.owner"),
        ({"id": "g1", "tags": {"bad key": "x"}}, "tags.bad key"),
        ({"id": "g1", "docs": 3}, "docs"),
        ({"id": 7}, "id"),
    ],
)
def test_wrong_types_are_400_naming_the_attribute(su, body, attribute):
    assert_problem(send_json(su, "POST", "/schemaGroups", body), 400, attribute)
    assert not Group.objects.exists()


def test_server_owned_attributes_are_ignored(su):
    response = send_json(
        su,
        "POST",
        "/schemaGroups",
        {
            "id": "g1",
            "self": "http://elsewhere/x",
            "epoch": 7,
            "schemasCount": 9,
            "schemasURL": "http://x",
            "createdBy": "mallory",
        },
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["self"] == "http://testserver/schemaGroups/g1"
    assert body["schemasCount"] == 0 and body["schemasURL"].startswith("http://testserver/")
    assert body["createdBy"] == "alice"
    assert body["epoch"] == 1


# ---- epochs -------------------------------------------------------------------------------------------


def test_epoch_grows_by_one_per_change(su):
    make_group(su, "g1")
    for expected in (2, 3, 4):
        response = send_json(su, "PUT", "/schemaGroups/g1", {"description": f"v{expected}"})
        assert response.status_code == 200
        assert response.json()["epoch"] == expected
    assert su.get("/schemaGroups/g1").json()["epoch"] == 4


def test_child_change_leaves_group_epoch(su):
    group = make_group(su, "g1")
    post_schema(su, "g1", "s1")
    from tests.helpers import new_version

    new_version(su, "g1", "s1")
    after = su.get("/schemaGroups/g1").json()
    assert after["epoch"] == group["epoch"] == 1
    assert after["modifiedOn"] == group["modifiedOn"]
    assert after["schemasCount"] == 1


def test_put_with_matching_epoch(su):
    make_group(su, "g1")
    assert send_json(su, "PUT", "/schemaGroups/g1?epoch=1", {"description": "x"}).json()["epoch"] == 2
    assert send_json(su, "PUT", "/schemaGroups/g1", {"description": "y", "epoch": 2}).json()["epoch"] == 3
    response = su.generic(
        "PUT", "/schemaGroups/g1", '{"description": "z"}', content_type="application/json", HTTP_REGISTRY_EPOCH="3"
    )
    assert response.status_code == 200 and response.json()["epoch"] == 4


@pytest.mark.parametrize("how", ["query", "body", "header"])
def test_epoch_mismatch_is_409_and_nothing_changes(su, how):
    make_group(su, "g1", description="orig")
    before = snapshot()
    if how == "query":
        response = send_json(su, "PUT", "/schemaGroups/g1?epoch=5", {"description": "changed"})
    elif how == "body":
        response = send_json(su, "PUT", "/schemaGroups/g1", {"description": "changed", "epoch": 5})
    else:
        response = su.generic(
            "PUT",
            "/schemaGroups/g1",
            '{"description": "changed"}',
            content_type="application/json",
            HTTP_REGISTRY_EPOCH="5",
        )
    assert_problem(response, 409, "epoch")
    assert snapshot() == before
    assert su.get("/schemaGroups/g1").json()["description"] == "orig"


def test_delete_with_wrong_epoch_is_409(su):
    make_group(su, "g1")
    assert_problem(su.delete("/schemaGroups/g1?epoch=2"), 409)
    assert Group.objects.filter(gid="g1").exists()
    assert su.delete("/schemaGroups/g1?epoch=1").status_code == 200


# ---- PUT --------------------------------------------------------------------------------------------------


def test_put_creates_with_201(su):
    response = send_json(su, "PUT", "/schemaGroups/newgroup", {"description": "made by PUT"})
    assert response.status_code == 201
    assert response["Location"] == "http://testserver/schemaGroups/newgroup"
    body = response.json()
    assert body["id"] == "newgroup" and body["epoch"] == 1 and body["description"] == "made by PUT"


def test_put_replaces_attributes(su):
    make_group(su, "g1", description="d", tags={"a": "b"}, docs="https://example.com", name="N")
    body = send_json(su, "PUT", "/schemaGroups/g1", {"description": "only this"}).json()
    assert body["description"] == "only this"
    assert "tags" not in body and "docs" not in body
    assert body["name"] == "g1"


def test_put_id_must_match_url(su):
    make_group(su, "g1")
    before = snapshot()
    assert_problem(send_json(su, "PUT", "/schemaGroups/g1", {"id": "other"}), 400, "id")
    assert snapshot() == before
    assert send_json(su, "PUT", "/schemaGroups/g1", {"id": "g1", "description": "ok"}).status_code == 200


def test_put_keeps_created_fields_and_updates_modified(su):
    created = make_group(su, "g1")
    body = send_json(su, "PUT", "/schemaGroups/g1", {"description": "x"}).json()
    assert body["createdOn"] == created["createdOn"]
    assert body["modifiedOn"] >= created["modifiedOn"]


# ---- GET /GROUPs ----------------------------------------------------------------------------------------


def test_list_is_a_map_with_counts_and_urls(su):
    make_group(su, "g2")
    make_group(su, "g1")
    post_schema(su, "g1", "s1")
    post_schema(su, "g1", "s2")
    body = su.get("/schemaGroups").json()
    assert list(body) == ["g1", "g2"]  # ordered by id
    assert body["g1"]["schemasCount"] == 2
    assert body["g1"]["schemasURL"] == "http://testserver/schemaGroups/g1/schemas"
    assert body["g2"]["schemasCount"] == 0
    assert "schemas" not in body["g1"]


def test_list_inline_adds_resources(su):
    make_group(su, "g1")
    post_schema(su, "g1", "s1")
    body = su.get("/schemaGroups?inline").json()
    assert set(body["g1"]["schemas"]) == {"s1"}
    assert set(body["g1"]["schemas"]["s1"]["versions"]) == {"1"}
    single = su.get("/schemaGroups/g1?inline").json()
    assert set(single["schemas"]) == {"s1"}


def test_unknown_group_is_404(anon):
    assert_problem(anon.get("/schemaGroups/nope"), 404, "/schemaGroups/nope")
    assert_problem(anon.get("/noSuchGroups"), 404)


# ---- DELETE --------------------------------------------------------------------------------------------


def test_delete_group_returns_last_state_and_removes_everything(su):
    make_group(su, "g1", description="bye")
    post_schema(su, "g1", "s1")
    response = su.delete("/schemaGroups/g1")
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == "g1" and body["description"] == "bye" and body["schemasCount"] == 1
    assert su.get("/schemaGroups/g1").status_code == 404
    assert not Resource.objects.exists() and not Version.objects.exists()


def test_bulk_delete_listed(su):
    for gid in ("a", "b", "c"):
        make_group(su, gid)
    response = su.generic(
        "DELETE", "/schemaGroups", '[{"id": "a"}, {"id": "b", "epoch": 1}]', content_type="application/json"
    )
    assert response.status_code == 200
    assert set(response.json()) == {"a", "b"}
    assert set(su.get("/schemaGroups").json()) == {"c"}


def test_bulk_delete_unknown_entry_is_404_and_deletes_nothing(su):
    for gid in ("a", "b"):
        make_group(su, gid)
    before = snapshot()
    response = su.generic("DELETE", "/schemaGroups", '[{"id": "a"}, {"id": "zzz"}]', content_type="application/json")
    assert_problem(response, 404, "zzz")
    assert snapshot() == before


def test_bulk_delete_epoch_mismatch_is_409_and_deletes_nothing(su):
    for gid in ("a", "b"):
        make_group(su, gid)
    before = snapshot()
    response = su.generic(
        "DELETE", "/schemaGroups", '[{"id": "a", "epoch": 1}, {"id": "b", "epoch": 9}]', content_type="application/json"
    )
    assert_problem(response, 409, "/schemaGroups/b")
    assert snapshot() == before


def test_bulk_delete_without_body_deletes_all_of_the_type(su):
    make_group(su, "a")
    make_group(su, "b")
    make_definition_group(su, "dg")
    response = su.delete("/schemaGroups")
    assert response.status_code == 200
    assert set(response.json()) == {"a", "b"}
    assert su.get("/schemaGroups").json() == {}
    assert set(su.get("/definitionGroups").json()) == {"dg"}


def test_bulk_delete_body_must_be_an_array(su):
    make_group(su, "a")
    assert_problem(su.generic("DELETE", "/schemaGroups", '{"id": "a"}', content_type="application/json"), 400)
    assert_problem(su.generic("DELETE", "/schemaGroups", '["a"]', content_type="application/json"), 400)
    assert Group.objects.count() == 1


# ---- extension attributes --------------------------------------------------------------------------------


def test_definition_group_format_is_required_and_checked(su):
    before = snapshot()
    assert_problem(send_json(su, "POST", "/definitionGroups", {"id": "dg", "format": "nope"}), 400, "format")
    assert snapshot() == before
    assert make_definition_group(su, "dg")["format"] == CE_FORMAT
    # REQUIRED through this binding, as the seed says (CONTRACT 18; a 1.0 message group may have no envelope:
    # tests/bindings/every_binding/test_definition_group_format.py)
    assert_problem(send_json(su, "POST", "/definitionGroups", {"id": "any"}), 400, "format")
    assert su.get("/definitionGroups/any").status_code == 404


def test_definition_group_format_cannot_change_with_definitions(su):
    make_definition_group(su, "dg")
    assert send_json(su, "PUT", "/definitionGroups/dg", {"format": "HTTP/1.1"}).status_code == 200
    assert send_json(su, "PUT", "/definitionGroups/dg", {"format": CE_FORMAT}).status_code == 200
    post_definition(su, "dg", "d1")
    before = snapshot()
    assert_problem(
        send_json(su, "PUT", "/definitionGroups/dg", {"format": "HTTP/1.1"}), 409, "format"
    )  # a conflict with the stored definitions
    assert snapshot() == before


def test_schema_group_compatibility_validated(su):
    before = snapshot()
    assert_problem(
        send_json(su, "POST", "/schemaGroups", {"id": "g", "compatibility": "sideways"}), 400, "compatibility"
    )
    assert snapshot() == before
    assert make_group(su, "g", compatibility="none")["compatibility"] == "none"


def test_endpoint_usage_required_and_valid(su):
    before = snapshot()
    assert_problem(send_json(su, "POST", "/endpoints", {"id": "e1"}), 400, "usage")
    assert_problem(send_json(su, "POST", "/endpoints", {"id": "e1", "usage": "bystander"}), 400, "usage")
    assert snapshot() == before
    body = make_group(
        su, "e1", "endpoints", usage="producer", config={"protocol": "HTTP", "endpoints": ["https://example.com/in"]}
    )
    assert body["usage"] == "producer"
    assert body["config"]["protocol"] == "HTTP"
    assert body["definitionsURL"] == "http://testserver/endpoints/e1/definitions"
    assert body["definitionsCount"] == 0


def test_endpoint_definition_group_references_must_resolve(su):
    before = snapshot()
    assert_problem(
        send_json(
            su,
            "POST",
            "/endpoints",
            {"id": "e1", "usage": "producer", "definitionGroups": ["#/definitionGroups/missing"]},
        ),
        400,
        "definitionGroups",
    )
    assert snapshot() == before
    make_definition_group(su, "dg")
    make_group(su, "e1", "endpoints", usage="producer", definitionGroups=["#/definitionGroups/dg"])


def test_null_attributes_are_omitted(su):
    body = make_group(su, "g1", description=None, docs=None)
    assert "description" not in body and "docs" not in body
    assert body["name"] == "g1"


def test_protocol_names_stored_as_written(su):
    body = make_group(
        su, "e1", "endpoints", usage="consumer", config={"protocol": "http", "endpoints": ["https://example.com/hook"]}
    )
    assert body["config"]["protocol"] == "http"


def test_schema_group_format_is_frozen_by_every_binding(su):
    """issue 12: the format rule lives in the schema group type's hook, so the core binding enforces it as the
    older Schema Registry binding does (it was 400 there and 200 here)"""
    make_group(su, "g", format="Avro/1.11")
    assert send_json(su, "PUT", "/schemaGroups/g", {"format": "Protobuf/3"}).status_code == 200  # empty group
    post_schema(su, "g", "s")
    before = snapshot()
    assert_problem(send_json(su, "PUT", "/schemaGroups/g", {"format": "Avro/1.11"}), 409, "format")
    assert_problem(send_json(su, "PUT", "/schemaregistry/schemagroups/g", {"format": "Avro/1.11"}), 409, "format")
    assert_problem(send_json(su, "PUT", "/schemaGroups/g", {"format": ""}), 400, "format")
    assert snapshot() == before
