"""JSON Schema references as Confluent's clients write them (issue 41 item 2; docs/confluent.md, "References"): a
`$ref` naming another subject's schema by the reference's `name`, at any depth (a referenced schema with references of
its own) and under `oneOf` / `anyOf` / `allOf`. Registered, read and looked up through confluent-kafka's own
SchemaRegistryClient, and used by its JSONSerializer and JSONDeserializer, which resolve the names through this
registry; a message the referenced schemas refuse is refused by the serializer."""

from __future__ import annotations

import json

import pytest
from confluent_kafka.schema_registry import Schema, SchemaReference
from confluent_kafka.serialization import MessageField, SerializationContext, SerializationError

pytestmark = pytest.mark.django_db(transaction=True)

ADDRESS = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Address",
    "type": "object",
    "properties": {"city": {"type": "string"}, "zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
    "required": ["city"],
}
PERSON = {  # references address.json (depth 1)
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Person",
    "type": "object",
    "properties": {"name": {"type": "string"}, "home": {"$ref": "address.json"}},
    "required": ["name", "home"],
}
COMPANY = {  # references address.json too
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Company",
    "type": "object",
    "properties": {"company": {"type": "string"}, "office": {"$ref": "address.json"}},
    "required": ["company", "office"],
    "additionalProperties": False,
}
ORDER = {  # references person.json and company.json under oneOf, address.json under allOf (depth 2 through person)
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Order",
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "buyer": {"oneOf": [{"$ref": "person.json"}, {"$ref": "company.json"}]},
        "shipTo": {"allOf": [{"$ref": "address.json"}, {"required": ["zip"]}]},
        "billTo": {"anyOf": [{"$ref": "address.json"}, {"type": "null"}]},
    },
    "required": ["id", "buyer", "shipTo"],
}


def ref(name: str, subject: str) -> SchemaReference:
    return SchemaReference(name, subject, 1)


@pytest.fixture
def order_schema(registry) -> Schema:
    registry.register_schema("address", Schema(json.dumps(ADDRESS), "JSON"))
    registry.register_schema("person", Schema(json.dumps(PERSON), "JSON", [ref("address.json", "address")]))
    registry.register_schema("company", Schema(json.dumps(COMPANY), "JSON", [ref("address.json", "address")]))
    schema = Schema(
        json.dumps(ORDER),
        "JSON",
        [ref("person.json", "person"), ref("company.json", "company"), ref("address.json", "address")],
    )
    registry.register_schema("orders-value", schema)
    return schema


def test_nested_references_and_references_under_one_of(registry, order_schema):
    from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer

    # a later version is checked for compatibility with the first, through the references
    later = dict(ORDER, properties={**ORDER["properties"], "note": {"type": "string"}})
    second = Schema(json.dumps(later), "JSON", order_schema.references)
    assert registry.register_schema_full_response("orders-value", second).version == 2
    narrower = dict(ORDER, properties={**ORDER["properties"], "buyer": {"$ref": "person.json"}})
    assert not registry.test_compatibility(
        "orders-value", Schema(json.dumps(narrower), "JSON", order_schema.references)
    )
    got = registry.get_version("orders-value", 1)
    assert [r.name for r in got.schema.references] == ["person.json", "company.json", "address.json"]
    assert registry.lookup_schema("orders-value", order_schema).version == 1
    assert registry.lookup_schema("orders-value", second).version == 2

    context = SerializationContext("orders", MessageField.VALUE)
    serializer = JSONSerializer(order_schema, registry, conf={"auto.register.schemas": False})
    deserializer = JSONDeserializer(None, schema_registry_client=registry)
    for buyer in ({"name": "Ada", "home": {"city": "Paris"}}, {"company": "Acme", "office": {"city": "Lyon"}}):
        order = {"id": "o-1", "buyer": buyer, "shipTo": {"city": "Nice", "zip": "06000"}}
        assert deserializer(serializer(order, context), context) == order
    # the serializer validates against the referenced schemas, at depth 2 and under oneOf / allOf
    for bad in (
        {"id": "o-2", "buyer": {"name": "Ada", "home": {}}, "shipTo": {"city": "Nice", "zip": "06000"}},
        {"id": "o-3", "buyer": {"name": "Ada", "home": {"city": "Paris"}}, "shipTo": {"city": "Nice"}},
        {"id": "o-4", "buyer": {"name": "Ada", "home": {"city": "Paris"}}, "shipTo": {"city": "Nice", "zip": "x"}},
    ):
        with pytest.raises(SerializationError):
            serializer(bad, context)
