"""Confluent's config and mode are attributes of the group or schema they describe (issue 37 item 5, CONTRACT.md
section 19): they go with the group (deleted and made again by another team, it has none of the old ones), every
binding shows them, exports carry them and an import restores them; a value no binding may store is refused
through each. The migration confluent 0003 moves the rows of the former table onto their entities."""

import json

import pytest

from registry.models import AuditRecord, Group, Resource
from tests.helpers import snapshot

from .conftest import CEREG_JSON, text

V1 = '{"type": "record", "name": "r", "fields": [{"name": "a", "type": "string"}]}'
V2_BREAKS = '{"type": "record", "name": "r", "fields": [{"name": "a", "type": "string"}, {"name": "b", "type": "int"}]}'


def put(client, path: str, body: dict, status: int = 200):
    response = client.put(f"/confluent{path}", body, format="json")
    assert response.status_code == status, response.content
    return response.json()


def get(client, path: str, **params):
    response = client.get(f"/confluent{path}", params)
    return response.status_code, response.json()


def register(client, subject: str, schema: str = V1):
    return client.post(f"/confluent/subjects/{subject}/versions", {"schema": schema}, format="json")


def test_a_group_made_again_by_another_team_has_none_of_the_old_settings(teams, su):
    """Team A's level NONE for a subject it has not registered yet, its context's READONLY and its subject's
    READONLY (set by a registry admin): team B's group of the same id, made after A's was deleted, has none of
    them."""
    owner_b = teams["owner_b"]
    assert register(su, ":.A:s2").status_code == 200
    put(su, "/config/:.A:s9", {"compatibility": "NONE"})  # s9 has no schema yet: kept by the group
    put(su, "/mode/:.A:s2", {"mode": "READONLY"})
    put(su, "/mode/:.A:", {"mode": "READONLY"})
    assert register(su, ":.A:s1").json()["error_code"] == 42205
    assert su.delete("/schemaGroups/A").status_code == 200
    assert su.put("/schemaGroups/A", {"owners": {"team-b": "owner"}}, format="json").status_code == 201

    assert get(owner_b, "/mode/:.A:")[1]["error_code"] == 40409  # no mode of its own
    assert get(owner_b, "/mode/:.A:s2")[1]["error_code"] == 40409
    assert get(owner_b, "/config/:.A:s9")[1]["error_code"] == 40408
    for subject in (":.A:s1", ":.A:s2", ":.A:s9"):
        assert register(owner_b, subject).status_code == 200, subject  # not READONLY
        before = snapshot()
        refused = register(owner_b, subject, V2_BREAKS)  # the default level, not NONE
        assert refused.status_code == 409 and refused.json()["error_code"] == 409, refused.content
        assert snapshot() == before


def _set_everything(teams):
    """Team A's settings on its context A, its subject s1 and its subject-to-be s7."""
    owner_a, editor_a = teams["owner_a"], teams["editor_a"]
    assert register(editor_a, ":.A:s1").status_code == 200
    put(owner_a, "/config/:.A:", {"compatibility": "FORWARD"})
    put(owner_a, "/mode/:.A:", {"mode": "READONLY"})
    put(editor_a, "/config/:.A:s1", {"compatibility": "NONE"})
    put(editor_a, "/mode/:.A:s1", {"mode": "READWRITE"})
    put(editor_a, "/config/:.A:s7", {"compatibility": "FULL"})
    put(editor_a, "/mode/:.A:s7", {"mode": "IMPORT"})


def _assert_confluent_answers(client):
    assert get(client, "/config/:.A:") == (200, {"compatibilityLevel": "FORWARD"})
    assert get(client, "/mode/:.A:") == (200, {"mode": "READONLY"})
    assert get(client, "/config/:.A:s1") == (200, {"compatibilityLevel": "NONE"})
    assert get(client, "/mode/:.A:s1") == (200, {"mode": "READWRITE"})
    assert get(client, "/config/:.A:s7") == (200, {"compatibilityLevel": "FULL"})
    assert get(client, "/mode/:.A:s7") == (200, {"mode": "IMPORT"})
    assert get(client, "/mode/:.A:s8", defaultToGlobal="true") == (200, {"mode": "READONLY"})  # the context's


PENDING = {"s7": {"compatibility": "full", "confluentmode": "IMPORT"}}


def test_the_settings_are_attributes_every_binding_shows(teams, su):
    _set_everything(teams)
    _assert_confluent_answers(teams["reader_a"])
    expected = ("forward", "READONLY", PENDING)
    group = su.get("/schemaGroups/A").json()  # 0.5
    assert (group["compatibility"], group["confluentmode"], group["confluentpending"]) == expected
    meta = su.get("/schemaGroups/A/schemas/s1?meta").json()
    assert (meta["compatibility"], meta["confluentmode"]) == ("none", "READWRITE")
    group = su.get("/registry/schemagroups/A").json()  # 1.0
    assert (group["compatibility"], group["confluentmode"], group["confluentpending"]) == expected
    meta = su.get("/registry/schemagroups/A/schemas/s1/meta").json()
    assert (meta["compatibility"], meta["confluentmode"]) == ("none", "READWRITE")
    # the resource's, not a version's
    assert "confluentmode" not in su.get("/registry/schemagroups/A/schemas/s1").json()
    model = su.get("/registry/model").json()["groups"]["schemagroups"]["resources"]["schemas"]["metaattributes"]
    assert model["confluentmode"]["enum"] == ["READWRITE", "READONLY", "IMPORT"]


@pytest.mark.parametrize("binding", ["0.5", "1.0"])
def test_exports_carry_the_settings_and_an_import_restores_them(teams, su, binding):
    _set_everything(teams)
    if binding == "0.5":
        exported = json.loads(text(su.get("/?inline", HTTP_ACCEPT=CEREG_JSON)))
        group = exported["schemaGroups"]["A"]
        assert group["schemas"]["s1"]["confluentmode"] == "READWRITE"
        root = "/"
    else:
        exported = json.loads(text(su.get("/registry/export")))
        group = exported["schemagroups"]["A"]
        assert group["schemas"]["s1"]["meta"]["confluentmode"] == "READWRITE"
        root = "/registry/"
    assert (group["confluentmode"], group["confluentpending"]) == ("READONLY", PENDING)
    # imported again as it is: nothing changes
    before, audits = snapshot(), AuditRecord.objects.count()
    assert su.post(root, exported, format="json").status_code == 200
    assert snapshot() == before and AuditRecord.objects.count() == audits
    # into a registry without the group: the same settings
    assert su.delete("/schemaGroups/A").status_code == 200
    response = su.post(root, exported, format="json")
    assert response.status_code == 200, response.content
    _assert_confluent_answers(teams["reader_a"])


def test_a_setting_no_binding_may_store_is_refused_through_each(teams, su):
    assert register(teams["editor_a"], ":.A:s1").status_code == 200
    before, audits = snapshot(), AuditRecord.objects.count()
    owners = Group.objects.get(gid="A").extensions["owners"]
    bad = [
        su.put("/schemaGroups/A", {"owners": owners, "confluentmode": "SOMETIMES"}, format="json"),
        su.put("/registry/schemagroups/A", {"confluentmode": "readonly"}, format="json"),
        su.patch("/registry/schemagroups/A/schemas/s1/meta", {"confluentmode": "SOMETIMES"}, format="json"),
        su.put("/schemaGroups/C", {"confluentpending": {"x": {"confluentmode": "NEVER"}}}, format="json"),
        su.put("/schemaGroups/C", {"confluentpending": {"x": {"colour": "red"}}}, format="json"),
    ]
    for response in bad:
        assert response.status_code == 400, response.content
        assert "confluent" in json.dumps(response.json()), response.json()
    assert snapshot() == before and AuditRecord.objects.count() == audits
    assert "confluentmode" not in Resource.objects.get(rid="s1").extensions
