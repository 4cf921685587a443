"""AsyncAPI 3.0 export: `GET /registry/messagegroups/G/asyncapi`, `/registry/endpoints/E/asyncapi` and
`/registry/asyncapi?messagegroup=...&endpoint=...`, JSON or YAML by `Accept`, valid against the official AsyncAPI
3.0.0 JSON Schema; and the round trip: what is exported and imported into an empty store is the same groups,
messages and schemas (each schema's default version: an AsyncAPI document carries one version of a schema)."""

import json

import pytest
import yaml

from asyncapi.validators.specs import schema_errors
from registry.models import Group
from tests.corpus import cases, documents

from .conftest import DOCUMENTS, REAL, document, get_json, post_asyncapi

RC4 = cases(lambda: documents("rc4", "*.xreg.json"))
CLOUDEVENTS = "cloudevents/light-switch-events-binary-kafka-local.yaml"
# what the server owns or computes: not part of what a round trip must reproduce
SERVER_OWNED = {
    "self",
    "shortself",
    "xid",
    "epoch",
    "createdat",
    "modifiedat",
    "metaurl",
    "meta",
    "versionsurl",
    "versionscount",
    "versions",
    "isdefault",
    "ancestorid",
    "defaultversionurl",
    "defaultversionid",
    "defaultversionsticky",
    "readonly",
    "contenttype",
}


def import_real(client, name: str):
    """Import one of the documents of tests/asyncapi/documents (the CloudEvents one with its trait file)."""
    if name == CLOUDEVENTS:
        folder = DOCUMENTS / "cloudevents"
        with (
            open(folder / "light-switch-events-binary-kafka-local.yaml", "rb") as doc,
            open(folder / "cloudevents-headers-kafka-binary.yaml", "rb") as trait,
        ):
            response = client.post("/registry/asyncapi", {"document": doc, "file": trait}, format="multipart")
    else:
        response = post_asyncapi(client, document(name))
    assert response.status_code == 200, response.content[:2000]


def stored(client) -> dict:
    """Message groups and schema groups of the store, as the 1.0 export shows them, less what the server owns."""

    def clean(value):
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k not in SERVER_OWNED and not k.endswith(("url", "count"))}
        return value

    export = get_json(client, "/registry/export")
    return {kind: clean(export.get(kind, {})) for kind in ("messagegroups", "schemagroups")}


def valid(document: dict) -> dict:
    errors = schema_errors(document, "3.0.0")
    assert errors == [], errors
    return document


def export_all(client, role="producer") -> dict:
    groups = get_json(client, "/registry/messagegroups")
    query = "&".join(f"messagegroup={gid}" for gid in groups)
    return valid(get_json(client, f"/registry/asyncapi?{query}&role={role}"))


def round_trip(client):
    before = stored(client)
    exported = export_all(client)
    for plural in ("endpoints", "definitionGroups", "schemaGroups"):  # an empty store (the cached export follows)
        response = client.delete(f"/{plural}?force=true")
        assert response.status_code == 200, response.content
    assert Group.objects.count() == 0
    assert stored(client) == {"messagegroups": {}, "schemagroups": {}}
    response = post_asyncapi(client, exported)
    assert response.status_code == 200, response.content[:3000]
    assert stored(client) == before
    again = post_asyncapi(client, exported)  # and the export imports again with no change
    assert again.json()["created"] == again.json()["updated"] == []


@pytest.mark.parametrize("name", [*REAL, CLOUDEVENTS])
def test_every_group_and_endpoint_exports_valid_asyncapi(su, name):
    import_real(su, name)
    for gid in get_json(su, "/registry/messagegroups"):
        for role in ("producer", "consumer"):
            doc = valid(get_json(su, f"/registry/messagegroups/{gid}/asyncapi?role={role}"))
            channel = next(c for c in doc["channels"].values() if c["x-xregistry-messagegroup"] == gid)
            assert {op["action"] for op in doc["operations"].values()} == {"send" if role == "producer" else "receive"}
            assert len(channel["messages"]) == len(get_json(su, f"/registry/messagegroups/{gid}/messages"))
    for eid in get_json(su, "/registry/endpoints"):
        doc = valid(get_json(su, f"/registry/endpoints/{eid}/asyncapi"))
        assert [s["x-xregistry-endpoint"] for s in doc.get("servers", {}).values()] in ([eid], [])


@pytest.mark.parametrize("name", [*REAL, CLOUDEVENTS])
def test_asyncapi_documents_round_trip(su, name):
    import_real(su, name)
    round_trip(su)


@pytest.mark.corpus
@pytest.mark.parametrize("path", RC4, ids=[p.name for p in RC4])
def test_registry_documents_export_and_round_trip(su, settings, path):
    """The nine xRegistry 1.0 documents of the corpus (Avro, Protobuf, JSON Schema, XSD; CloudEvents, Kafka,
    MQTT): their message groups exported as one AsyncAPI document, imported into an empty store, give the same
    groups, messages and schemas. mqtt-sparkplugB's Protobuf schema is kept elsewhere (a URI): it stays that URI.
    The rc4 documents make no compatibility statement, which in 1.0 means none (watchkam's version 2 breaks its
    version 1): imported under that policy, as tests/bindings/v10/test_corpus.py does."""
    settings.REGISTRY_DEFAULT_COMPATIBILITY = "none"
    response = su.post("/registry/", data=path.read_bytes(), content_type="application/json")
    assert response.status_code == 200, response.content[:2000]
    round_trip(su)


def test_streetlights_export_content(su):
    assert post_asyncapi(su, document("3.0-streetlights-mqtt.yml"), query="?prefix=s").status_code == 200
    doc = valid(get_json(su, "/registry/messagegroups/s.lightingMeasured/asyncapi?role=consumer"))
    assert doc["asyncapi"] == "3.0.0"
    assert doc["info"] == {
        "title": "s.lightingMeasured",
        "version": "1.0.0",
        "description": "The topic on which measured values may be produced and consumed.",
    }
    channel = doc["channels"]["slightingMeasured"]
    assert channel["address"] == "smartylighting/streetlights/1/0/event/{streetlightId}/lighting/measured"
    assert channel["servers"] == [{"$ref": "#/servers/sproductionconsumer"}]
    server = doc["servers"]["sproductionconsumer"]
    assert server["host"] == "test.mosquitto.org:1883" and server["protocol"] == "mqtt"
    assert doc["operations"]["LightMeasuredReceive"]["bindings"] == {"mqtt": {"qos": 1}}
    message = doc["components"]["messages"]["LightMeasured"]
    assert message["headers"]["properties"] == {"my-app-header": {"type": "integer"}}
    assert message["payload"]["schemaFormat"] == "application/schema+json;version=draft-07"
    assert message["payload"]["schema"] == {"$ref": "#/components/schemas/S.LightMeasuredPayload"}
    assert doc["components"]["schemas"]["S.LightMeasuredPayload"]["properties"]["lumens"]["minimum"] == 0


def test_yaml_by_accept(su):
    assert post_asyncapi(su, document("3.0-rpc-server.yml"), query="?prefix=r").status_code == 200
    as_json = get_json(su, "/registry/endpoints/r.production.consumer/asyncapi")
    response = su.get("/registry/endpoints/r.production.consumer/asyncapi", headers={"Accept": "application/yaml"})
    assert response.status_code == 200 and response["Content-Type"].startswith("application/yaml")
    assert yaml.safe_load(response.content) == as_json
    response = su.get(
        "/registry/endpoints/r.production.consumer/asyncapi", headers={"Accept": "application/vnd.aai.asyncapi+json"}
    )
    assert response["Content-Type"].startswith("application/vnd.aai.asyncapi+json")
    assert json.loads(response.content) == as_json


def test_cloudevents_messages_export_as_headers_and_trait(su):
    import_real(su, CLOUDEVENTS)
    doc = valid(
        get_json(
            su,
            "/registry/messagegroups/LightSwitchEventsWithCloudEventsAsHeadersBinaryMode.officeLightSwitchChanged/asyncapi",
        )
    )
    message = next(iter(doc["components"]["messages"].values()))
    assert message["traits"] == [{"$ref": "#/components/messageTraits/CloudEvents"}]
    headers = message["headers"]
    assert headers["properties"]["ce-specversion"] == {
        "type": "string",
        "const": "1.0",
        "description": "The version of the CloudEvents specification which the event uses.",
    }
    assert headers["properties"]["ce-time"]["format"] == "date-time"
    assert set(headers["required"]) == {"ce-id", "ce-source", "ce-specversion", "ce-type"}


@pytest.mark.parametrize(
    ("path", "status", "error"),
    [
        ("/registry/messagegroups/nope/asyncapi", 404, "not_found"),
        ("/registry/endpoints/nope/asyncapi", 404, "not_found"),
        ("/registry/asyncapi?messagegroup=nope", 404, "not_found"),
        ("/registry/asyncapi", 400, "bad_request"),
        ("/registry/asyncapi?messagegroup=g&role=admin", 400, "bad_flag"),
        ("/registry/messagegroups/g/asyncapi?inline=messages", 400, "bad_flag"),
    ],
)
def test_export_refusals(anon, path, status, error):
    response = anon.get(path)
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/problem+json")
    assert response.json()["type"].endswith(f"#{error}")
