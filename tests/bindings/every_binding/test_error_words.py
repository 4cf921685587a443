"""Each binding writes a problem in its own words (issue 23 item 12): the entity by its path in that binding, and
the attribute a validation error is about by that binding's name of it (a 1.0 message's `envelope`, not the 0.5
`format`), from structured problems (registry.domain.errors: subject, Finding), never by rewriting English text."""

import json

from tests.helpers import snapshot


def test_a_bad_envelope_is_reported_as_an_envelope_in_10_and_a_format_in_05(su):
    before = snapshot()
    v1 = su.put("/registry/messagegroups/g", {"envelope": "CloudEvents"}, format="json")
    assert v1.status_code == 400
    assert v1.json()["detail"] == "/messagegroups/g: envelope 'CloudEvents' must be NAME/VERSION (e.g. CloudEvents/1.0)"
    assert "format" not in json.dumps(v1.json()["errors"])
    v05 = su.put("/definitionGroups/g", {"format": "CloudEvents"}, format="json")
    assert (
        v05.json()["detail"] == "/definitionGroups/g: format 'CloudEvents' must be NAME/VERSION (e.g. CloudEvents/1.0)"
    )
    assert snapshot() == before


def test_a_messages_data_schema_errors_use_the_10_names(su):
    su.put("/registry/messagegroups/g", {}, format="json")
    before = snapshot()
    body = {"envelope": "CloudEvents/1.0", "envelopemetadata": {"type": {"value": "t"}}, "dataschemauri": "/x"}
    response = su.put("/registry/messagegroups/g/messages/m", body, format="json")
    assert response.status_code == 400
    assert "dataschemaformat is required with" in response.json()["detail"], response.json()
    assert "schemaformat is" not in response.json()["detail"].replace("dataschemaformat", "")
    assert snapshot() == before


def test_an_import_lists_each_error_at_its_path_in_the_binding_s_words(su):
    before = snapshot()
    doc = {"messagegroups": {"g": {"envelope": "CloudEvents", "messages": {"m": {"envelope": "x"}}}}}
    response = su.post("/registry/", doc, format="json")
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert {
        "path": "/messagegroups/g",
        "reason": "envelope 'CloudEvents' must be NAME/VERSION (e.g. CloudEvents/1.0)",
    } in errors
    assert all(e["path"].startswith("/messagegroups/") and not e["reason"].startswith("format") for e in errors)
    assert snapshot() == before
