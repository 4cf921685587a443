"""Endpoint validators (pure Python, no database): attributes, protocol names/URIs/options, references.

Valid cases quote the spec text ("Endpoint Registry" and its protocol options sections) where it has an
example; every endpoint of the seed-shape corpus must validate without errors.
"""

import json

import pytest
import yaml

from endpoints.validators.attributes import parse_rfc3339, validate_endpoint
from endpoints.validators.protocols import (
    OPTIONS,
    canonical_protocol,
    endpoint_uri_error,
    protocol_version,
    validate_options,
)
from endpoints.validators.references import definition_group_ids, is_absolute_uri, is_uri_reference
from tests.corpus import cases, documents


def endpoint(usage="producer", **config):
    return {"usage": usage, "config": config}


# ------------------------------------------------------------------------------ valid, per protocol

VALID = [
    # xRegistry 1.0 writes usage as an array (rc4 corpus: mqtt-sparkplugB), stored as written
    ("usage-array", {"usage": ["subscriber", "consumer"], "config": {"protocol": "MQTT/3.1.1"}}),
    # spec, "HTTP" options example
    (
        "http-spec",
        endpoint(
            protocol="HTTP/1.1",
            options={
                "method": "POST",
                "headers": [{"name": "Content-Type", "value": "application/json"}],
                "query": {"operation": "send"},
            },
        ),
    ),
    # spec, definitionGroups example (the endpoint attributes around it)
    (
        "http-defgroups",
        {
            "usage": "producer",
            "config": {"protocol": "HTTP/1.1", "options": {"method": "POST"}},
            "definitionGroups": ["https://example.com/registry/definitiongroups/mygroup"],
        },
    ),
    # spec, config.endpoints example ["https://example.com"]
    ("http-endpoints", endpoint(protocol="HTTP", endpoints=["https://example.com"])),
    ("http-2", endpoint(protocol="HTTP/2", endpoints=["http://example.com:8080/in?x=1"])),
    ("http-3-lower", endpoint(protocol="http/3", endpoints=["HTTPS://Example.com/"])),
    (
        "http-placeholders",
        endpoint(
            protocol="HTTP",
            options={
                "method": "PUT",
                "headers": [
                    {"name": "Authorization", "value": "Bearer {token}"},
                    {"name": "Content-Type", "value": "application/json; charset=utf-8"},
                    {"name": "X-Dup", "value": "a"},
                    {"name": "X-Dup", "value": "b"},
                ],
                "query": {"tenant": "{tenant_id}", "op": "send"},
            },
        ),
    ),
    # spec, "AMQP" options example
    (
        "amqp-spec",
        endpoint(
            protocol="AMQP/1.0",
            options={
                "node": "myqueue",
                "durable": True,
                "link-properties": {"my-link-property": "my-link-property-value"},
                "connection-properties": {"my-connection-property": "my-connection-property-value"},
                "distribution-mode": "move",
            },
        ),
    ),
    (
        "amqp-uri-node",
        endpoint(
            "consumer",
            protocol="AMQP",
            endpoints=["amqps://broker.example.com/queue1", "amqp://broker.example.com:5672"],
            options={"distribution-mode": "copy", "link-properties": {"p": "{x}"}},
        ),
    ),
    # spec, "MQTT" options example (will-message as the text writes it)
    (
        "mqtt-spec",
        endpoint(
            protocol="MQTT/5.0",
            options={
                "topic": "mytopic",
                "qos": 1,
                "retain": False,
                "clean-session": False,
                "will-topic": "mytopic",
                "will-message": "#/definitionGroup/mygroup/definitions/my-will-message",
            },
        ),
    ),
    # spec, config.endpoints example ["tcp://example.com", "wss://example.com"]
    (
        "mqtt-informal",
        endpoint(protocol="MQTT", endpoints=["tcp://example.com", "wss://example.com", "ssl://example.com:8883/"]),
    ),
    (
        "mqtt-uri-topic",
        endpoint(protocol="MQTT/3.1.1", endpoints=["mqtt://broker.example.com:1883/a/b", "mqtts://broker.example.com"]),
    ),
    (
        "mqtt-filter-subscriber",
        endpoint("subscriber", protocol="MQTT/3.1.1", options={"topic": "spBv1.0/+/NDATA/#", "qos": 0}),
    ),
    ("mqtt-filter-consumer", endpoint("consumer", protocol="mqtt", options={"topic": "#", "qos": 2})),
    (
        "mqtt-placeholders",
        endpoint(
            protocol="MQTT/5.0",
            options={
                "topic": "spBv1.0/{group_id}/NBIRTH/{edge_node_id}",
                "will-topic": "spBv1.0/{group_id}/NDEATH/{node}",
                "will-message": "#/definitionGroups/g/definitions/NDEATH",
                "retain": True,
            },
        ),
    ),
    # spec, "Kafka" options example (without its trailing comma)
    ("kafka-spec", endpoint(protocol="Kafka/2.0", options={"topic": "mytopic", "acks": 1, "key": "mykey"})),
    # spec, Kafka endpoint URIs "SSL://{host}:{port} or PLAINTEXT://{host}:{port}"
    (
        "kafka-schemes",
        endpoint(
            protocol="KAFKA/3.5",
            endpoints=[
                "SSL://kafka.example.com:9093",
                "PLAINTEXT://kafka.example.com:9092",
                "sasl_ssl://kafka.example.com:9094",
                "SASL_PLAINTEXT://10.0.0.1:9095",
                "kafka://k.example.com:9092/",
            ],
        ),
    ),
    (
        "kafka-consumer",
        endpoint(
            "consumer",
            protocol="kafka",
            options={"topic": "orders.{region}", "consumer-group": "grp-{app}", "acks": -1, "partition": 0},
        ),
    ),
    # spec, "NATS" options example and URIs "nats://{host}:{port} or tls://{host}:{port}"
    (
        "nats-spec",
        endpoint(
            protocol="NATS/1.0.0",
            options={"subject": "mysubject"},
            endpoints=["nats://nats.example.com:4222", "tls://nats.example.com:4443", "ws://nats.example.com:8080"],
        ),
    ),
    ("nats-wildcards-consumer", endpoint("consumer", protocol="nats", options={"subject": "orders.*.{region}.>"})),
    # spec, "An example for an extension protocol identifier might be BunnyMQ/0.9.1"
    (
        "extension-protocol",
        endpoint(
            protocol="BunnyMQ/0.9.1",
            endpoints=["bunny://x.example.com"],
            options={"x": 1, "anything": {"goes": [True]}},
        ),
    ),
    # unknown option names pass, strict or not (strict means "a public, live endpoint")
    ("unknown-options", endpoint(protocol="AMQP", strict=True, options={"ttl": 1000, "x-vendor": "y"})),
    ("nats-schema-topic", endpoint(protocol="NATS", options={"topic": 5})),
    ("abstract", {"usage": "subscriber"}),
    ("empty-config-options", endpoint(protocol="HTTP", options={}, endpoints=[], strict=False)),
    # spec, deprecated examples
    ("deprecated-empty", {"usage": "consumer", "deprecated": {}}),
    (
        "deprecated-spec",
        {
            "usage": "consumer",
            "deprecated": {"removal": "2030-12-19T00:00:00-00:00", "alternative": "https://example.com/endpoints/123"},
        },
    ),
    (
        "deprecated-full",
        {
            "usage": "consumer",
            "deprecated": {
                "effective": "2030-01-01T00:00:00+01:00",
                "removal": "2029-12-31T23:00:00Z",
                "alternative": "https://example.com/endpoints/123",
                "docs": "https://example.com/why",
            },
        },
    ),
    # spec, origin example; channel example; empty channel
    (
        "origin-channel",
        {
            "usage": "producer",
            "origin": "https://example2.com/myregistry/endpoints/9876",
            "channel": "queue1",
            "format": "CloudEvents/1.0",
        },
    ),
    ("empty-channel", {"usage": "producer", "channel": ""}),
    ("nulls-are-absent", {"usage": "producer", "origin": None, "deprecated": None, "config": None, "format": None}),
    (
        "extensions",
        {
            "usage": "producer",
            "authscope": "storage.read",
            "definitions": {"x": "not checked"},
            "config": {"protocol": "HTTP", "filterDialects": ["basic"]},
        },
    ),
]


@pytest.mark.parametrize("attributes", [a for _n, a in VALID], ids=[n for n, _a in VALID])
def test_valid_endpoints(attributes):
    assert validate_endpoint(attributes) == []


# ---------------------------------------------------------------------------- invalid, per attribute

INVALID = [
    # usage
    ({"config": {"protocol": "HTTP"}}, "usage is required"),
    ({"usage": "reader"}, "usage must be one of subscriber, consumer, producer"),
    # an array is the xRegistry 1.0 form (one store holds both models): distinct known values only
    ({"usage": ["subscriber", "reader"]}, "usage as an array must hold distinct values"),
    ({"usage": []}, "usage as an array must hold distinct values"),
    ({"usage": ["producer", "producer"]}, "usage as an array must hold distinct values"),
    ({"usage": "Producer"}, "usage must be one of"),
    # origin
    ({"usage": "producer", "origin": ""}, "origin must be a non-empty absolute URI"),
    ({"usage": "producer", "origin": "/relative/path"}, "origin must be"),
    ({"usage": "producer", "origin": "https://exa mple.com"}, "origin must be"),
    # deprecated
    ({"usage": "producer", "deprecated": "yes"}, "deprecated must be an object"),
    (
        {"usage": "producer", "deprecated": {"effective": "2030-01-01T00:00:00Z", "removal": "2029-01-01T00:00:00Z"}},
        "deprecated.removal must not be before deprecated.effective",
    ),
    (
        {
            "usage": "producer",
            "deprecated": {"effective": "2030-01-01T03:00:00+02:00", "removal": "2030-01-01T00:00:00+00:00"},
        },
        "deprecated.removal must not be before deprecated.effective",
    ),
    ({"usage": "producer", "deprecated": {"effective": "soon"}}, "deprecated.effective must be an RFC 3339"),
    ({"usage": "producer", "deprecated": {"removal": "2030-12-19"}}, "deprecated.removal must be an RFC 3339"),
    ({"usage": "producer", "deprecated": {"removal": "2030-12-19T00:00:00"}}, "deprecated.removal must be"),
    ({"usage": "producer", "deprecated": {"removal": "2030-02-30T00:00:00Z"}}, "deprecated.removal must be"),
    ({"usage": "producer", "deprecated": {"removal": 1893456000}}, "deprecated.removal must be"),
    ({"usage": "producer", "deprecated": {"alternative": "not a url"}}, "deprecated.alternative must be"),
    (
        {"usage": "producer", "deprecated": {"docs": "ftp://example.com/x"}},
        "deprecated.docs must be an absolute http(s) URL",
    ),
    (
        {"usage": "producer", "deprecated": {"removel": "2030-12-19T00:00:00Z"}},
        "deprecated.removel is not a deprecation attribute",
    ),
    # channel, format
    ({"usage": "producer", "channel": 5}, "channel must be a string"),
    ({"usage": "producer", "format": "CloudEvents"}, "format must be NAME/VERSION"),
    ({"usage": "producer", "format": ["CloudEvents/1.0"]}, "format must be NAME/VERSION"),
    # config
    ({"usage": "producer", "config": "HTTP"}, "config must be an object"),
    ({"usage": "producer", "config": {}}, "config.protocol is required"),
    ({"usage": "producer", "config": {"endpoints": ["https://x.example.com"]}}, "config.protocol is required"),
    ({"usage": "producer", "config": {"protocol": ""}}, "config.protocol: must be a non-empty string"),
    ({"usage": "producer", "config": {"protocol": 11}}, "config.protocol: must be a non-empty string"),
    # spec: "AMQP draft versions before 1.0 (e.g. 0.9) are not AMQP"
    ({"usage": "producer", "config": {"protocol": "AMQP/0.9"}}, "config.protocol: 'AMQP/0.9' is not a version of AMQP"),
    ({"usage": "producer", "config": {"protocol": "HTTP/2.0"}}, "config.protocol: 'HTTP/2.0' is not a version of HTTP"),
    ({"usage": "producer", "config": {"protocol": "MQTT/4"}}, "config.protocol: 'MQTT/4' is not a version of MQTT"),
    ({"usage": "producer", "config": {"protocol": "KAFKA/"}}, "config.protocol: 'KAFKA/' has no valid version"),
    ({"usage": "producer", "config": {"protocol": "HTTP", "strict": "true"}}, "config.strict must be a boolean"),
    (
        {"usage": "producer", "config": {"protocol": "HTTP", "options": ["method", "POST"]}},
        "config.options must be an object",
    ),
    ({"usage": "producer", "config": {"protocol": "Bunny", "options": "x"}}, "config.options must be an object"),
    # config.endpoints
    (
        {"usage": "producer", "config": {"protocol": "HTTP", "endpoints": "https://x"}},
        "config.endpoints must be an array",
    ),
    (
        {"usage": "producer", "config": {"protocol": "HTTP", "endpoints": ["ftp://x"]}},
        "config.endpoints[0]: 'ftp://x' is not a valid URI for protocol HTTP",
    ),
    (
        {"usage": "producer", "config": {"protocol": "HTTP", "endpoints": ["https://ok.example.com", "/relative"]}},
        "config.endpoints[1]: '/relative' is not an absolute URI",
    ),
    (
        {"usage": "producer", "config": {"protocol": "HTTP", "endpoints": [42]}},
        "config.endpoints[0]: 42 is not an absolute URI",
    ),
    ({"usage": "producer", "config": {"protocol": "HTTP", "endpoints": ["https:///nohost"]}}, "it has no host"),
    (
        {"usage": "producer", "config": {"protocol": "HTTP", "endpoints": ["https://x.example.com:99999"]}},
        "is not an absolute URI",
    ),
    ({"usage": "producer", "config": {"protocol": "Bunny", "endpoints": ["no scheme"]}}, "config.endpoints[0]"),
    (
        {"usage": "producer", "config": {"protocol": "AMQP", "endpoints": ["http://x"]}},
        "not a valid URI for protocol AMQP",
    ),
    (
        {"usage": "producer", "config": {"protocol": "MQTT", "endpoints": ["ws://x.example.com"]}},
        "not a valid URI for protocol MQTT",
    ),
    # spec: tcp, ssl, wss "MUST NOT have a path"; an mqtt(s) path "MUST be a valid MQTT topic name"
    (
        {"usage": "producer", "config": {"protocol": "MQTT", "endpoints": ["wss://x.example.com/mqtt"]}},
        "must not have a path",
    ),
    (
        {"usage": "producer", "config": {"protocol": "MQTT", "endpoints": ["mqtt://x.example.com/a/+/b"]}},
        "cannot contain the wildcards",
    ),
    ({"usage": "producer", "config": {"protocol": "Kafka", "endpoints": ["kafka://k.example.com"]}}, "needs a port"),
    (
        {"usage": "producer", "config": {"protocol": "Kafka", "endpoints": ["k.example.com:9092"]}},
        "is not a valid URI for protocol Kafka",
    ),
    (
        {"usage": "producer", "config": {"protocol": "Kafka", "endpoints": ["https://k.example.com:9092"]}},
        "is not a valid URI for protocol Kafka",
    ),
    (
        {"usage": "producer", "config": {"protocol": "Kafka", "endpoints": ["SSL://k.example.com:9092/topic"]}},
        "has no path",
    ),
    # spec: NATS "the URI MUST include a port number"; schemes nats, tls, ws
    (
        {"usage": "producer", "config": {"protocol": "NATS", "endpoints": ["nats://n.example.com"]}},
        "must include a port number",
    ),
    (
        {"usage": "producer", "config": {"protocol": "NATS", "endpoints": ["wss://n.example.com:443"]}},
        "not a valid URI for protocol NATS",
    ),
    # definitionGroups
    ({"usage": "producer", "definitionGroups": "#/definitionGroups/a"}, "definitionGroups must be an array"),
    ({"usage": "producer", "definitionGroups": [5]}, "definitionGroups[0] must be a non-empty URI-reference"),
    ({"usage": "producer", "definitionGroups": ["#/schemaGroups/a"]}, "definitionGroups[0]: '#/schemaGroups/a'"),
    (
        {"usage": "producer", "definitionGroups": ["has space"]},
        "definitionGroups[0]: 'has space' is not a URI-reference",
    ),
    # not an object at all
    (["usage", "producer"], "an endpoint must be a JSON object"),
    (None, "an endpoint must be a JSON object"),
]


@pytest.mark.parametrize(
    ("attributes", "expected"), INVALID, ids=[f"{i}-{e[:40]}" for i, (_a, e) in enumerate(INVALID)]
)
def test_invalid_endpoints_name_the_attribute(attributes, expected):
    errors = validate_endpoint(attributes)
    assert any(e.startswith(expected) or expected in e for e in errors), errors


# ------------------------------------------------------------------------------ options, per protocol

INVALID_OPTIONS = [
    # HTTP: "method ... MUST be a valid HTTP method name"
    ("HTTP", {"method": "PO ST"}, "config.options.method: 'PO ST' is not a valid HTTP method name"),
    ("HTTP", {"method": 1}, "config.options.method:"),
    ("HTTP", {"method": ""}, "config.options.method:"),
    # HTTP headers: an array of {name, value}, both non-empty strings
    ("HTTP", {"headers": {"Content-Type": "application/json"}}, "config.options.headers must be an array"),
    ("HTTP", {"headers": ["Content-Type: x"]}, "config.options.headers[0] must be an object"),
    ("HTTP", {"headers": [{"name": "", "value": "x"}]}, "config.options.headers[0].name must be a non-empty string"),
    ("HTTP", {"headers": [{"name": "Bad Name", "value": "x"}]}, "config.options.headers[0].name: 'Bad Name'"),
    ("HTTP", {"headers": [{"name": "X", "value": ""}]}, "config.options.headers[0].value: must be a non-empty string"),
    ("HTTP", {"headers": [{"name": "X"}]}, "config.options.headers[0].value: must be a non-empty string"),
    ("HTTP", {"headers": [{"name": "X", "value": "{+reserved}"}]}, "config.options.headers[0].value:"),
    (
        "HTTP",
        {"headers": [{"name": "X", "value": "a\r\nInjected: 1"}]},
        "config.options.headers[0].value must not contain CR, LF",
    ),
    (
        "HTTP",
        {"headers": [{"name": "X", "value": "bell\x07"}]},
        "config.options.headers[0].value must not contain CR, LF",
    ),
    # HTTP query: "a map of non-empty strings to non-empty strings"
    ("HTTP", {"query": [["a", "b"]]}, "config.options.query: must be a map"),
    ("HTTP", {"query": {"a": ""}}, "config.options.query.a: must be a non-empty string"),
    ("HTTP", {"query": {"a": 1}}, "config.options.query.a: must be a non-empty string"),
    ("HTTP", {"query": {"": "x"}}, "config.options.query: keys must be non-empty"),
    ("HTTP", {"query": {"a": "{x"}}, "config.options.query.a: unclosed"),
    # AMQP
    ("AMQP", {"node": ""}, "config.options.node: must be a non-empty string"),
    ("AMQP", {"durable": "true"}, "config.options.durable: must be a boolean"),
    ("AMQP", {"durable": 1}, "config.options.durable: must be a boolean"),
    ("AMQP", {"link-properties": {"a": 1}}, "config.options.link-properties.a: must be a non-empty string"),
    ("AMQP", {"connection-properties": "a=b"}, "config.options.connection-properties: must be a map"),
    ("AMQP", {"distribution-mode": "clone"}, "config.options.distribution-mode: must be 'move' or 'copy'"),
    ("AMQP", {"distribution-mode": "MOVE"}, "config.options.distribution-mode:"),
    # MQTT: "qos ... MUST be an integer between 0 and 2"
    ("MQTT/5.0", {"qos": 3}, "config.options.qos: must be an integer 0, 1 or 2"),
    ("MQTT/5.0", {"qos": -1}, "config.options.qos: must be an integer 0, 1 or 2"),
    ("MQTT/5.0", {"qos": "1"}, "config.options.qos: must be an integer 0, 1 or 2"),
    ("MQTT/5.0", {"qos": True}, "config.options.qos: must be an integer 0, 1 or 2"),
    ("MQTT/5.0", {"qos": 1.0}, "config.options.qos: must be an integer 0, 1 or 2"),
    ("MQTT/5.0", {"retain": "false"}, "config.options.retain: must be a boolean"),
    ("MQTT/5.0", {"clean-session": None}, "config.options.clean-session: must be a boolean"),
    ("MQTT/5.0", {"topic": ""}, "config.options.topic: must be a non-empty string"),
    ("MQTT/5.0", {"topic": "a/{b"}, "config.options.topic: unclosed"),
    ("MQTT/5.0", {"topic": "a/#/b"}, "config.options.topic: '#' must be the whole last topic level"),
    ("MQTT/5.0", {"topic": "a/b+"}, "config.options.topic: '+' must be a whole topic level"),
    ("MQTT/5.0", {"topic": "a/+/b"}, "config.options.topic: a topic name"),  # usage producer: a name
    ("MQTT/5.0", {"will-topic": ""}, "config.options.will-topic: must be a non-empty string"),
    ("MQTT/5.0", {"will-topic": "state/#"}, "config.options.will-topic: a topic name"),
    ("MQTT/5.0", {"will-topic": "{a:3}"}, "config.options.will-topic:"),
    ("MQTT/5.0", {"will-message": ""}, "config.options.will-message: must be a non-empty string"),
    ("MQTT/5.0", {"will-message": {"$ref": "#/x"}}, "config.options.will-message: must be a non-empty string"),
    ("MQTT/5.0", {"will-message": "not a reference"}, "config.options.will-message: 'not a reference'"),
    # Kafka: "acks ... MUST be an integer between -1 and 1"; "partition ... MUST be an integer"
    ("KAFKA", {"acks": 5}, "config.options.acks: must be an integer -1, 0 or 1"),
    ("KAFKA", {"acks": "all"}, "config.options.acks: must be an integer -1, 0 or 1"),
    ("KAFKA", {"partition": "0"}, "config.options.partition: must be an integer"),
    ("KAFKA", {"partition": 1.5}, "config.options.partition: must be an integer"),
    ("KAFKA", {"topic": ""}, "config.options.topic: must be a non-empty string"),
    ("KAFKA", {"key": 7}, "config.options.key: must be a non-empty string"),
    ("KAFKA", {"key": "{}"}, "config.options.key:"),
    ("KAFKA", {"consumer-group": ""}, "config.options.consumer-group: must be a non-empty string"),
    # NATS
    ("NATS", {"subject": "{bad"}, "config.options.subject: unclosed"),
    ("NATS", {"subject": ""}, "config.options.subject: must be a non-empty string"),
    ("NATS", {"subject": "a b"}, "config.options.subject: a NATS subject cannot contain whitespace"),
    ("NATS", {"subject": "a..b"}, "config.options.subject: a NATS subject cannot have empty tokens"),
    ("NATS", {"subject": "a.>.b"}, "config.options.subject: '>' must be the whole last token"),
    ("NATS", {"subject": "a.b*"}, "config.options.subject: '*' must be a whole token"),
    ("NATS", {"subject": "a.*"}, "config.options.subject: a producer's subject cannot contain the wildcards"),
]


@pytest.mark.parametrize(
    ("protocol", "options", "expected"),
    INVALID_OPTIONS,
    ids=[f"{p}-{'-'.join(o)}-{i}" for i, (p, o, _e) in enumerate(INVALID_OPTIONS)],
)
def test_invalid_options(protocol, options, expected):
    errors = validate_endpoint(endpoint(protocol=protocol, options=options))
    assert any(e.startswith(expected) for e in errors), errors
    # the same with the protocol name in another case: names match case-insensitively
    assert validate_endpoint(endpoint(protocol=protocol.swapcase(), options=options)) == errors


@pytest.mark.parametrize("strict", [False, True])
def test_strict_does_not_change_option_checks(strict):
    good = endpoint(protocol="MQTT", strict=strict, options={"qos": 1, "x-vendor": "y"})
    bad = endpoint(protocol="MQTT", strict=strict, options={"qos": 7, "x-vendor": "y"})
    assert validate_endpoint(good) == []
    assert validate_endpoint(bad) == ["config.options.qos: must be an integer 0, 1 or 2"]


def test_option_table_is_the_spec_text():
    assert {family: sorted(options) for family, options in OPTIONS.items()} == {
        "HTTP": ["headers", "method", "query"],
        "AMQP": ["connection-properties", "distribution-mode", "durable", "link-properties", "node"],
        "MQTT": ["clean-session", "qos", "retain", "topic", "will-message", "will-topic"],
        "KAFKA": ["acks", "consumer-group", "key", "partition", "topic"],
        "NATS": ["subject"],
    }


def test_producer_only_and_consumer_only_options_are_not_errors_on_other_usages():
    # "This option only applies to usage:producer endpoints" - ignored elsewhere, as contoso-erp's
    # AMQP producer with distribution-mode shows
    assert validate_endpoint(endpoint("consumer", protocol="AMQP", options={"durable": True})) == []
    assert validate_endpoint(endpoint("producer", protocol="AMQP", options={"distribution-mode": "copy"})) == []
    assert validate_endpoint(endpoint("subscriber", protocol="Kafka", options={"acks": 0, "key": "k"})) == []


def test_options_of_an_unknown_or_missing_protocol_are_unchecked():
    assert validate_options("BunnyMQ", {"qos": "high"}) == []
    assert validate_options(None, {"qos": "high"}) == []
    errors = validate_endpoint({"usage": "producer", "config": {"options": {"qos": 9}}})
    assert errors == ["config.protocol is required"]
    # a broken version of a known protocol reports the name, not every option again
    errors = validate_endpoint(endpoint(protocol="MQTT/9", options={"qos": 9}, endpoints=["ftp://x"]))
    assert len(errors) == 1 and errors[0].startswith("config.protocol:")


# ------------------------------------------------------------------------------------ names, URIs


@pytest.mark.parametrize(
    ("name", "family", "version"),
    [
        ("HTTP", "HTTP", "1.1"),  # spec: "The default version is HTTP/1.1 and MAY be shortened to HTTP"
        ("http/2", "HTTP", "2"),
        ("AMQP", "AMQP", "1.0"),  # spec: "AMQP/1.0 ... MAY be shortened to AMQP"
        ("amqp/1.0", "AMQP", "1.0"),
        ("MQTT", "MQTT", "5.0"),  # spec: "The shorthand MQTT maps to MQTT/5.0"
        ("MQTT/3.1.1", "MQTT", "3.1.1"),
        ("Kafka", "KAFKA", None),  # spec: "assumes usage of the latest Apache Kafka clients"
        ("KAFKA/3.5", "KAFKA", "3.5"),
        ("NATS/1.0.0", "NATS", "1.0.0"),
        ("nats", "NATS", None),
        ("BunnyMQ/0.9.1", None, "0.9.1"),
        ("BunnyMQ", None, None),
        ("", None, None),
        (None, None, None),
        (["HTTP"], None, None),
    ],
)
def test_canonical_protocol_and_version(name, family, version):
    assert canonical_protocol(name) == family
    assert protocol_version(name) == version


def test_endpoint_uri_error_is_none_for_valid_uris_and_extension_protocols():
    assert endpoint_uri_error("HTTP", "https://example.com") is None
    assert endpoint_uri_error("BunnyMQ/0.9.1", "bunny://x") is None
    assert endpoint_uri_error("HTTP", "https://[::1]:8080/x") is None
    assert endpoint_uri_error("HTTP", "https://[::1:8080/x") is not None


@pytest.mark.parametrize(
    ("value", "absolute", "reference"),
    [
        ("https://example.com/a?b=c#d", True, True),
        ("urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66", True, True),
        ("#/definitionGroups/a", False, True),
        ("/definitionGroups/a", False, True),
        ("../x", False, True),
        ("https://example.com/a b", False, False),
        ("https://example.com/%zz", False, False),
        ("https://example.com/{x}", False, False),
        ("https://exämple.com", False, False),
        ("1x:y", False, False),
        ("a#b#c", False, False),
        ("", False, False),
        (5, False, False),
    ],
)
def test_uri_grammar(value, absolute, reference):
    assert is_absolute_uri(value) is absolute
    assert is_uri_reference(value) is reference


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("2030-12-19T00:00:00-00:00", True),  # spec, deprecated example
        ("2030-12-19t00:00:00z", True),
        ("2030-12-19T23:59:60Z", True),  # leap second
        ("2030-12-19T00:00:00.123456789+05:30", True),
        ("2030-12-19 00:00:00Z", False),
        ("2030-12-19T00:00Z", False),
        ("2030-13-01T00:00:00Z", False),
        ("2030-12-19T00:00:00+24:00", False),
        ("2030-12-19T00:00:00", False),
        ("", False),
    ],
)
def test_rfc3339(value, valid):
    assert (parse_rfc3339(value) is not None) is valid


# -------------------------------------------------------------------------------------- references

BASE = "https://registry.example.com/reg"


@pytest.mark.parametrize(
    ("refs", "base", "ids", "n_errors"),
    [
        (["#/definitionGroups/a", "#/definitionGroups/b"], None, ["a", "b"], 0),
        (["#/definitionGroups/a", "#/definitionGroups/a"], None, ["a"], 0),
        ([f"{BASE}/definitionGroups/a", f"{BASE}/definitionGroups/b/"], BASE, ["a", "b"], 0),
        ([f"{BASE}/definitionGroups/a"], BASE + "/", ["a"], 0),
        (["HTTPS://Registry.Example.com:443/reg/definitionGroups/a"], BASE, ["a"], 0),
        # spec, definitionGroups example: another registry (or, with its base URL, ours in lower case)
        (["https://example.com/registry/definitiongroups/mygroup"], BASE, [], 0),
        (["https://example.com/registry/definitiongroups/mygroup"], "https://example.com/registry", ["mygroup"], 0),
        ([f"{BASE}/definitionGroups/a"], None, [], 0),  # without a base URL an absolute URL is external
        (
            [
                "https://other.example.com/reg/definitionGroups/a",
                "https://registry.example.com/other/definitionGroups/a",
            ],
            BASE,
            [],
            0,
        ),
        (["/reg/definitionGroups/a"], BASE, ["a"], 0),
        (["/definitionGroups/a"], None, ["a"], 0),
        (["#/definitionGroups/"], None, [], 1),
        (["#/definitionGroups/a/definitions/b"], None, [], 1),
        (["#/definitionGroups/a:Name"], None, [], 1),
        (["#/schemaGroups/a"], None, [], 1),
        ([f"{BASE}/definitionGroups/a/definitions/d"], BASE, [], 1),
        ([f"{BASE}/definitionGroups/a?x=1"], BASE, [], 1),
        ([f"{BASE}/definitionGroups/" + "x" * 129], BASE, [], 1),
        ([None, 5, "", {"a": 1}], BASE, [], 4),
        (["not a uri"], BASE, [], 1),
    ],
)
def test_definition_group_ids(refs, base, ids, n_errors):
    found, errors = definition_group_ids({"definitionGroups": refs}, base)
    assert found == ids
    assert len(errors) == n_errors, errors
    assert all(e.startswith("definitionGroups[") for e in errors)


@pytest.mark.parametrize("attributes", [{}, {"definitionGroups": None}, None, [], "x", {"definitionGroups": {}}])
def test_definition_group_ids_never_raises(attributes):
    ids, errors = definition_group_ids(attributes, BASE)
    assert ids == []
    assert errors in ([], ["definitionGroups must be an array of URI-references"])


# --------------------------------------------------------------------------------- any JSON shape

SHAPES = [None, True, 0, -1, 1.5, "", "x", [], [None], {}, {"": None}, {"a": [1, {"b": None}]}]


@pytest.mark.parametrize("shape", SHAPES, ids=[repr(s) for s in SHAPES])
def test_never_raises_on_any_shape(shape):
    for key in ("usage", "origin", "deprecated", "channel", "format", "config", "definitionGroups"):
        assert isinstance(validate_endpoint({"usage": "producer", key: shape}), list)
    for family in ("HTTP", "AMQP", "MQTT", "KAFKA", "NATS", "X"):
        config = {
            "protocol": family,
            "endpoints": [shape],
            "options": {name: shape for name in OPTIONS.get(family, {"x": 0})},
        }
        assert isinstance(validate_endpoint({"usage": "producer", "config": config}), list)
        config = {"protocol": family, "endpoints": shape, "options": shape, "strict": shape}
        assert isinstance(validate_endpoint({"usage": shape, "config": config}), list)
        headers = {"headers": [shape, {"name": shape, "value": shape}], "query": {"k": shape}}
        assert isinstance(validate_options(family, headers), list)
    assert isinstance(
        validate_endpoint(
            {"usage": "producer", "deprecated": {k: shape for k in ("effective", "removal", "alternative", "docs")}}
        ),
        list,
    )
    assert isinstance(definition_group_ids({"definitionGroups": [shape]}, BASE), tuple)


# ------------------------------------------------------------------------------------------ corpus


def corpus_endpoints():
    for path in documents("seed-shape", "*"):
        if path.name.endswith(".cereg"):
            document = json.loads(path.read_text())
        elif path.name.endswith(".cereg.yaml"):
            document = yaml.safe_load(path.read_text())
        else:
            continue
        groups = set(document.get("definitionGroups") or {})
        for eid, attributes in (document.get("endpoints") or {}).items():
            yield pytest.param(attributes, groups, id=f"{path.name}:{eid}")


CORPUS_ENDPOINTS = cases(corpus_endpoints)


@pytest.mark.corpus
def test_corpus_has_the_endpoints_the_readme_lists():
    # contoso-crm (1, JSON and YAML), contoso-erp (6), mqtt-sparkplugB (8), waterboiler (2)
    assert len(CORPUS_ENDPOINTS) == 18


@pytest.mark.corpus
@pytest.mark.parametrize(("attributes", "groups"), CORPUS_ENDPOINTS)
def test_every_corpus_endpoint_is_valid(attributes, groups):
    assert validate_endpoint(attributes) == []
    ids, errors = definition_group_ids(attributes, "https://registry.example.com")
    assert errors == []
    assert ids and set(ids) <= groups  # every local reference names a group of the same document
