"""The Schema Registry API and the Message Catalog API over the same store as the core binding."""
import json

import pytest

from registry.models import OutboxEvent

pytestmark = pytest.mark.django_db
AVRO = json.dumps({"type": "record", "name": "Order", "fields": [{"name": "id", "type": "string"}]})
AVRO_V2 = json.dumps({"type": "record", "name": "Order", "fields": [{"name": "id", "type": "string"},
                                                                    {"name": "n", "type": "int", "default": 0}]})
SR = "/schemaregistry/schemagroups"


def test_schema_registry_operations(editor_client, api_client):
    response = editor_client.put(f"{SR}/orders", {"format": "Avro/1.11", "description": "orders"}, format="json")
    assert response.status_code == 201
    group = response.json()
    assert group["id"] == "orders" and group["format"] == "Avro/1.11" and group["createdtimeutc"].endswith("Z")
    assert editor_client.put(f"{SR}/orders", {"format": "Avro/1.11", "description": "v2"}, format="json").status_code == 200
    assert api_client.get(SR).json() == ["orders"]
    assert api_client.get(f"{SR}/orders").json()["description"] == "v2"

    response = editor_client.generic("POST", f"{SR}/orders/schemas/Order?format=Avro/1.11&description=first", AVRO,
                                     content_type="application/vnd.apache.avro+json")
    assert response.status_code == 201, response.content
    assert response["version"] == "1" and response["Location"].endswith("/schemas/Order/versions/1")
    response = editor_client.generic("POST", f"{SR}/orders/schemas/Order", AVRO_V2,
                                     content_type="application/vnd.apache.avro+json", HTTP_DESCRIPTION="second")
    assert response.status_code == 201 and response["version"] == "2"

    latest = api_client.get(f"{SR}/orders/schemas/Order")
    assert latest.content == AVRO_V2.encode()
    assert latest["Content-Type"] == "application/vnd.apache.avro+json"
    assert latest["description"] == "second" and latest["format"] == "Avro/1.11"
    head = api_client.head(f"{SR}/orders/schemas/Order")
    assert head.content == b"" and head["version"] == "2" and head["Content-Length"] == str(len(AVRO_V2))
    assert api_client.get(f"{SR}/orders/schemas").json() == ["Order"]
    assert api_client.get(f"{SR}/orders/schemas/Order/versions").json() == [1, 2]
    first = api_client.get(f"{SR}/orders/schemas/Order/versions/1")
    assert first.content == AVRO.encode() and first["description"] == "first"

    uri = first["id"]
    assert uri == "http://testserver/schemaregistry/schemagroups/orders/schemas/Order/versions/1"
    assert api_client.get(f"/schemaregistry/schema?uri={uri}").content == AVRO.encode()
    assert api_client.get("/schemaregistry/schema?uri=http://nowhere/x").status_code == 404

    incompatible = json.dumps({"type": "record", "name": "Order", "fields": [{"name": "id", "type": "int"}]})
    response = editor_client.generic("POST", f"{SR}/orders/schemas/Order", incompatible, content_type="application/json")
    assert response.status_code == 409

    assert editor_client.delete(f"{SR}/orders/schemas/Order/versions/1").status_code == 200
    assert api_client.get(f"{SR}/orders/schemas/Order/versions").json() == [2]
    assert editor_client.delete(f"{SR}/orders/schemas/Order").status_code == 200
    assert api_client.get(f"{SR}/orders/schemas/Order").status_code == 404
    assert editor_client.delete(f"{SR}/orders").status_code == 200
    assert api_client.get(SR).json() == []


def test_authority_and_uri_lookup(editor_client, api_client):
    editor_client.put(f"{SR}/g", {}, format="json")
    editor_client.generic("POST", f"{SR}/g/schemas/s?format=Avro/1.11&authority=https://schemas.example.com",
                          AVRO, content_type="application/json")
    response = api_client.get(f"{SR}/g/schemas/s")
    assert response["authority"] == "https://schemas.example.com"
    assert response["id"] == "https://schemas.example.com/g/schemas/s/versions/1"
    assert api_client.get(f"/schemaregistry/schema?uri={response['id']}").content == AVRO.encode()


def test_one_store_three_views(editor_client, api_client):
    editor_client.put(f"{SR}/shared", {}, format="json")
    editor_client.generic("POST", f"{SR}/shared/schemas/S?format=Avro/1.11", AVRO, content_type="application/json")
    core = api_client.get("/schemaGroups/shared/schemas/S")
    assert core.content == AVRO.encode() and core["Registry-format"] == "Avro/1.11"
    editor_client.generic("POST", "/schemaGroups/shared/schemas/S", AVRO_V2, content_type="text/plain")
    old = api_client.get(f"{SR}/shared/schemas/S")
    assert old.content == AVRO_V2.encode() and old["Content-Type"] == "text/plain" and old["version"] == "2"
    types = set(OutboxEvent.objects.values_list("type", flat=True))
    assert types == {"io.cloudevents.schemaregistry.updated.v1"}


MC = "/messagecatalog"
DEFINITION = json.dumps({"format": "CloudEvents/1.0", "metadata": {"attributes": {"type": {"value": "com.example.a"}}}})


def test_message_catalog_operations(editor_client, api_client):
    features = api_client.options(MC)
    assert features.status_code == 200
    body = features.json()
    assert "id" in body["filterattributes"] and body["pagination"] is True and body["update"] is True
    assert editor_client.put(f"{MC}/events", {"format": "CloudEvents/1.0"}, format="json").status_code == 201
    editor_client.put(f"{MC}/other", {"format": "MQTT/5.0", "description": "mqtt"}, format="json")
    assert api_client.get(MC).json() == ["events", "other"]
    assert api_client.get(f"{MC}?filter=format=MQTT*").json() == ["other"]
    assert api_client.get(f"{MC}?limit=1")["Link"].endswith("rel=next;count=2")
    response = editor_client.generic("POST", f"{MC}/events/messagedefinitions/A", DEFINITION,
                                     content_type="application/json", HTTP_DESCRIPTION="a")
    assert response.status_code == 201, response.content
    editor_client.generic("POST", f"{MC}/events/messagedefinitions/A", DEFINITION, content_type="application/json")
    assert api_client.get(f"{MC}/events/messagedefinitions").json() == ["A"]
    assert api_client.get(f"{MC}/events/messagedefinitions/A/versions").json() == [2]  # only the latest is kept
    latest = api_client.get(f"{MC}/events/messagedefinitions/A")
    assert json.loads(latest.content)["metadata"]["attributes"]["type"]["value"] == "com.example.a"
    assert latest["format"] == "CloudEvents/1.0" and latest["version"] == "2"
    assert api_client.get(f"/messagecatalog/messagedefinition?uri={latest['id']}").status_code == 200
    core = api_client.get("/definitionGroups/events/definitions/A?meta").json()
    assert core["version"] == "2" and core["format"] == "CloudEvents/1.0"
    bad = json.dumps({"format": "MQTT/5.0", "metadata": {}})
    assert editor_client.generic("POST", f"{MC}/events/messagedefinitions/B", bad,
                                 content_type="application/json").status_code == 400
    assert editor_client.delete(f"{MC}/events/messagedefinitions").status_code == 200
    assert api_client.get(f"{MC}/events/messagedefinitions").json() == []
    types = set(OutboxEvent.objects.values_list("type", flat=True))
    assert types == {"io.cloudevents.messagecatalog.updated.v1", "io.cloudevents.messagecatalog.deleted.v1"}


def test_problems_and_auth(api_client, editor_client):
    response = api_client.get(f"{SR}/missing")
    assert response.status_code == 404 and response["Content-Type"] == "application/problem+json"
    assert api_client.put(f"{SR}/x", {}, format="json").status_code == 401
    assert editor_client.get(f"{SR}?bogus=1").status_code == 400
