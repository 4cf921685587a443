"""rc4's model defaults (issue 39 item 8): what the domain `model.json` files declare as `default` is shown by the
1.0 binding ("This value MUST be used to populate this attribute's value if one was not provided by a client ...
MUST be serialized in responses from servers", core/model.md), and never stored on the way: a 0.5 read of an entity
written without the option is unchanged, and writing back what a 1.0 read showed changes nothing."""

import json

import pytest

from registry.models import OutboxEvent, Version

from .conftest import post_json

MQTT5 = {"deployed": True, "qos": 0, "retain": False}


def put05(client, path, body):
    response = client.put(path, data=json.dumps(body), content_type="application/json")
    assert response.status_code in (200, 201), response.content[:1000]
    return response


SCHEMES = {"MQTT": "mqtt", "KAFKA": "kafka", "AMQP": "amqps", "HTTP": "https"}


def endpoint05(protocol, options=None, **extra):
    config = {"protocol": protocol, "endpoints": [f"{SCHEMES[protocol.split('/')[0]]}://broker.example.com:9092"]}
    if options is not None:
        config["options"] = options
    return {"usage": "producer", "config": config, **extra}


@pytest.mark.parametrize(
    "protocol, options, shown",
    [
        ("MQTT/5.0", {}, MQTT5),
        (
            "MQTT/3.1.1",
            {"topic": "t"},
            {"topic": "t", "deployed": True, "qos": 0, "retain": False, "cleansession": True},
        ),
        (
            "KAFKA",
            {"topic": "t"},
            {
                "topic": "t",
                "deployed": True,
                "acks": 1,
                "keyserializer": "org.apache.kafka.common.serialization.StringSerializer",
                "valueserializer": "org.apache.kafka.common.serialization.StringSerializer",
            },
        ),
        ("AMQP/1.0", {"node": "q"}, {"node": "q", "deployed": True, "durable": False, "distribution-mode": "move"}),
        ("HTTP", {}, {"deployed": True, "method": "POST", "apikeyin": "header", "plainscheme": "basic"}),
    ],
)
def test_endpoint_protocoloptions_defaults_shown_by_10_not_stored(writer, protocol, options, shown):
    put05(writer, "/endpoints/e1", endpoint05(protocol, options))
    before05 = writer.get("/endpoints/e1").json()
    assert before05["config"]["options"] == options  # the 0.5 read: what was written

    endpoint = writer.get("/registry/endpoints/e1").json()
    assert endpoint["protocoloptions"] == shown
    exported = writer.get("/registry/export").json()["endpoints"]["e1"]
    assert exported["protocoloptions"] == shown

    # what the 1.0 read showed, written back through 1.0 (PUT, PATCH, a document import): nothing stored changes
    body = {k: v for k, v in endpoint.items() if k not in ("self", "xid", "epoch", "createdat", "modifiedat")}
    assert post_json(writer, "/registry/endpoints/e1", body, "put").status_code == 200
    assert post_json(writer, "/registry/endpoints/e1", {"description": "d"}, "patch").status_code == 200
    assert writer.get("/endpoints/e1").json()["config"]["options"] == options
    events = OutboxEvent.objects.count()
    assert post_json(writer, "/registry/", writer.get("/registry/export").json()).status_code == 200
    assert OutboxEvent.objects.count() == events, "re-importing the export changed something"
    assert writer.get("/endpoints/e1").json()["config"]["options"] == options
    assert writer.get("/registry/endpoints/e1").json()["protocoloptions"] == shown


def test_endpoint_without_protocoloptions_shows_none(writer):
    """rc4: "An attribute with a default value does not mean that its owning Object is mandated to be present"."""
    put05(writer, "/endpoints/e1", endpoint05("MQTT/5.0"))
    assert "protocoloptions" not in writer.get("/registry/endpoints/e1").json()


def test_a_value_other_than_the_default_is_stored_and_shown_by_both(writer):
    response = post_json(
        writer,
        "/registry/endpoints/e1",
        {"usage": ["consumer"], "protocol": "MQTT/5.0", "protocoloptions": {"qos": 1}},
        "put",
    )
    assert response.status_code == 201, response.content
    assert writer.get("/endpoints/e1").json()["config"]["options"] == {"qos": 1}
    assert writer.get("/registry/endpoints/e1").json()["protocoloptions"] == {**MQTT5, "qos": 1}
    # an explicit default written for a new entity is kept as given (the 0.5 read shows it)
    response = post_json(
        writer,
        "/registry/endpoints/e2",
        {"usage": ["consumer"], "protocol": "MQTT/5.0", "protocoloptions": {"qos": 0}},
        "put",
    )
    assert response.status_code == 201, response.content
    assert writer.get("/endpoints/e2").json()["config"]["options"] == {"qos": 0}
    # and stays when written again
    post_json(writer, "/registry/endpoints/e2", writer.get("/registry/endpoints/e2").json(), "put")
    assert writer.get("/endpoints/e2").json()["config"]["options"] == {"qos": 0}


def test_envelopemetadata_and_header_required_defaults(writer):
    put05(writer, "/definitionGroups/g", {"format": "CloudEvents/1.0"})
    put05(
        writer,
        "/definitionGroups/g/definitions/ce",
        {
            "format": "CloudEvents/1.0",
            "metadata": {
                "attributes": {
                    "type": {"value": "com.example.a"},
                    "source": {"value": "/s"},
                    "time": {"required": True},
                    "partitionkey": {"value": "k"},
                }
            },
        },
    )
    stored05 = writer.get("/definitionGroups/g/definitions/ce").json()["metadata"]
    message = writer.get("/registry/messagegroups/g/messages/ce").json()
    assert message["envelopemetadata"] == {
        "type": {"value": "com.example.a", "type": "string", "required": True},
        "source": {"value": "/s", "type": "uritemplate", "required": True},
        "time": {"required": True, "type": "timestamp"},
        "partitionkey": {"value": "k", "type": "string", "required": False},  # `*`: any extension attribute
    }
    put05(writer, "/definitionGroups/k", {"format": "Kafka/0.11"})
    put05(
        writer,
        "/definitionGroups/k/definitions/m",
        {"format": "Kafka/0.11", "metadata": {"topic": {"value": "t"}, "headers": {"h": {"value": "v"}}}},
    )
    kafka = writer.get("/registry/messagegroups/k/messages/m").json()["protocoloptions"]
    assert kafka["headers"] == {"h": {"name": "h", "value": "v", "required": False}}

    # the 0.5 reads are what was written, also after the 1.0 export is imported again
    before = writer.get("/definitionGroups/k/definitions/m").json()
    versions = list(Version.objects.values_list("pk", "epoch"))
    assert post_json(writer, "/registry/", writer.get("/registry/export").json()).status_code == 200
    assert list(Version.objects.values_list("pk", "epoch")) == versions
    assert writer.get("/definitionGroups/g/definitions/ce").json()["metadata"] == stored05
    assert writer.get("/definitionGroups/k/definitions/m").json() == before
    assert "required" not in json.dumps(before)


def test_amqp_message_header_defaults(writer):
    assert post_json(writer, "/registry/messagegroups/a", {"protocol": "AMQP/1.0"}, "put").status_code == 201
    response = post_json(
        writer,
        "/registry/messagegroups/a/messages/m",
        {"protocol": "AMQP/1.0", "protocoloptions": {"header": {"priority": 7}}},
        "put",
    )
    assert response.status_code == 201, response.content
    shown = writer.get("/registry/messagegroups/a/messages/m").json()["protocoloptions"]
    assert shown["header"] == {"priority": 7, "durable": False, "first-acquirer": False, "delivery-count": 0}
    stored = {"header": {"priority": {"value": 7}}}  # 0.5's AMQP header fields are declarations
    assert writer.get("/definitionGroups/a/definitions/m").json()["metadata"] == stored
    # a PATCH of one attribute keeps the stored message as it was
    assert post_json(writer, "/registry/messagegroups/a/messages/m", {"description": "d"}, "patch").status_code == 200
    definition = writer.get("/definitionGroups/a/definitions/m").json()
    assert definition["metadata"] == stored and definition["description"] == "d"


def test_protocol_names_select_their_defaults_in_any_case(writer):
    """endpoint/spec.md `protocol`: "MUST be a non-empty case-insensitive string"."""
    body = {"usage": ["consumer"], "protocol": "mqtt/5.0", "protocoloptions": {"topic": "t"}}
    assert post_json(writer, "/registry/endpoints/e1", body, "put").status_code == 201
    assert writer.get("/registry/endpoints/e1").json()["protocoloptions"] == {"topic": "t", **MQTT5}
    body = {"usage": ["consumer"], "protocol": "NOT-A-PROTOCOL", "protocoloptions": {"topic": "t"}}
    assert post_json(writer, "/registry/endpoints/e2", body, "put").status_code == 201
    assert writer.get("/registry/endpoints/e2").json()["protocoloptions"] == {"topic": "t"}
