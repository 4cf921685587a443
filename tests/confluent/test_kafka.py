"""Produce and consume through a real Kafka broker (Tansu, started by the harness) with confluent-kafka's
AvroSerializer, JSONSerializer and ProtobufSerializer (one with an imported file: a reference) and their
deserializers, the registry being this server's /confluent."""

import time

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.message_factory import GetMessageClass

from confluent.models import SubjectVersion
from registry.models import Version
from tests.harness.services import create_kafka_topics

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def round_trip(bootstrap: str, topic: str, serializer, deserializer, value):
    """Serialize `value` for `topic`, produce it, consume it back and deserialize it."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
    from confluent_kafka.serialization import MessageField, SerializationContext

    create_kafka_topics(bootstrap, topic)
    context = SerializationContext(topic, MessageField.VALUE)
    producer = Producer({"bootstrap.servers": bootstrap})
    producer.produce(topic, value=serializer(value, context))
    assert producer.flush(15) == 0
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "confluent-tests", "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                return message.value(), deserializer(message.value(), context)
    finally:
        consumer.close()
    raise AssertionError(f"nothing consumed from {topic}")


def test_avro_round_trip(kafka, registry):
    from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer

    schema = (
        '{"type": "record", "name": "Reading", "namespace": "acme",'
        ' "fields": [{"name": "sensor", "type": "string"}, {"name": "value", "type": "double"}]}'
    )
    serializer = AvroSerializer(registry, schema)
    deserializer = AvroDeserializer(registry)
    raw, back = round_trip(
        kafka.extra["bootstrap"], "readings", serializer, deserializer, {"sensor": "s1", "value": 2.5}
    )
    assert back == {"sensor": "s1", "value": 2.5}
    latest = registry.get_latest_version("readings-value")
    assert raw[0] == 0 and int.from_bytes(raw[1:5], "big") == latest.schema_id  # Confluent framing, our id
    assert latest.schema.schema_str == schema


def test_avro_round_trip_with_a_reference(kafka, registry):
    """A record naming a type of another subject (an Avro reference): registered by the serializer itself, stored,
    and read back by the deserializer, which resolves the reference through this registry."""
    from confluent_kafka.schema_registry import Schema, SchemaReference
    from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer

    address = (
        '{"type": "record", "name": "Address", "namespace": "acme", "fields": [{"name": "city", "type": "string"}]}'
    )
    registry.register_schema("acme.Address", Schema(address, "AVRO"))
    person = (
        '{"type": "record", "name": "Person", "namespace": "acme",'
        ' "fields": [{"name": "name", "type": "string"}, {"name": "home", "type": "acme.Address"}]}'
    )
    schema = Schema(person, "AVRO", [SchemaReference("acme.Address", "acme.Address", 1)])
    serializer = AvroSerializer(registry, schema)
    deserializer = AvroDeserializer(registry)
    value = {"name": "Ada", "home": {"city": "London"}}
    raw, back = round_trip(kafka.extra["bootstrap"], "residents", serializer, deserializer, value)
    assert back == value
    latest = registry.get_latest_version("residents-value")
    assert int.from_bytes(raw[1:5], "big") == latest.schema_id
    assert [(r.name, r.subject, r.version) for r in latest.schema.references] == [("acme.Address", "acme.Address", 1)]


def test_json_round_trip(kafka, registry):
    from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer

    schema = (
        '{"$schema": "http://json-schema.org/draft-07/schema#", "title": "Order", "type": "object",'
        ' "properties": {"id": {"type": "string"}, "total": {"type": "number"}}, "required": ["id"]}'
    )
    serializer = JSONSerializer(schema, registry)
    deserializer = JSONDeserializer(schema, schema_registry_client=registry)
    _raw, back = round_trip(kafka.extra["bootstrap"], "orders", serializer, deserializer, {"id": "o-1", "total": 12.5})
    assert back == {"id": "o-1", "total": 12.5}
    assert registry.get_latest_version("orders-value").schema.schema_type == "JSON"


def message_classes():
    """Two .proto files compiled as protoc would: acme/address.proto and acme/person.proto importing it."""
    pool = descriptor_pool.DescriptorPool()
    address = descriptor_pb2.FileDescriptorProto(name="acme/address.proto", package="acme", syntax="proto3")
    message = address.message_type.add(name="Address")
    message.field.add(name="city", number=1, type=9, label=1, json_name="city")
    person = descriptor_pb2.FileDescriptorProto(
        name="acme/person.proto", package="acme", syntax="proto3", dependency=["acme/address.proto"]
    )
    message = person.message_type.add(name="Person")
    message.field.add(name="name", number=1, type=9, label=1, json_name="name")
    message.field.add(name="home", number=2, type=11, label=1, type_name=".acme.Address", json_name="home")
    pool.Add(address)
    pool.Add(person)
    return GetMessageClass(pool.FindMessageTypeByName("acme.Person")), GetMessageClass(
        pool.FindMessageTypeByName("acme.Address")
    )


def test_protobuf_round_trip_with_a_reference(kafka, registry, live_server):
    import httpx
    from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer

    person_class, address_class = message_classes()
    serializer = ProtobufSerializer(person_class, registry)
    deserializer = ProtobufDeserializer(person_class, schema_registry_client=registry)
    value = person_class(name="Ada", home=address_class(city="London"))
    _raw, back = round_trip(kafka.extra["bootstrap"], "people", serializer, deserializer, value)
    assert back == value
    # the imported file is a subject of its own, referenced by the person's
    assert sorted(registry.get_subjects()) == ["acme/address.proto", "people-value"]
    person = registry.get_latest_version("people-value")
    assert [(r.name, r.subject, r.version) for r in person.schema.references] == [
        ("acme/address.proto", "acme/address.proto", 1)
    ]
    # stored as .proto text, the same document through the 1.0 binding
    text = person.schema.schema_str
    assert 'import "acme/address.proto";' in text and "message Person" in text and ".acme.Address home = 2;" in text
    doc = httpx.get(f"{live_server.url}/registry/schemagroups/confluent/schemas/people-value")
    assert doc.content.decode() == text and doc.headers["xregistry-format"] == "Protobuf/3"
    # registering the text gives the same id as the descriptor did
    from confluent_kafka.schema_registry import Schema, SchemaReference

    again = registry.register_schema(
        "people-value", Schema(text, "PROTOBUF", [SchemaReference("acme/address.proto", "acme/address.proto", 1)])
    )
    assert again == person.schema_id
    assert SubjectVersion.objects.count() == Version.objects.count() == 2
