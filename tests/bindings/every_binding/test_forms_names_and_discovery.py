"""Smaller faults found against the real clients (issue 39 item 10): a document sent as a form is refused with a
hint in every binding, a 1.0 error names 1.0 attributes, and `/.well-known/xregistry` points at the 0.5 binding
where it is."""

import json

import httpx
import pytest

from tests.harness.gunicorn import start_gunicorn
from tests.helpers import snapshot

FORM = "application/x-www-form-urlencoded"  # what curl's -d sends without -H
SCHEMA = json.dumps({"type": "object", "properties": {"id": {"type": "string"}}})
FORMAT = "JsonSchema/draft-07"

# (binding, method, path, headers): a schema document written through each door that takes one
DOCUMENT_WRITES = [
    ("0.5", "PUT", "/schemaGroups/g1/schemas/s1", {"Registry-format": FORMAT}),
    ("0.5 new version", "POST", "/schemaGroups/g1/schemas/s0", {"Registry-format": FORMAT}),
    ("1.0", "PUT", "/registry/schemagroups/g1/schemas/s1", {"xRegistry-format": FORMAT}),
    ("1.0 new version", "POST", "/registry/schemagroups/g1/schemas/s0", {"xRegistry-format": FORMAT}),
    ("schema registry", "POST", f"/schemaregistry/schemagroups/g1/schemas/s1?format={FORMAT}", {}),
    ("message catalog", "POST", "/messagecatalog/mcg/messagedefinitions/d0", {}),
    ("confluent", "POST", "/confluent/subjects/s1/versions", {}),
]


@pytest.fixture
def stored(su):
    """A schema group holding `s0`, a message catalog group holding `d0`."""
    assert su.put("/schemaGroups/g1", {}, format="json").status_code in (200, 201)
    response = su.generic(
        "PUT", "/schemaGroups/g1/schemas/s0", SCHEMA, "application/json", headers={"Registry-format": FORMAT}
    )
    assert response.status_code == 201, response.content
    assert su.put("/messagecatalog/mcg", {"format": "CloudEvents/1.0"}, format="json").status_code in (200, 201)
    definition = {"id": "d0", "metadata": {"attributes": {"type": {"value": "x.one"}}}}
    assert su.post("/messagecatalog/mcg/messagedefinitions", definition, format="json").status_code == 201
    return su


@pytest.mark.parametrize("door", DOCUMENT_WRITES, ids=[d[0] for d in DOCUMENT_WRITES])
def test_a_document_sent_as_a_form_is_refused_with_a_hint_and_nothing_written(stored, door):
    _name, method, path, headers = door
    body = SCHEMA if "messagecatalog" not in path else json.dumps({"metadata": {}})
    if "confluent" in path:
        body = json.dumps({"schema": SCHEMA, "schemaType": "JSON"})
    before = snapshot()
    response = stored.generic(method, path, body, FORM, headers=headers)
    assert response.status_code == 415, (path, response.status_code, response.content[:500])
    text = json.dumps(response.json())
    assert "json" in text.lower(), text  # the hint: the media type to send
    assert snapshot() == before


def test_a_document_sent_without_a_media_type_stays_accepted_in_10(stored):
    """`xr` sends its bodies without a Content-Type: the 1.0 binding reads them as JSON."""
    response = stored.generic(
        "PUT", "/registry/schemagroups/g1/schemas/bare$details", json.dumps({"format": FORMAT, "schema": {}}), ""
    )
    assert response.status_code == 201, response.content[:500]


@pytest.mark.parametrize(
    ("path", "body", "named", "not_named"),
    [
        ("/registry/schemagroups/g2", {"labels": "team-a"}, "labels must be a map", "tags"),
        (
            "/registry/schemagroups/g1/schemas/s9$details",
            {"format": FORMAT, "schema": {}, "labels": {"team": 1}},
            "labels.team must be a string",
            "tags",
        ),
        ("/registry/schemagroups/g2", {"documentation": 5}, "documentation must be a string", "docs"),
        ("/registry/messagegroups/mg2", {"envelope": "CloudEvents/1.0", "labels": ["x"]}, "labels must be", "tags"),
    ],
)
def test_a_10_error_names_10_attributes(stored, path, body, named, not_named):
    before = snapshot()
    response = stored.generic("PUT", path, json.dumps(body), "application/json")
    assert response.status_code == 400, response.content[:500]
    problem = response.json()
    assert named in problem["detail"], problem
    assert not_named not in json.dumps(problem), problem
    assert snapshot() == before


def test_the_05_binding_still_names_its_own_attributes(stored):
    response = stored.generic("PUT", "/schemaGroups/g2", json.dumps({"tags": "team-a"}), "application/json")
    assert response.status_code == 400 and "tags must be a map" in response.json()["detail"]


def test_discovery_names_where_the_05_binding_is(client, db, settings):
    assert client.get("/.well-known/xregistry").json()["registries"][1]["url"] == "http://testserver/"
    settings.REGISTRY_CORE_PATH = "/v0.5/"  # what REGISTRY_ROOT_BINDING=xregistry-1.0 sets (config/settings.py)
    registries = client.get("/.well-known/xregistry").json()["registries"]
    assert registries[1] == {
        "url": "http://testserver/v0.5/",
        "specversion": "0.5-wip",
        "binding": "cloudevents-registry-0.5",
    }


@pytest.mark.slow
@pytest.mark.own_sqlite_server
def test_discovery_under_the_10_root_binding_points_at_both_bindings(tmp_path):
    process, base, _token = start_gunicorn(tmp_path, REGISTRY_ROOT_BINDING="xregistry-1.0")
    try:
        with httpx.Client(base_url=base, timeout=30) as http:
            found = {r["binding"]: r["url"] for r in http.get("/.well-known/xregistry").json()["registries"]}
            assert found == {"xregistry-1.0": f"{base}/", "cloudevents-registry-0.5": f"{base}/v0.5/"}
            assert http.get(found["xregistry-1.0"]).json()["specversion"] == "1.0-rc4"
            assert http.get(found["cloudevents-registry-0.5"]).json()["specVersion"] == "0.5-wip"
    finally:
        process.stop()
