"""A version that names no format has its schema's (issue 39 item 11): a document that names the format once, on the
schema, for all its versions (the demo's contoso-crm.cereg, any import_registry or spark_import input written that
way) is read with that format by every binding: the Confluent API counts its versions as the subject's, the message
checks validate data against it, a `$ref` to it resolves."""

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.helpers import snapshot

DEMO = Path(__file__).resolve().parents[3] / "catalog" / "demo" / "contoso-crm.cereg"
GROUP = "Contoso.CRM.Events"
SUBJECT = f":.{GROUP}:customerCreatedEventData"


def _schemas_name_their_format_once() -> dict:
    doc = json.loads(DEMO.read_text())
    schemas = doc["schemaGroups"][GROUP]["schemas"]
    assert all(s.get("format") and not any("format" in v for v in s["versions"].values()) for s in schemas.values())
    return schemas


@pytest.mark.parametrize("door", ["POST /", "import_registry"])
def test_the_confluent_api_sees_the_schemas_of_a_document_that_names_their_format_once(su, door):
    schemas = _schemas_name_their_format_once()
    if door == "POST /":
        assert su.post("/", data=DEMO.read_bytes(), content_type="application/json").status_code == 200
    else:
        call_command("import_registry", str(DEMO))
    subjects = su.get("/confluent/subjects").json()
    assert sorted(subjects) == sorted(f":.{GROUP}:{sid}" for sid in schemas)
    assert su.get(f"/confluent/subjects/{SUBJECT}/versions").json() == [1]
    latest = su.get(f"/confluent/subjects/{SUBJECT}/versions/latest").json()
    assert latest["schemaType"] == "JSON" and json.loads(latest["schema"])["type"] == "object"
    assert su.get(f"/confluent/schemas/ids/{latest['id']}").status_code == 200


def _document(definition: dict) -> dict:
    """A schema whose one version names no format (the schema does), and a definition whose data is that schema."""
    person = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
        "required": ["name"],
    }
    return {
        "specversion": "0.5-wip",
        "schemaGroups": {
            "g": {"schemas": {"person": {"format": "JsonSchema/draft-07", "versions": {"1": {"schema": person}}}}}
        },
        "definitionGroups": {
            "d": {"format": "CloudEvents/1.0", "definitions": {"created": {"format": "CloudEvents/1.0", **definition}}}
        },
    }


def _event(data: dict) -> dict:
    return {"specversion": "1.0", "type": "person.created", "id": "1", "source": "/people", "data": data}


def test_a_ref_of_the_message_checks_reads_a_version_with_its_schemas_format(su, anon):
    """A definition's JSON Schema `$ref`s a stored schema whose version names no format: it resolves (it is JSON
    Schema by its schema's format), and the data is checked against it."""
    definition = {
        "metadata": {"attributes": {"type": {"value": "person.created"}}},
        "schema": {"$ref": "/schemaGroups/g/schemas/person"},
        "schemaformat": "JsonSchema/draft-07",
    }
    assert su.post("/", data=json.dumps(_document(definition)), content_type="application/json").status_code == 200
    before = snapshot()
    path = "/definitionGroups/d/definitions/created/validate"
    good = anon.post(path, data=json.dumps(_event({"name": "Ada", "age": 36})), content_type="application/json")
    assert good.status_code == 200 and good.json()["valid"] is True, good.content
    bad = anon.post(path, data=json.dumps(_event({"name": "Ada", "age": "old"})), content_type="application/json")
    assert bad.status_code == 200, bad.content
    assert [e["path"] for e in bad.json()["errors"]] == ["data.age"], bad.json()
    assert snapshot() == before
