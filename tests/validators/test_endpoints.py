"""Endpoint attributes and protocol options: spec examples, invalid cases, and every corpus endpoint."""
import json
from pathlib import Path

import pytest

from endpoints.validators.attributes import validate_endpoint
from endpoints.validators.references import definition_group_ids

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"

# configs quoted from the spec's protocol options sections
SPEC_CONFIGS = [
    {"protocol": "HTTP/1.1", "options": {"method": "POST", "headers": [{"name": "Content-Type", "value": "application/json"}],
                                         "query": {"operation": "send"}}},
    {"protocol": "AMQP/1.0", "options": {"node": "myqueue", "durable": True, "link-properties": {"a": "b"},
                                         "connection-properties": {"c": "d"}, "distribution-mode": "move"}},
    {"protocol": "MQTT/5.0", "options": {"topic": "mytopic", "qos": 1, "retain": False, "clean-session": False,
                                         "will-topic": "mytopic", "will-message": "#/definitionGroup/mygroup/definitions/x"}},
    {"protocol": "Kafka/2.0", "options": {"topic": "mytopic", "acks": 1, "key": "mykey"}},
    {"protocol": "NATS/1.0.0", "options": {"subject": "mysubject"}},
    {"protocol": "MQTT/3.1.1", "endpoints": ["mqtt://mqtt.example.com:1883"]},
]

INVALID = [
    ({"config": {"protocol": "HTTP"}}, "usage is required"),
    ({"usage": "reader"}, "usage must be one of"),
    ({"usage": "producer", "config": {}}, "config.protocol is required"),
    ({"usage": "producer", "config": {"protocol": "HTTP", "endpoints": ["ftp://x"]}}, "config.endpoints[0]"),
    ({"usage": "producer", "config": {"protocol": "HTTP", "endpoints": "https://x"}}, "config.endpoints must be an array"),
    ({"usage": "producer", "config": {"protocol": "AMQP", "endpoints": ["http://x"]}}, "not a valid URI for protocol AMQP"),
    ({"usage": "producer", "config": {"protocol": "MQTT/5.0", "options": {"qos": 3}}}, "config.options.qos"),
    ({"usage": "producer", "config": {"protocol": "AMQP/1.0", "options": {"durable": "yes"}}}, "config.options.durable"),
    ({"usage": "producer", "config": {"protocol": "AMQP/1.0", "options": {"distribution-mode": "clone"}}},
     "config.options.distribution-mode"),
    ({"usage": "producer", "config": {"protocol": "KAFKA", "options": {"acks": 5}}}, "config.options.acks"),
    ({"usage": "producer", "config": {"protocol": "NATS", "options": {"subject": "{bad"}}}, "config.options.subject"),
    ({"usage": "producer", "config": {"protocol": "HTTP", "strict": True, "options": {"verb": "POST"}}},
     "config.options.verb is not an option of HTTP"),
    ({"usage": "producer", "deprecated": {"effective": "2030-01-01T00:00:00Z", "removal": "2029-01-01T00:00:00Z"}},
     "deprecated.removal must not be before deprecated.effective"),
    ({"usage": "producer", "deprecated": {"effective": "soon"}}, "deprecated.effective must be an RFC 3339"),
    ({"usage": "producer", "format": "CloudEvents"}, "format"),
    ({"usage": "producer", "channel": 5}, "channel must be a string"),
]


@pytest.mark.parametrize("config", SPEC_CONFIGS, ids=[c["protocol"] for c in SPEC_CONFIGS])
def test_spec_configs_are_valid(config):
    assert validate_endpoint({"usage": "producer", "config": config}) == []


@pytest.mark.parametrize(("attributes", "expected"), INVALID, ids=[e for _a, e in INVALID])
def test_invalid_endpoints_name_the_attribute(attributes, expected):
    errors = validate_endpoint(attributes)
    assert any(expected in e for e in errors), errors


def test_unknown_options_pass_unless_strict_and_protocol_names_fold():
    config = {"protocol": "kafka", "options": {"linger-ms": 5}}
    assert validate_endpoint({"usage": "producer", "config": config}) == []
    assert validate_endpoint({"usage": "producer", "config": {**config, "strict": True}})
    assert validate_endpoint({"usage": "producer", "config": {"protocol": "BunnyMQ/0.9.1", "options": {"x": 1}}}) == []


def test_definition_group_references():
    attributes = {"definitionGroups": ["#/definitionGroups/a", "http://reg/definitionGroups/b",
                                       "https://other.example.com/definitionGroups/c", 5]}
    ids, errors = definition_group_ids(attributes, "http://reg")
    assert ids == ["a", "b"] and errors == ["definitionGroups[3] must be a non-empty URI-reference"]


def corpus_endpoints():
    for path in sorted((CORPUS / "seed-shape").glob("*.cereg")):
        for eid, endpoint in (json.loads(path.read_text()).get("endpoints") or {}).items():
            yield pytest.param(endpoint, id=f"{path.stem}:{eid}")


@pytest.mark.parametrize("endpoint", list(corpus_endpoints()))
def test_every_corpus_endpoint_is_valid(endpoint):
    assert validate_endpoint(endpoint) == []
