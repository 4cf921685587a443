"""Message definitions per format: valid and invalid examples from the spec text (the corpus definitions are
checked in tests/catalog/test_definitions.py)."""

import pytest

from catalog.validators.definitions import validate_definition, validate_definition_group
from catalog.validators.uritemplate import level1_error

# (format, metadata) examples quoted from the spec's message format sections
VALID = [
    (
        "CloudEvents/1.0",
        {
            "attributes": {
                "type": {"value": "com.example.myevent"},
                "source": {"value": "https://{tenant}/{module}/myevent", "type": "uritemplate"},
                "subject": {"type": "urireference"},
                "time": {"required": True},
            }
        },
    ),
    (
        "HTTP/1.1",
        {
            "headers": [{"name": "Content-Type", "value": "application/json"}],
            "query": {"foo": "bar"},
            "path": "/foo/{bar}",
            "method": "POST",
        },
    ),
    (
        "AMQP/1.0",
        {
            "properties": {
                "message-id": {"required": True},
                "to": {"value": "https://{host}/{queue}"},
                "subject": {"value": "MyMessageType", "required": True},
                "content-type": {"value": "application/json"},
                "content-encoding": {"value": "utf-8"},
            },
            "application-properties": {"my-application-property": {"value": "my-application-property-value"}},
        },
    ),
    (
        "MQTT/5.0",
        {
            "qos": {"value": 1},
            "retain": {"value": False},
            "topic-name": {"value": "mytopic"},
            "user-properties": [{"my-application-property": {"value": "my-application-property-value"}}],
        },
    ),
    ("MQTT/3.1.1", {"qos": {"value": 0}, "topic-name": {"value": "spBv1.0/{group_id}/NBIRTH/{edge_node_id}"}}),
    ("Kafka/0.11", {"topic": {"value": "mytopic"}, "key": {"value": "thisdevice"}}),
    ("Kafka/0.11", {"headers": {"action": {"value": "powerOutput"}}, "key": {"value": "{generatorId}"}}),
    ("NATS/1.0.0", {"subject": {"value": "orders.{region}"}}),
]

INVALID = [
    (
        "CloudEvents/1.0",
        {"attributes": {"type": {"required": False}}},
        "metadata.attributes.type.required must not be false",
    ),
    ("CloudEvents/1.0", {"attributes": {"id": {"required": False}}}, "metadata.attributes.id.required"),
    ("CloudEvents/1.0", {"attributes": {"source": {"required": False}}}, "metadata.attributes.source.required"),
    ("CloudEvents/1.0", {"attributes": {"Type": {}}}, "metadata.attributes.Type"),
    ("CloudEvents/1.0", {"attributes": {"source": {"type": "uritemplate", "value": "{+path}"}}}, "level 1"),
    ("CloudEvents/1.0", {"attributes": {"source": {"value": "/a/{b"}}}, "metadata.attributes.source.value"),
    ("CloudEvents/1.0", {"attributes": {"time": {"type": "moment"}}}, "metadata.attributes.time.type"),
    ("CloudEvents/1.0", {"attributes": {"specversion": {"value": "0.3"}}}, "specversion.value"),
    ("CloudEvents/1.0", {"attributes": {"x": {"required": "yes"}}}, "metadata.attributes.x.required must be a boolean"),
    ("HTTP/1.1", {"method": "POST", "status": "200"}, "mutually exclusive"),
    ("HTTP/1.1", {"headers": {"Content-Type": "x"}}, "metadata.headers must be an array"),
    ("HTTP/1.1", {"status": "999"}, "metadata.status"),
    ("HTTP/1.1", {"path": "/a/{b"}, "metadata.path"),
    ("AMQP/1.0", {"properties": {"priority": {"value": 1}}}, "metadata.properties.priority is not a known property"),
    ("AMQP/1.0", {"header": {"durable": {"value": "yes"}}}, "metadata.header.durable.value must be a boolean"),
    ("AMQP/1.0", {"properties": {"group-sequence": {"value": "one"}}}, "group-sequence.value must be an integer"),
    ("AMQP/1.0", {"body": {}}, "metadata.body is not an AMQP 1.0 message section"),
    ("MQTT/3.1.1", {"user-properties": []}, "exists in MQTT 5.0 only"),
    ("MQTT/3.1.1", {"content-type": {"value": "application/json"}}, "exists in MQTT 5.0 only"),
    ("MQTT/5.0", {"qos": {"value": 3}}, "metadata.qos.value must be 0, 1 or 2"),
    ("MQTT/5.0", {"retain": {"value": "no"}}, "metadata.retain.value must be a boolean"),
    ("MQTT/5.0", {"topic": {"value": "x"}}, "metadata.topic is not an MQTT PUBLISH property"),
    ("Kafka/0.11", {"partition": {"value": "first"}}, "metadata.partition.value must be an integer"),
    ("Kafka/0.11", {"recordHeaders": {}}, "metadata.recordHeaders is not a Kafka record property"),
    ("NATS/1.0.0", {"topic": {}}, "metadata.topic is not a NATS message property"),
]


@pytest.mark.parametrize(("fmt", "metadata"), VALID, ids=[f"{f}-{i}" for i, (f, _m) in enumerate(VALID)])
def test_spec_examples_are_valid(fmt, metadata):
    assert validate_definition({"format": fmt, "metadata": metadata}, group_format=fmt) == []


@pytest.mark.parametrize(("fmt", "metadata", "expected"), INVALID, ids=[e for _f, _m, e in INVALID])
def test_invalid_examples_name_the_attribute(fmt, metadata, expected):
    errors = validate_definition({"format": fmt, "metadata": metadata})
    assert any(expected in e for e in errors), errors


def test_schema_rules():
    base = {"format": "CloudEvents/1.0", "metadata": {"attributes": {"type": {"value": "t"}}}}
    assert "schemaformat is required with schemaurl" in validate_definition({**base, "schemaurl": "https://x/s.json"})
    assert "schemaformat is required with schema" in validate_definition({**base, "schema": {}})
    errors = validate_definition({**base, "schema": {}, "schemaurl": "#/x", "schemaformat": "JsonSchema/draft-07"})
    assert "schema and schemaurl are mutually exclusive" in errors
    assert validate_definition({**base, "schemaformat": "JsonSchema", "schemaurl": "#/x"})  # not NAME/VERSION
    assert validate_definition({"metadata": {}}) == []  # format is optional (a 1.0 message may have none)
    assert any("group's format" in e for e in validate_definition(base, group_format="MQTT/5.0"))
    assert validate_definition(base, group_format="cloudevents/1.0") == []  # case-insensitive


@pytest.mark.parametrize(
    "junk",
    [
        None,
        5,
        "x",
        [],
        {"format": 5},
        {"format": "CloudEvents/1.0", "metadata": []},
        {"format": "MQTT/5.0", "metadata": {"user-properties": [1, {"a": 1, "b": 2}]}},
    ],
)
def test_any_json_shape_gives_errors_not_exceptions(junk):
    assert validate_definition(junk)


def test_definition_group_format_is_optional_but_checked():
    assert validate_definition_group({}) == [] and validate_definition_group({"format": "CloudEvents"})
    assert validate_definition_group({"format": "CloudEvents/1.0"}) == []


@pytest.mark.parametrize(
    ("template", "ok"),
    [
        ("/a/{b}/c", True),
        ("{deviceid}/telemetry", True),
        ("plain", True),
        ("{a.b}", True),
        ("{+a}", False),
        ("{a*}", False),
        ("{a:3}", False),
        ("{a,b}", False),
        ("{", False),
        ("}", False),
        ("{}", False),
        ("a b", False),
    ],
)
def test_uritemplate_level1(template, ok):
    assert (level1_error(template) is None) == ok
