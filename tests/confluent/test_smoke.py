import pytest
from confluent_kafka.schema_registry import Schema

pytestmark = pytest.mark.django_db(transaction=True)

USER = '{"type": "record", "name": "User", "fields": [{"name": "name", "type": "string"}]}'


def test_register_lookup_get(registry, http):
    schema_id = registry.register_schema("users-value", Schema(USER, "AVRO"))
    assert schema_id >= 1
    assert registry.register_schema("users-value", Schema(USER, "AVRO")) == schema_id
    found = registry.lookup_schema("users-value", Schema(USER, "AVRO"))
    assert found.version == 1 and found.schema_id == schema_id
    assert registry.get_schema(schema_id).schema_str == USER
    r = http.get("/subjects")
    assert r.json() == ["users-value"], r.text
    r = http.get(f"/schemas/ids/{schema_id}")
    assert r.status_code == 200 and r.headers["content-type"] == "application/vnd.schemaregistry.v1+json"
    r = http.get("/subjects/nope/versions")
    assert r.status_code == 404 and r.json()["error_code"] == 40401


def test_same_document_in_registry_and_events(registry, live_server):
    import httpx

    from registry.models import OutboxEvent

    registry.register_schema("orders-value", Schema(USER, "AVRO"))
    doc = httpx.get(f"{live_server.url}/registry/schemagroups/confluent/schemas/orders-value")
    assert doc.status_code == 200 and doc.content == USER.encode()
    assert doc.headers["xregistry-versionid"] == "1"
    subjects = sorted(OutboxEvent.objects.values_list("subject", flat=True))
    assert subjects == [
        "/schemaGroups/confluent",
        "/schemaGroups/confluent/schemas/orders-value",
        "/schemaGroups/confluent/schemas/orders-value/versions/1",
    ]
