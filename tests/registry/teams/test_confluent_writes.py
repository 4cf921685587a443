"""Every write of the Confluent API goes through the registry's rule (issue 37 item 4): a user with no role in a
context's group may neither set its or its subjects' mode nor soft-delete there (403 with Confluent's 40301, as a
config change already got, nothing written), and every accepted change (config, mode, soft and permanent deletes of
subjects and versions) writes an audit row naming the user and the door `confluent`."""

import pytest

from confluent.models import SubjectVersion
from registry.models import AuditRecord, Group, Resource
from tests.helpers import snapshot

V1 = '{"type": "record", "name": "r", "fields": [{"name": "a", "type": "string"}]}'
V2 = '{"type": "record", "name": "r", "fields": [{"name": "a", "type": "string"}, {"name": "b", "type": ["null", "int"], "default": null}]}'


def state():
    """What a refused write must leave as it was: the registry's entities (their settings among their attributes),
    the soft deletes and the audit trail."""
    return (
        snapshot(),
        sorted(SubjectVersion.objects.values_list("version_id", "deleted")),
        AuditRecord.objects.count(),
    )


def register(client, subject: str, schema: str = V1):
    response = client.post(f"/confluent/subjects/{subject}/versions", {"schema": schema}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def send(client, method: str, path: str, body: dict | None = None):
    return getattr(client, method)(f"/confluent{path}", body, format="json")


def refused_with_40301(response, role: str):
    assert response.status_code == 403, response.content
    body = response.json()
    assert body["error_code"] == 40301 and f"the role {role}" in body["message"], body


WRITES = [
    ("put", "/mode/:.A:", {"mode": "READONLY"}, "owner"),
    ("put", "/mode/:.A:s1", {"mode": "READONLY"}, "editor"),
    ("put", "/mode/:.A:s9", {"mode": "READONLY"}, "editor"),  # a subject without a schema: kept by the group
    ("delete", "/mode/:.A:s1", None, "editor"),
    ("put", "/config/:.A:", {"compatibility": "NONE"}, "owner"),
    ("put", "/config/:.A:s1", {"compatibility": "NONE"}, "editor"),
    ("delete", "/subjects/:.A:s1", None, "editor"),
    ("delete", "/subjects/:.A:s1/versions/1", None, "editor"),
    ("delete", "/subjects/:.A:s1/versions/latest", None, "editor"),
]


@pytest.mark.parametrize("who", ["outsider", "reader_a", "owner_b"])
def test_no_role_in_the_context_s_group_no_write(teams, su, who):
    """`outsider` holds every model permission and no team; `reader_a` reads A; `owner_b` owns B, not A."""
    register(teams["editor_a"], ":.A:s1")
    register(teams["editor_a"], ":.A:s1", V2)
    assert send(su, "put", "/mode/:.A:s1", {"mode": "READWRITE"}).status_code == 200  # something to delete
    before = state()
    for method, path, body, role in WRITES:
        refused_with_40301(send(teams[who], method, path, body), role)
        assert state() == before, (method, path)
    assert send(teams["editor_a"], "get", "/mode/:.A:").json()["error_code"] == 40409
    answer = register(teams["editor_a"], ":.A:s1", V1)  # still live and writable
    assert {key: answer[key] for key in ("id", "version")} == {"id": 1, "version": 1}


def test_the_global_settings_are_the_default_context_s_owners(teams, su, settings):
    """The global mode and level are the default context's group's: where it has owners, theirs."""
    settings.REGISTRY_CONFLUENT_GROUP = "A"
    before = state()
    refused_with_40301(send(teams["outsider"], "put", "/mode", {"mode": "READONLY"}), "owner")
    refused_with_40301(send(teams["editor_a"], "put", "/config", {"compatibility": "NONE"}), "owner")
    assert state() == before
    assert send(teams["owner_a"], "put", "/mode", {"mode": "READONLY"}).status_code == 200
    assert Group.objects.get(gid="A").extensions["confluentmode"] == "READONLY"


def _audit_since(first_id: int) -> list[tuple]:
    return list(
        AuditRecord.objects.filter(id__gt=first_id).order_by("id").values_list("actor", "door", "operation", "path")
    )


def test_every_accepted_change_is_audited(teams):
    owner_a, editor_a = teams["owner_a"], teams["editor_a"]
    register(editor_a, ":.A:s1")
    register(editor_a, ":.A:s1", V2)
    register(editor_a, ":.A:s2")
    schema = "/schemaGroups/A/schemas/s1"
    cases = [
        (owner_a, "put", "/config/:.A:", {"compatibility": "FULL"}, [("owner_a", "update", "/schemaGroups/A")]),
        (owner_a, "put", "/mode/:.A:", {"mode": "READONLY"}, [("owner_a", "update", "/schemaGroups/A")]),
        (owner_a, "delete", "/mode/:.A:", None, [("owner_a", "update", "/schemaGroups/A")]),
        (editor_a, "put", "/config/:.A:s1", {"compatibility": "NONE"}, [("editor_a", "update", schema)]),
        (editor_a, "put", "/mode/:.A:s1", {"mode": "READWRITE"}, [("editor_a", "update", schema)]),
        (editor_a, "delete", "/mode/:.A:s1", None, [("editor_a", "update", schema)]),
        (editor_a, "put", "/mode/:.A:s9", {"mode": "IMPORT"}, [("editor_a", "update", "/schemaGroups/A")]),
        (editor_a, "delete", "/subjects/:.A:s1/versions/1", None, [("editor_a", "update", f"{schema}/versions/1")]),
        (editor_a, "delete", "/subjects/:.A:s1/versions/1?permanent=true", None,
         [("editor_a", "delete", f"{schema}/versions/1")]),
        (editor_a, "delete", "/subjects/:.A:s1", None, [("editor_a", "update", f"{schema}/versions/2")]),
        (editor_a, "delete", "/subjects/:.A:s1?permanent=true", None, [("editor_a", "delete", schema)]),
    ]  # fmt: skip
    for client, method, path, body, expected in cases:
        last = AuditRecord.objects.order_by("-id").values_list("id", flat=True).first() or 0
        response = send(client, method, path, body)
        assert response.status_code == 200, (path, response.content)
        found = _audit_since(last)
        assert {(actor, operation, where) for actor, _door, operation, where in found} == set(expected), (path, found)
        assert {door for _actor, door, _operation, _where in found} == {"confluent"}, (path, found)
    assert not Resource.objects.filter(rid="s1").exists()
    assert Group.objects.get(gid="A").extensions["confluentpending"] == {"s9": {"confluentmode": "IMPORT"}}


def test_a_group_without_owners_needs_the_model_permissions(teams, su):
    """C has no owners: the model permissions decide (`outsider` holds them all, `reader_a` none)."""
    register(su, ":.C:s1")
    assert send(su, "put", "/mode/:.C:s1", {"mode": "READWRITE"}).status_code == 200  # something to delete
    before = state()
    for method, path, body, _role in WRITES:
        response = send(teams["reader_a"], method, path.replace(":.A:", ":.C:"), body)
        assert response.status_code == 403 and response.json()["error_code"] == 40301, (path, response.content)
        assert state() == before, path
    assert send(teams["outsider"], "put", "/mode/:.C:", {"mode": "READONLY"}).status_code == 200
    assert send(teams["outsider"], "delete", "/mode/:.C:").status_code == 200
    assert send(teams["outsider"], "delete", "/subjects/:.C:s1").json() == [1]
