"""Issue 37 (the next instance of "one rule"): the 1.0 binding's message checks name the registry's entities in 1.0
words and quote what the user wrote as they wrote it. The verdict's texts used to be rewritten word by word
(`/definitions/` -> `/messages/`, `/schemaGroups/` -> `/schemagroups/`), which mangled a JSON Schema's own
`#/definitions/x` in an error and a `schemaurl` that is no registry path in a note."""

from __future__ import annotations

import json

from tests.helpers import definition, make_definition_group, make_group, post_definition, post_schema

CE = "application/cloudevents+json"
DOORS = (
    "/definitionGroups/dg/definitions/{did}/validate",
    "/definitionGroups/dg/validate",
    "/registry/messagegroups/dg/messages/{did}/validate",
    "/registry/messagegroups/dg/validate",
)


def verdicts(client, did: str, type_: str, data) -> list[dict]:
    message = json.dumps({"specversion": "1.0", "type": type_, "id": "1", "source": "/s", "data": data})
    out = []
    for door in DOORS:
        response = client.generic("POST", door.format(did=did), message, content_type=CE)
        assert response.status_code == 200, (door, response.content)
        out.append(response.json())
    return out


def test_a_json_schema_s_own_definitions_are_quoted_as_written(su, anon):
    make_definition_group(su, "dg")
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"id": {"type": "string"}},
        "type": "object",
        "properties": {"id": {"$ref": "#/definitions/id"}, "other": {"$ref": "#/definitions/missing"}},
    }
    post_definition(su, "dg", "d", definition("com.example.d", schemaformat="JsonSchema/draft-07", schema=schema))
    for verdict in verdicts(anon, "d", "com.example.d", {"id": 5, "other": 1}):
        assert verdict["valid"] is False, verdict
        reasons = " ".join(e["reason"] for e in verdict["errors"])
        assert "/definitions/missing" in reasons, verdict
        assert "/messages/" not in json.dumps(verdict["errors"]), verdict


def test_a_schemaurl_that_names_no_registry_entity_is_quoted_as_written(su, anon):
    """A note quotes the definition's `schemaurl` as the binding shows that attribute: a registry path in its names
    (1.0's `dataschemauri` is `/schemagroups/...`), anything else as it is."""
    make_definition_group(su, "dg")
    make_group(su, "g")
    post_schema(su, "g", "s", json.dumps({"type": "object"}).encode(), "application/json", fmt="JsonSchema/draft-07")
    post_definition(
        su, "dg", "odd", definition("com.example.odd", schemaformat="JsonSchema/draft-07", schemaurl="#/definitions/x")
    )
    post_definition(
        su,
        "dg",
        "gone",
        definition("com.example.gone", schemaformat="JsonSchema/draft-07", schemaurl="#/schemaGroups/g/schemas/s"),
    )
    assert su.delete("/schemaGroups/g/schemas/s?force=true").status_code in (200, 204)
    odd = verdicts(anon, "odd", "com.example.odd", {})
    assert [v["notes"] for v in odd] == [
        ["data not checked: schemaurl #/definitions/x names no schema of this registry"]
    ] * 4
    gone = verdicts(anon, "gone", "com.example.gone", {})
    in_05 = "data not checked: schema #/schemaGroups/g/schemas/s does not exist in this registry"
    in_10 = "data not checked: schema /schemagroups/g/schemas/s does not exist in this registry"
    assert [v["notes"] for v in gone] == [[in_05], [in_05], [in_10], [in_10]]
    # the 1.0 binding shows the attribute the note quotes in the same words
    shown = anon.get("/registry/messagegroups/dg/messages/gone").json()
    assert shown["dataschemauri"] == "/schemagroups/g/schemas/s", shown


def test_a_type_no_definition_declares_is_named_in_the_binding_s_words(anon, su):
    make_definition_group(su, "dg")
    message = json.dumps({"specversion": "1.0", "type": "com.example.none", "id": "1", "source": "/s"})
    old = anon.generic("POST", "/definitionGroups/dg/validate", message, content_type=CE)
    assert old.status_code == 404 and "/definitionGroups/dg" in old.json()["detail"], old.content
    new = anon.generic("POST", "/registry/messagegroups/dg/validate", message, content_type=CE)
    assert new.status_code == 404, new.content
    assert "/messagegroups/dg" in new.json()["detail"] and "definitionGroups" not in new.content.decode(), new.content
