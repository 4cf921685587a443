"""Data contracts end to end (issue 41, resolved when): a producer and a consumer using confluent-kafka's
AvroSerializer, JSONSerializer and ProtobufSerializer with rules and encryption, through a real Kafka broker (Tansu,
started by the harness), against this server's /confluent: a CEL condition refusing a bad message in the producer
(nothing produced, nothing written), a PII field encrypted by the clients' ENCRYPT executor with the local KMS and a DEK
kept in this registry's DEK registry (the bytes on the topic never hold it), and a consumer of the new major version
reading a message of the old one through the JSONata migration rule, decrypting the field."""

from __future__ import annotations

import json
import time

import pytest
from confluent_kafka.schema_registry import Schema
from confluent_kafka.schema_registry.schema_registry_client import Metadata, RuleSet
from confluent_kafka.serialization import MessageField, SerializationContext, SerializationError
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.message_factory import GetMessageClass

from confluent.dek_models import Dek, Kek
from tests.confluent.test_contracts import state
from tests.harness.services import create_kafka_topics

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

SECRET = "the-local-kms-secret-of-the-producer-and-consumer"
RULE_CONF = {"secret": SECRET}  # the clients' local KMS driver is keyed by it (their LOCAL_SECRET)
PAYMENT = {"id": "p-1", "amount": 12, "card": "4111 1111 1111 1111"}
UP = "$merge([$sift($, function($v, $k) {$k != 'amount'}), {'total': $.'amount'}])"
DOWN = "$merge([$sift($, function($v, $k) {$k != 'total'}), {'amount': $.'total'}])"


@pytest.fixture(autouse=True)
def executors():
    """The clients' rule executors and KMS driver, registered as an application registers them."""
    from confluent_kafka.schema_registry.rules.cel.cel_executor import CelExecutor
    from confluent_kafka.schema_registry.rules.cel.cel_field_executor import CelFieldExecutor
    from confluent_kafka.schema_registry.rules.encryption.encrypt_executor import FieldEncryptionExecutor
    from confluent_kafka.schema_registry.rules.encryption.localkms.local_driver import LocalKmsDriver
    from confluent_kafka.schema_registry.rules.jsonata.jsonata_executor import JsonataExecutor

    for executor in (CelExecutor, CelFieldExecutor, FieldEncryptionExecutor, JsonataExecutor, LocalKmsDriver):
        executor.register()


def rule_set(card_tag_path: str, *, migrations: bool = False) -> RuleSet:
    """A CEL condition on the amount (write), ENCRYPT of the fields tagged PII (the KEK made by the producer's
    executor with its local KMS: not shared), and, for the major version 2, the JSONata migrations both ways."""
    amount = "total" if migrations else "amount"
    value = {
        "domainRules": [
            {"name": "positiveAmount", "kind": "CONDITION", "mode": "WRITE", "type": "CEL",
             "expr": f"message.{amount} > 0", "doc": "an amount is positive"},
            {"name": "encryptPii", "kind": "TRANSFORM", "mode": "WRITEREAD", "type": "ENCRYPT", "tags": ["PII"],
             "params": {"encrypt.kek.name": "payments-kek", "encrypt.kms.type": "local-kms",
                        "encrypt.kms.key.id": "payments-key"},
             "onFailure": "ERROR,NONE"},
        ]
    }  # fmt: skip
    if migrations:
        value["migrationRules"] = [
            {"name": "amountToTotal", "kind": "TRANSFORM", "mode": "UPGRADE", "type": "JSONATA", "expr": UP},
            {"name": "totalToAmount", "kind": "TRANSFORM", "mode": "DOWNGRADE", "type": "JSONATA", "expr": DOWN},
        ]
    return RuleSet.from_dict(value)


def metadata(major: str, card_tag_path: str) -> Metadata:
    return Metadata.from_dict({"properties": {"major": major}, "tags": {card_tag_path: ["PII"]}})


# --- the three formats: schema v1 and v2 (amount renamed total: incompatible), serializer and deserializers ---------


def avro_schemas():
    def record(amount: str) -> str:
        fields = [{"name": "id", "type": "string"}, {"name": amount, "type": "int"}, {"name": "card", "type": "string"}]
        return json.dumps({"type": "record", "name": "Payment", "namespace": "acme", "fields": fields})

    return record("amount"), record("total"), "acme.Payment.card"


def json_schemas():
    def schema(amount: str) -> str:
        properties = {"id": {"type": "string"}, amount: {"type": "integer"}, "card": {"type": "string"}}
        return json.dumps(
            {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "title": "Payment",
                "type": "object",
                "properties": properties,
                "required": ["id", amount, "card"],
                "additionalProperties": False,
            }
        )

    return schema("amount"), schema("total"), "$.card"


def proto_text(amount: str) -> str:
    return (
        'syntax = "proto3";\npackage acme;\n\n'
        f"message Payment {{\n  string id = 1;\n  int32 {amount} = 2;\n  string card = 3;\n}}\n"
    )


def proto_class(amount: str):
    """The message class a producer (or consumer) compiled from its .proto, as protoc would."""
    pool = descriptor_pool.DescriptorPool()
    file = descriptor_pb2.FileDescriptorProto(name="acme/payment.proto", package="acme", syntax="proto3")
    message = file.message_type.add(name="Payment")
    for number, name, kind in ((1, "id", 9), (2, amount, 5), (3, "card", 9)):
        message.field.add(name=name, number=number, type=kind, label=1, json_name=name)
    pool.Add(file)
    return GetMessageClass(pool.FindMessageTypeByName("acme.Payment"))


def clients(fmt: str, registry):
    """(serializer of v1, deserializer of v1, deserializer of major version 2, the value sent, how a read value is
    shown as a dict) of one format; serializers use the latest registered version, as with data contracts."""
    from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
    from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
    from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
    from google.protobuf.json_format import MessageToDict

    write = {"auto.register.schemas": False, "use.latest.version": True}
    old = {"use.latest.with.metadata": {"major": "1"}}
    new = {"use.latest.with.metadata": {"major": "2"}}
    if fmt == "AVRO":
        return (
            AvroSerializer(registry, None, conf=write, rule_conf=RULE_CONF),
            AvroDeserializer(registry, conf=old, rule_conf=RULE_CONF),
            AvroDeserializer(registry, conf=new, rule_conf=RULE_CONF),
            dict,  # a copy: the serializer encrypts the fields of the value it is given in place
            lambda value: value,
        )
    if fmt == "JSON":
        return (
            JSONSerializer(json_schemas()[0], registry, conf=write, rule_conf=RULE_CONF),
            JSONDeserializer(None, schema_registry_client=registry, conf=old, rule_conf=RULE_CONF),
            JSONDeserializer(None, schema_registry_client=registry, conf=new, rule_conf=RULE_CONF),
            dict,
            lambda value: value,
        )
    v1_class, v2_class = proto_class("amount"), proto_class("total")
    write = {**write, "use.deprecated.format": False}
    return (
        ProtobufSerializer(v1_class, registry, conf=write, rule_conf=RULE_CONF),
        ProtobufDeserializer(v1_class, {**old, "use.deprecated.format": False}, registry, rule_conf=RULE_CONF),
        ProtobufDeserializer(v2_class, {**new, "use.deprecated.format": False}, registry, rule_conf=RULE_CONF),
        lambda value: v1_class(**value),
        lambda message: MessageToDict(message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True),
    )  # fmt: skip


def schemas(fmt: str) -> tuple[str, str, str]:
    if fmt == "AVRO":
        return avro_schemas()
    if fmt == "JSON":
        return json_schemas()
    return proto_text("amount"), proto_text("total"), "acme.Payment.card"


def produced(bootstrap: str, topic: str, payload: bytes) -> None:
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap})
    producer.produce(topic, value=payload)
    assert producer.flush(15) == 0


def consumed(bootstrap: str, topic: str) -> list[bytes]:
    """Every message of the topic, from its beginning."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"{topic}-reader", "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    out: list[bytes] = []
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                out.append(message.value())
                deadline = min(deadline, time.monotonic() + 2)  # the rest follows at once
    finally:
        consumer.close()
    return out


@pytest.mark.parametrize("fmt", ["AVRO", "JSON", "PROTOBUF"])
def test_rules_and_encryption_through_a_broker(fmt, kafka, registry, http, base_url):
    bootstrap = kafka.extra["bootstrap"]
    topic = f"payments-{fmt.lower()}"
    subject = f"{topic}-value"
    create_kafka_topics(bootstrap, topic)
    context = SerializationContext(topic, MessageField.VALUE)
    v1, v2, card_path = schemas(fmt)

    # the subject keeps major versions apart: a version is compared with those of its own `major`
    assert http.put(f"/config/{subject}", json={"compatibilityGroup": "major"}).status_code == 200
    registry.register_schema(subject, Schema(v1, fmt, [], metadata("1", card_path), rule_set(card_path)))
    serializer, _old_reader, _new_reader, make, shown = clients(fmt, registry)

    # the producer: the CEL condition refuses a bad payment before anything reaches the broker or the registry
    before = state()
    with pytest.raises(SerializationError):
        serializer(make({**PAYMENT, "amount": 0}), context)
    assert state() == before and Kek.objects.count() == 0

    # a good one: the card encrypted by the producer's executor, its DEK kept here
    payload = serializer(make(PAYMENT), context)
    assert b"4111" not in payload
    produced(bootstrap, topic, payload)
    kek, dek = Kek.objects.get(), Dek.objects.get()
    assert (kek.name, kek.kms_type, kek.shared, dek.subject, dek.algorithm) == (
        "payments-kek", "local-kms", False, subject, "AES256_GCM",
    )  # fmt: skip

    # major version 2 (amount renamed total: incompatible with 1, accepted in its own compatibility group)
    second = Schema(v2, fmt, [], metadata("2", card_path), rule_set(card_path, migrations=True))
    assert registry.register_schema_full_response(subject, second).version == 2

    [raw] = consumed(bootstrap, topic)
    assert raw == payload and b"4111" not in raw
    # the consumers: applications of their own, with their own registry client (and its caches)
    from confluent_kafka.schema_registry import SchemaRegistryClient

    consumers = SchemaRegistryClient({"url": base_url.replace("http://", "http://carol:pw@"), "max.retries": 0})
    _serializer, old_reader, new_reader, _make, _shown = clients(fmt, consumers)
    # a consumer of version 1 decrypts the card; a consumer of version 2 reads it through the JSONata migration
    assert shown(old_reader(raw, context)) == PAYMENT
    assert shown(new_reader(raw, context)) == {"id": "p-1", "total": 12, "card": "4111 1111 1111 1111"}
    consumers.close()
