"""Issue 24 item 9: whatever the store holds, its exports import again.

- One nesting limit for every door (registry.domain.limits): an entity's JSON nests at most MAX_DEPTH levels, whether
  it comes through the 0.5 or the 1.0 binding or a document; the exports put at most ENVELOPE_DEPTH levels around
  it and every importer accepts that much. Before, a schema nested 201 levels or a group attribute nested 70
  made `GET /?inline` -> `POST /` fail ("nested deeper than 64 levels"), and PUT accepted a group attribute
  nested 500 levels.
- Dangling references (left by a documented `?force=true` delete) are kept by the store and still edited; an
  import refuses them, naming each (CONTRACT 18, issue 39 item 3), and a forced import (`?force=true`, `--force`)
  accepts them and lists them as warnings of its report (a backup of such a store restores).
"""

import json

import pytest
from django.core.management import CommandError, call_command

from registry.domain.limits import MAX_DEPTH, MAX_DOCUMENT_DEPTH
from tests.helpers import (
    assert_problem,
    definition,
    make_definition_group,
    make_group,
    post_definition,
    send,
    send_json,
    snapshot,
)

pytestmark = pytest.mark.django_db

REGISTRY_JSON = "application/cloudevents-registry+json"
REGISTRY_YAML = "application/cloudevents-registry+yaml"


def nested(levels: int):
    """A JSON value nesting exactly `levels` objects: nested(1) == {"a": 1}."""
    value = 1
    for _ in range(levels):
        value = {"a": value}
    return value


def depth(value) -> int:
    return (
        1 + max((depth(v) for v in (value.values() if isinstance(value, dict) else value)), default=0)
        if isinstance(value, dict | list)
        else 0
    )


def deep_schema(levels: int) -> dict:
    """A valid draft-07 JSON Schema nesting exactly `levels` levels."""
    schema = {"type": "string"}
    for _ in range((levels - 3) // 2):
        schema = {"type": "object", "properties": {"a": schema}}
    if (levels - 3) % 2:
        schema = {"not": schema}
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"x": schema}}
    assert depth(schema) == levels, depth(schema)
    return schema


def export_and_import(client, kind: str, query: str = ""):
    """(export bytes, the answer of importing them) through one door; `query`: the import's (`?force=true`)."""
    if kind == "1.0":
        exported = client.get("/registry/export")
        assert exported.status_code == 200, exported.content
        body = b"".join(exported.streaming_content) if exported.streaming else exported.content
        return body, client.generic("POST", f"/registry/{query}", body, content_type="application/json")
    accept = REGISTRY_YAML if kind == "yaml" else REGISTRY_JSON
    exported = client.get("/?inline", HTTP_ACCEPT=accept)
    assert exported.status_code == 200, exported.content
    body = b"".join(exported.streaming_content) if exported.streaming else exported.content
    media = REGISTRY_YAML if kind == "yaml" else REGISTRY_JSON
    return body, client.generic("POST", f"/{query}", body, content_type=media)


def wipe(client):
    for plural in ("endpoints", "definitionGroups", "schemaGroups"):
        assert client.delete(f"/{plural}?force=true").status_code in (200, 204)
    assert client.get("/schemaGroups").json() == {}


def deep_registry(su):
    """A schema, a definition, a group attribute and a 1.0 version label, each exactly at the limit."""
    make_group(su, "g1", deep=nested(MAX_DEPTH - 1))  # the group's attributes object is one level
    response = send(
        su,
        "POST",
        "/schemaGroups/g1/schemas",
        deep_schema(MAX_DEPTH),
        "application/json",
        id="s",
        format="JsonSchema/draft-07",
    )
    assert response.status_code == 201, response.content
    make_definition_group(su)
    post_definition(su, doc=definition(deep=nested(MAX_DEPTH - 1)))


@pytest.mark.parametrize("kind", ["0.5", "yaml", "1.0"])
def test_entities_at_the_nesting_limit_export_and_import_again(su, kind):
    deep_registry(su)
    schema_before = su.get("/schemaGroups/g1/schemas/s").content
    group_before = su.get("/schemaGroups/g1").json()["deep"]
    definition_before = su.get("/definitionGroups/dg1/definitions/d1").json()["deep"]
    # into the same registry: nothing changes
    body, again = export_and_import(su, kind)
    assert again.status_code == 200, again.content[:600]
    if kind != "1.0":
        assert again.json()["created"] == [] and again.json()["warnings"] == []
    # into an empty registry (a restore): everything comes back as it was
    wipe(su)
    restored = (
        su.generic("POST", "/registry/", body, content_type="application/json")
        if kind == "1.0"
        else su.generic("POST", "/", body, content_type=REGISTRY_YAML if kind == "yaml" else REGISTRY_JSON)
    )
    assert restored.status_code == 200, restored.content[:600]
    assert su.get("/schemaGroups/g1/schemas/s").content == schema_before
    assert su.get("/schemaGroups/g1").json()["deep"] == group_before
    assert su.get("/definitionGroups/dg1/definitions/d1").json()["deep"] == definition_before


def test_export_registry_command_output_imports_again(su, tmp_path):
    deep_registry(su)
    path = tmp_path / "registry.cereg"
    call_command("export_registry", "--output", str(path))
    wipe(su)
    call_command("import_registry", str(path))
    assert depth(su.get("/schemaGroups/g1/schemas/s").json()) == MAX_DEPTH


@pytest.mark.parametrize(
    "door, levels",
    [
        ("0.5 group", MAX_DEPTH + 1),
        ("0.5 group", 500),
        ("0.5 group", 50_000),
        ("1.0 group", MAX_DEPTH + 1),
        ("1.0 group", 500),
        ("1.0 group", 50_000),
        ("0.5 schema", MAX_DEPTH + 1),
        ("0.5 definition", MAX_DEPTH + 1),
        ("0.5 document", MAX_DEPTH + 1),
        ("0.5 document", MAX_DOCUMENT_DEPTH + 1),
        ("1.0 document", MAX_DEPTH + 1),
        ("1.0 document", MAX_DOCUMENT_DEPTH + 1),
    ],
)
def test_deeper_than_the_limit_is_refused_at_every_door(su, door, levels):
    make_group(su, "g1")
    make_definition_group(su)
    before = snapshot()
    attrs = {"deep": nested(min(levels, 1000) - 1)}  # an attributes object `levels` deep
    text = '{"deep": ' + '{"a": ' * (levels - 1) + "1" + "}" * levels  # the same as text (any depth)
    if door == "0.5 group":
        response = su.generic("PUT", "/schemaGroups/g1", text, content_type="application/json")
    elif door == "1.0 group":
        response = su.generic("PUT", "/registry/schemagroups/g1", text, content_type="application/json")
    elif door == "0.5 schema":
        response = send(
            su, "POST", "/schemaGroups/g1/schemas", nested(levels), "application/json", id="s", format="Custom/1"
        )
    elif door == "0.5 definition":
        response = post_definition(su, doc=definition(deep=nested(levels - 1)), expect=None)
    elif door == "0.5 document":
        doc = {"specversion": "0.5-wip", "schemaGroups": {"g2": attrs}}
        response = su.generic("POST", "/", json.dumps(doc), content_type=REGISTRY_JSON)
    else:
        doc = {"specversion": "1.0-rc4", "schemagroups": {"g2": attrs}}
        response = su.generic("POST", "/registry/", json.dumps(doc), content_type="application/json")
    assert response.status_code == 400, (response.status_code, response.content[:400])
    text = response.content.decode()
    assert f"nested deeper than {MAX_DEPTH} levels" in text or f"nested deeper than {MAX_DOCUMENT_DEPTH} levels" in text
    assert snapshot() == before
    assert "deep" not in su.get("/schemaGroups/g1").json()


def test_a_yaml_document_deeper_than_the_limit_is_refused(su):
    make_group(su, "g1")
    before = snapshot()
    text = "schemaGroups:\n  g2:\n    deep: " + "[" * (MAX_DOCUMENT_DEPTH + 1) + "]" * (MAX_DOCUMENT_DEPTH + 1) + "\n"
    response = su.generic("POST", "/", text, content_type=REGISTRY_YAML)
    assert_problem(response, 400, f"nested deeper than {MAX_DOCUMENT_DEPTH} levels")
    assert snapshot() == before


# dangling references ----------------------------------------------------------------------------------------


def dangling_registry(su):
    """A definition (schemaurl), a borrowed definition (uri) and an endpoint (definitionGroups) whose targets are
    deleted with ?force=true, as the README documents."""
    make_group(su, "g1")
    send(
        su,
        "POST",
        "/schemaGroups/g1/schemas",
        {"type": "object"},
        "application/json",
        id="s",
        format="JsonSchema/draft-07",
    )
    make_definition_group(su, "dg1")
    post_definition(
        su, "dg1", "d1", doc=definition(schemaformat="JsonSchema/draft-07", schemaurl="#/schemaGroups/g1/schemas/s")
    )
    make_definition_group(su, "lender")
    post_definition(su, "lender", "lent")
    make_definition_group(su, "dg2")
    post_definition(su, "dg2", "borrowed", doc={"uri": "#/definitionGroups/lender/definitions/lent"})
    make_definition_group(su, "other")
    response = send_json(
        su,
        "PUT",
        "/endpoints/e1",
        {
            "usage": "producer",
            "config": {"protocol": "HTTP", "endpoints": ["https://x.example.com/in"]},
            "definitionGroups": ["#/definitionGroups/other"],
        },
    )
    assert response.status_code == 201, response.content
    for path in ("/schemaGroups/g1", "/definitionGroups/lender", "/definitionGroups/other"):
        assert su.delete(f"{path}?force=true").status_code in (200, 204), path


DANGLING = {
    "/definitionGroups/dg1/definitions/d1/schemaurl",
    "/definitionGroups/dg2/definitions/borrowed/uri",
    "/endpoints/e1/definitionGroups/0",
}


def test_the_store_keeps_and_edits_entities_holding_dangling_references(su):
    dangling_registry(su)
    response = send_json(
        su,
        "PUT",
        "/endpoints/e1",
        {
            "usage": "producer",
            "description": "edited",
            "config": {"protocol": "HTTP", "endpoints": ["https://x.example.com/in"]},
            "definitionGroups": ["#/definitionGroups/other"],
        },
    )
    assert response.status_code == 200, response.content
    # a new reference to nothing is still refused
    response = send_json(
        su,
        "PUT",
        "/endpoints/e1",
        {
            "usage": "producer",
            "config": {"protocol": "HTTP", "endpoints": ["https://x.example.com/in"]},
            "definitionGroups": ["#/definitionGroups/other", "#/definitionGroups/nope"],
        },
    )
    assert_problem(response, 400, "#/definitionGroups/nope does not resolve")
    assert su.get("/endpoints/e1").json()["description"] == "edited"


@pytest.mark.parametrize("kind", ["0.5", "yaml", "1.0"])
def test_exports_holding_dangling_references_are_refused_unless_forced(su, kind):
    dangling_registry(su)
    before = snapshot()
    body, refused = export_and_import(su, kind)
    assert refused.status_code == 400, refused.content[:600]
    assert snapshot() == before
    if kind != "1.0":
        errors = refused.json()["errors"]
        assert DANGLING <= {e["path"] for e in errors}, errors
        assert all("does not resolve" in e["reason"] for e in errors), errors
        assert "force=true" in refused.json()["detail"]
    else:
        assert "does not resolve" in refused.content.decode()
    _body, again = export_and_import(su, kind, "?force=true")
    assert again.status_code == 200, again.content[:600]
    if kind != "1.0":
        warned = {w["path"] for w in again.json()["warnings"]}
        assert DANGLING <= warned, again.json()["warnings"]
        assert all("does not resolve" in w["reason"] for w in again.json()["warnings"])
    wipe(su)
    before = snapshot()
    path, media = (
        ("/registry/", "application/json")
        if kind == "1.0"
        else ("/", REGISTRY_YAML if kind == "yaml" else REGISTRY_JSON)
    )
    assert su.generic("POST", path, body, content_type=media).status_code == 400
    assert snapshot() == before
    restored = su.generic("POST", f"{path}?force=true", body, content_type=media)
    assert restored.status_code == 200, restored.content[:600]
    assert su.get("/endpoints/e1").json()["definitionGroups"] == ["#/definitionGroups/other"]
    assert su.get("/definitionGroups/dg1/definitions/d1").json()["schemaurl"] == "#/schemaGroups/g1/schemas/s"


def test_import_registry_refuses_then_prints_the_warnings_when_forced(su, tmp_path, capsys):
    dangling_registry(su)
    path = tmp_path / "registry.cereg"
    call_command("export_registry", "--output", str(path))
    wipe(su)
    before = snapshot()
    with pytest.raises(CommandError):
        call_command("import_registry", str(path))
    err = capsys.readouterr().err
    assert "/endpoints/e1/definitionGroups/0: reference '#/definitionGroups/other' does not resolve" in err
    assert "warning" not in err
    assert snapshot() == before
    call_command("import_registry", "--force", str(path))
    err = capsys.readouterr().err
    assert "warning: /endpoints/e1/definitionGroups/0: reference '#/definitionGroups/other' does not resolve" in err
    assert su.get("/endpoints/e1").status_code == 200


def test_an_invalid_document_with_dangling_references_lists_every_error(su):
    before = snapshot()
    doc = {
        "specversion": "0.5-wip",
        "definitionGroups": {
            "dg": {"format": "CloudEvents/1.0", "definitions": {"d": {"uri": "#/definitionGroups/x/definitions/y"}}}
        },
        "schemaGroups": {"bad id!": {}},
    }
    response = su.generic("POST", "/", json.dumps(doc), content_type=REGISTRY_JSON)
    body = assert_problem(response, 400, "bad id!")
    assert [e["path"] for e in body["errors"] if "does not resolve" in e["reason"]] == [
        "/definitionGroups/dg/definitions/d/uri"
    ], body["errors"]
    forced = su.generic("POST", "/?force=true", json.dumps(doc), content_type=REGISTRY_JSON)
    body = assert_problem(forced, 400, "bad id!")  # forced: the references are no errors, the rest still is
    assert all("does not resolve" not in e["reason"] for e in body["errors"]), body["errors"]
    assert snapshot() == before


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_spark_import_keeps_the_same_limit(tmp_path, capsys):
    """the bulk import is a door too: a line nested past the limit is rejected by itself, with the same reason,
    the line at the limit is imported (a line nested 50,000 levels used to stop the Spark task)"""
    from tests.pipeline.test_spark_import import spark_import

    source = tmp_path / "in.jsonl"
    lines = [
        json.dumps({"path": "/schemaGroups/at.limit", "deep": nested(MAX_DEPTH - 1)}),
        json.dumps({"path": "/schemaGroups/too.deep", "deep": nested(MAX_DEPTH)}),
        '{"path": "/schemaGroups/far.too.deep", "deep": ' + "[" * 50_000 + "]" * 50_000 + "}",
    ]
    source.write_text("\n".join(lines) + "\n")
    report = tmp_path / "report.json"
    code, out = spark_import(capsys, str(source), "--report", str(report))
    assert code == 3, out
    rejected = {
        r["path"] if r["path"].startswith("/schemaGroups") else "line": r["reason"]
        for r in json.loads(report.read_text())["rejected"]
    }
    assert f"nested deeper than {MAX_DEPTH} levels" in rejected["/schemaGroups/too.deep"], rejected
    assert len(rejected) == 2, rejected
    assert any(f"nested deeper than {MAX_DOCUMENT_DEPTH} levels" in reason for reason in rejected.values()), rejected
    assert depth(su_get_group("at.limit")["deep"]) == MAX_DEPTH - 1


def su_get_group(gid):
    from registry.models import Group

    return Group.objects.get(group_type="schemaGroups", gid=gid).extensions
