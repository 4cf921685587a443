"""Groups (docs/api-contract.md section 4): create, replace, delete, ids, epochs, bulk deletes, extension attributes."""

import re

import pytest

from registry.models import Group, OutboxEvent
from tests.helpers import snapshot

pytestmark = pytest.mark.django_db
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")


def test_create_with_location_and_defaults(su):
    response = su.post("/schemaGroups", {"id": "Orders", "tags": {"owner": "team-a"}}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert response["Location"] == "http://testserver/schemaGroups/Orders" == body["self"]
    assert body["name"] == "Orders"  # name defaults to id
    assert body["epoch"] == 1
    assert body["schemasURL"] == "http://testserver/schemaGroups/Orders/schemas" and body["schemasCount"] == 0
    assert TIMESTAMP.match(body["createdOn"]) and TIMESTAMP.match(body["modifiedOn"])
    assert body["createdBy"] == "alice" == body["modifiedBy"]


def test_server_generated_id(su):
    body = su.post("/schemaGroups", {"description": "no id"}, format="json").json()
    assert len(body["id"]) >= 8 and Group.objects.filter(gid=body["id"]).exists()


def test_ids_unique_irrespective_of_case_and_kept_as_given(su):
    assert su.post("/schemaGroups", {"id": "Foo"}, format="json").status_code == 201
    response = su.post("/schemaGroups", {"id": "foo"}, format="json")
    assert response.status_code == 409
    assert su.put("/schemaGroups/FOO", {}, format="json").status_code == 409
    assert list(Group.objects.values_list("gid", flat=True)) == ["Foo"]


@pytest.mark.parametrize("bad", ["a b", "a/b", "x" * 129, "", "a?b", "é"])
def test_forbidden_ids_are_400(su, bad):
    response = su.post("/schemaGroups", {"id": bad}, format="json")
    assert response.status_code == 400
    assert response.json()["type"].endswith(":invalid-id")
    assert Group.objects.count() == 0


def test_put_creates_then_replaces_and_bumps_epoch(su):
    response = su.put("/schemaGroups/g", {"description": "d", "tags": {"k": "v"}}, format="json")
    assert response.status_code == 201 and response["Location"].endswith("/schemaGroups/g")
    response = su.put("/schemaGroups/g", {"name": "renamed"}, format="json")
    body = response.json()
    assert response.status_code == 200 and body["epoch"] == 2
    assert body["name"] == "renamed" and "description" not in body and "tags" not in body  # missing removed
    assert body["createdOn"] <= body["modifiedOn"]


def test_put_id_mismatch_is_400(su):
    assert su.put("/schemaGroups/g", {"id": "other"}, format="json").status_code == 400
    assert not Group.objects.exists()


@pytest.mark.parametrize("how", ["query", "body", "header"])
def test_epoch_mismatch_is_409_and_changes_nothing(su, how):
    su.put("/schemaGroups/g", {"description": "v1"}, format="json")
    kwargs = {"format": "json"}
    url, body = "/schemaGroups/g", {"description": "v2"}
    if how == "query":
        url += "?epoch=7"
    elif how == "body":
        body["epoch"] = 7
    else:
        kwargs["HTTP_REGISTRY_EPOCH"] = "7"
    response = su.put(url, body, **kwargs)
    assert response.status_code == 409
    assert response.json()["type"].endswith(":epoch-mismatch")
    assert Group.objects.get(gid="g").description == "v1"
    assert su.put("/schemaGroups/g?epoch=1", {"description": "v2"}, format="json").status_code == 200


def test_child_change_leaves_parent_epoch(su):
    su.put("/schemaGroups/g", {}, format="json")
    su.generic(
        "POST", "/schemaGroups/g/schemas", b'{"type": "object"}', content_type="application/json", HTTP_REGISTRY_ID="s"
    )
    assert su.get("/schemaGroups/g").json()["epoch"] == 1


def test_delete_returns_last_state_and_removes_everything(su):
    su.put("/schemaGroups/g", {"description": "bye"}, format="json")
    su.generic("POST", "/schemaGroups/g/schemas", b"{}", content_type="application/json", HTTP_REGISTRY_ID="s")
    response = su.delete("/schemaGroups/g")
    assert response.status_code == 200 and response.json()["description"] == "bye"
    assert su.get("/schemaGroups/g").status_code == 404
    assert su.get("/schemaGroups/g/schemas/s").status_code == 404
    assert OutboxEvent.objects.filter(subject="/schemaGroups/g", type__endswith="deleted.v1").count() == 1
    assert not OutboxEvent.objects.filter(subject__startswith="/schemaGroups/g/", type__endswith="deleted.v1").exists()


def test_bulk_delete_all_or_nothing(su):
    for gid in ("a", "b", "c"):
        su.put(f"/schemaGroups/{gid}", {}, format="json")
    response = su.generic("DELETE", "/schemaGroups", '[{"id": "a"}, {"id": "nope"}]', content_type="application/json")
    assert response.status_code == 404 and "nope" in response.json()["detail"]
    response = su.generic(
        "DELETE", "/schemaGroups", '[{"id": "a"}, {"id": "b", "epoch": 5}]', content_type="application/json"
    )
    assert response.status_code == 409 and "/schemaGroups/b" in response.json()["detail"]
    assert Group.objects.count() == 3
    response = su.generic(
        "DELETE", "/schemaGroups", '[{"id": "a"}, {"id": "b", "epoch": 1}]', content_type="application/json"
    )
    assert response.status_code == 200 and set(response.json()) == {"a", "b"}
    assert su.delete("/schemaGroups").status_code == 200
    assert Group.objects.count() == 0


def test_definition_group_format_frozen(su):
    assert su.post("/definitionGroups", {"id": "d", "format": "CloudEvents/1.0"}, format="json").status_code == 201
    assert su.put("/definitionGroups/d", {"format": "MQTT/5.0"}, format="json").status_code == 200  # empty group
    su.generic(
        "POST",
        "/definitionGroups/d/definitions",
        '{"format": "MQTT/5.0", "metadata": {}}',
        content_type="application/json",
        HTTP_REGISTRY_ID="x",
    )
    before = snapshot()
    response = su.put("/definitionGroups/d", {"format": "CloudEvents/1.0"}, format="json")
    assert response.status_code == 409 and "cannot change" in response.json()["detail"]
    assert snapshot() == before


def test_endpoint_attributes_validated(su):
    su.post("/definitionGroups", {"id": "events", "format": "CloudEvents/1.0"}, format="json")
    good = {
        "usage": "producer",
        "config": {"protocol": "HTTP", "endpoints": ["https://example.com/in"]},
        "definitionGroups": ["#/definitionGroups/events"],
        "deprecated": {"effective": "2030-01-01T00:00:00Z", "removal": "2031-01-01T00:00:00Z"},
    }
    assert su.put("/endpoints/e1", good, format="json").status_code == 201
    bad = {
        **good,
        "usage": "eater",
        "config": {"protocol": "HTTP", "endpoints": ["ftp://x"]},
        "definitionGroups": ["#/definitionGroups/missing"],
    }
    before = snapshot()
    response = su.put("/endpoints/e2", bad, format="json")
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert "usage" in detail and "config.endpoints[0]" in detail and "missing" in detail
    assert snapshot() == before
