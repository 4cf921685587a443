"""The same rule through the other doors (issue 27): the older Schema Registry binding, the Confluent API, document
imports through both bindings (an import touching a group the writer may not change is refused whole, naming it)
and AsyncAPI imports. The admin is in test_admin.py, Spark and sync in test_commands.py."""

import json

from registry.models import Group, Resource
from tests.asyncapi.conftest import document, post_asyncapi
from tests.helpers import snapshot

SCHEMA = '{"type": "record", "name": "r", "fields": []}'


def test_the_older_schema_registry_binding(teams):
    editor = teams["editor_a"]
    base = "/schemaregistry/schemagroups"
    doc, media = b'{"type": "object"}', "application/json"
    created = editor.generic("POST", f"{base}/A/schemas/s?format=JsonSchema/draft-07", doc, content_type=media)
    assert created.status_code == 201, created.content
    assert editor.delete(f"{base}/A/schemas/s").status_code == 200
    before = snapshot()
    refused = editor.generic("POST", f"{base}/B/schemas/s?format=JsonSchema/draft-07", doc, content_type=media)
    assert refused.status_code == 403, refused.content
    assert "the role editor in the group /schemaregistry/schemagroups/B" in refused.json()["detail"]
    assert editor.put(f"{base}/B", {"description": "x"}, format="json").status_code == 403
    assert snapshot() == before


def test_the_confluent_api(teams):
    editor = teams["editor_a"]
    registered = editor.post("/confluent/subjects/:.A:s/versions", {"schema": SCHEMA}, format="json")
    assert registered.status_code == 200, registered.content
    before = snapshot()
    refused = editor.post("/confluent/subjects/:.B:s/versions", {"schema": SCHEMA}, format="json")
    assert refused.status_code == 403, refused.content
    assert refused.json()["error_code"] == 40301 and "the role editor" in refused.json()["message"]
    # a context's compatibility is its group's own attribute: an owner's
    assert editor.put("/confluent/config/:.A:", {"compatibility": "NONE"}, format="json").status_code == 403
    assert snapshot() == before
    assert teams["owner_a"].put("/confluent/config/:.A:", {"compatibility": "NONE"}, format="json").status_code == 200
    assert editor.delete("/confluent/subjects/:.A:s").status_code == 200


def test_a_document_import_touching_another_team_s_group_is_refused_whole(teams):
    editor = teams["editor_a"]
    fmt = "JsonSchema/draft-07"
    schema = {"format": fmt, "versions": {"1": {"format": fmt, "schema": {"type": "object"}}}}
    ours = {
        "schemaGroups": {
            "A": {
                "owners": {"team-a": "owner", "team-a-dev": "editor", "team-audit": "reader"},
                "schemas": {"s": schema},
            }
        }
    }
    response = editor.post("/", ours, format="json")
    assert response.status_code == 200, response.content
    both = json.loads(json.dumps(ours))
    both["schemaGroups"]["A"]["schemas"]["t"] = schema
    both["schemaGroups"]["B"] = {"owners": {"team-b": "owner"}, "schemas": {"s": schema}}
    before = snapshot()
    for root, body in (("/", both), ("/registry/", _as_10(both))):
        response = editor.post(root, body, format="json")
        assert response.status_code == 403, response.content
        assert "schemagroups/b" in response.json()["detail"].lower(), response.json()
        assert snapshot() == before
    assert not Resource.objects.filter(rid="t").exists()


def _as_10(document: dict) -> dict:
    groups = {}
    for gid, group in document["schemaGroups"].items():
        schemas = {
            sid: {"versions": {vid: {"schema": v["schema"]} for vid, v in s["versions"].items()}}
            for sid, s in group["schemas"].items()
        }
        groups[gid] = {"owners": group["owners"], "schemas": schemas}
    return {"schemagroups": groups}


def test_an_asyncapi_import_into_another_team_s_groups_is_refused(teams, su):
    editor = teams["editor_a"]
    response = post_asyncapi(su, document("2.6-simple.yml"), query="?prefix=B&dryrun=true")
    assert response.status_code == 200, response.content
    for group in {p.split("/")[2] for p in json.dumps(response.json()).split('"') if p.startswith("/")}:
        su.put(f"/registry/messagegroups/{group}", {"owners": {"team-b": "owner"}}, format="json")
        su.put(f"/registry/schemagroups/{group}", {"owners": {"team-b": "owner"}}, format="json")
    assert Group.objects.filter(extensions__owners__has_key="team-b").count() >= 2
    before = snapshot()
    response = post_asyncapi(editor, document("2.6-simple.yml"), query="?prefix=B")
    assert response.status_code == 403, response.content
    assert snapshot() == before
    assert post_asyncapi(teams["owner_b"], document("2.6-simple.yml"), query="?prefix=B").status_code == 200
