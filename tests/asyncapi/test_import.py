"""AsyncAPI import through `POST /registry/asyncapi` and `manage.py import_asyncapi`: real documents of the AsyncAPI
specification (2.6, 3.0 and 3.1, Kafka, MQTT, AMQP) and of the CloudEvents specification become endpoints, message groups,
messages and schemas that both bindings read; the same document again changes nothing; a moved `info.version`
makes schema versions, not new resources; a changed payload goes through the compatibility checks."""

import io
import json

import pytest
import yaml
from django.core.management import call_command

from registry.models import Group, OutboxEvent, Resource, Version
from tests.helpers import snapshot

from .conftest import REAL, document, get_json, post_asyncapi


@pytest.mark.parametrize("name", REAL)
def test_real_documents_import_and_import_again_unchanged(su, name):
    response = post_asyncapi(su, document(name), query="?prefix=" + name.removesuffix(".yml"))
    assert response.status_code == 200, response.content[:3000]
    report = response.json()
    assert report["created"] and not report["updated"] and not report["unchanged"]
    groups = [p for p in report["created"] if p.count("/") == 2 and p.startswith("/messagegroups/")]
    assert groups, report
    events = OutboxEvent.objects.count()
    again = post_asyncapi(su, document(name), query="?prefix=" + name.removesuffix(".yml"))
    assert again.status_code == 200, again.content[:3000]
    second = again.json()
    assert second["created"] == second["updated"] == []
    assert sorted(second["unchanged"]) == sorted(report["created"])
    assert OutboxEvent.objects.count() == events  # no change event either


def test_streetlights_kafka_3_mapping(su):
    response = post_asyncapi(su, document("3.0-streetlights-kafka.yml"))
    assert response.status_code == 200, response.content
    prefix = "StreetlightsKafkaAPI"
    group = get_json(su, f"/registry/messagegroups/{prefix}.lightingMeasured?inline=messages")
    assert group["description"] == "The topic on which measured values may be produced and consumed."
    assert group["protocol"] == "KAFKA"
    message = group["messages"]["lightMeasured"]
    assert message["name"] == "Light measured"
    assert message["protocol"] == "KAFKA"
    assert (
        message["protocoloptions"]["topic"] == "smartylighting.streetlights.1.0.event.{streetlightId}.lighting.measured"
    )
    # with rc4's model default `required: false` serialized (issue 39 item 8)
    assert message["protocoloptions"]["headers"] == {
        "my-app-header": {"name": "my-app-header", "type": "integer", "required": False}
    }
    assert message["dataschemaformat"] == "JsonSchema/draft-07"
    assert message["dataschemauri"] == f"/schemagroups/{prefix}/schemas/lightMeasuredPayload"
    assert message["datacontenttype"] == "application/json"
    schema = get_json(su, f"/registry/schemagroups/{prefix}/schemas/lightMeasuredPayload/versions/1.0.0")
    # the $ref to #/components/schemas/sentAt is inlined: the stored schema stands alone
    assert schema["properties"]["sentAt"] == {
        "type": "string",
        "format": "date-time",
        "description": "Date and time when the message was sent.",
    }
    # the shared payload of turnOn and turnOff is one schema
    on = get_json(su, f"/registry/messagegroups/{prefix}.lightTurnOn/messages/turnOn")
    off = get_json(su, f"/registry/messagegroups/{prefix}.lightTurnOff/messages/turnOff")
    assert on["dataschemauri"] == off["dataschemauri"] == f"/schemagroups/{prefix}/schemas/turnOnOffPayload"
    endpoint = get_json(su, f"/registry/endpoints/{prefix}.scram-connections.consumer")
    assert endpoint["usage"] == ["consumer"]
    assert endpoint["protocol"] == "KAFKA"
    assert endpoint["endpoints"] == [{"uri": "SSL://test.mykafkacluster.org:18092"}]
    assert endpoint["messagegroups"] == [f"/messagegroups/{prefix}.lightingMeasured"]
    producer = get_json(su, f"/registry/endpoints/{prefix}.scram-connections.producer")
    assert len(producer["messagegroups"]) == 3
    # the same entities through the 0.5 binding
    definition = get_json(su, f"/definitionGroups/{prefix}.lightingMeasured/definitions/lightMeasured")
    assert definition["format"] == "Kafka/0.11"
    assert definition["schemaurl"] == f"#/schemaGroups/{prefix}/schemas/lightMeasuredPayload"


def test_streetlights_mqtt_2_6_mapping(su):
    response = post_asyncapi(su, document("2.6-streetlights-mqtt.yml"), query="?prefix=lights")
    assert response.status_code == 200, response.content
    gid = "lights.smartylighting.streetlights.1.0.event.streetlightId.lighting.measured"
    message = get_json(su, f"/registry/messagegroups/{gid}/messages/lightMeasured")
    assert message["protocol"] == "MQTT/5.0"
    options = message["protocoloptions"]
    assert options["topic_name"] == "smartylighting/streetlights/1/0/event/{streetlightId}/lighting/measured"
    assert options["qos"] == 1  # the operation's mqtt binding
    assert options["user_properties"] == [{"name": "my-app-header", "type": "integer"}]
    endpoint = get_json(su, "/registry/endpoints/lights.production.consumer")
    assert endpoint["protocol"] == "MQTT/5.0"
    assert endpoint["endpoints"] == [{"uri": "mqtt://test.mosquitto.org:1883"}]  # the variable's default
    # a 2.6 `publish` operation is the application receiving: a consumer endpoint
    assert f"/messagegroups/{gid}" in endpoint["messagegroups"]


def test_amqp_rpc_server_correlation_ids(su):
    response = post_asyncapi(su, document("3.0-rpc-server.yml"), query="?prefix=rpc")
    assert response.status_code == 200, response.content
    message = get_json(su, "/registry/messagegroups/rpc.rpc_queue/messages/sum")
    assert message["protocol"] == "AMQP/1.0"
    # with rc4's model defaults serialized (issue 39 item 8): `type` uritemplate, `required` false
    assert message["protocoloptions"]["properties"]["to"] == {
        "value": "rpc_queue",
        "type": "uritemplate",
        "required": False,
    }
    assert message["correlationid"] == {"location": "$message.header#/correlation_id"}
    endpoint = get_json(su, "/registry/endpoints/rpc.production.consumer")
    assert endpoint["endpoints"] == [{"uri": "amqp://rabbitmq.example.org"}]


def test_cloudevents_document_with_a_trait_beside_it(su, tmp_path):
    """The CloudEvents specification's AsyncAPI example: its messages are CloudEvents (the trait's `ce_` headers);
    the trait is a file beside the document (multipart upload), its attributes become the envelope's."""
    from .conftest import DOCUMENTS

    folder = DOCUMENTS / "cloudevents"
    with (
        open(folder / "light-switch-events-binary-kafka-local.yaml", "rb") as doc,
        open(folder / "cloudevents-headers-kafka-binary.yaml", "rb") as trait,
    ):
        response = su.post("/registry/asyncapi?prefix=ce", {"document": doc, "file": trait}, format="multipart")
    assert response.status_code == 200, response.content
    message = get_json(su, "/registry/messagegroups/ce.officeLightSwitchChanged/messages/lightSwitchChanged")
    assert message["envelope"] == "CloudEvents/1.0"
    attributes = message["envelopemetadata"]
    assert attributes["specversion"] == {
        "value": "1.0",
        "required": True,
        "description": attributes["specversion"]["description"],
    }
    assert attributes["type"]["required"] is True
    assert attributes["source"]["type"] == "urireference"
    assert attributes["time"]["type"] == "timestamp"
    assert set(attributes) == {"id", "source", "specversion", "type", "dataschema", "subject", "time"}
    assert "protocol" not in message  # no servers: no protocol
    schema = get_json(su, "/registry/schemagroups/ce/schemas/lightSwitchChanged.payload/versions/1.0.0")
    assert schema["properties"]["position"] == {"type": "string", "enum": ["ON", "OFF"]}


def test_command_dry_run_writes_nothing_then_imports(db, tmp_path):
    before = snapshot()
    out = io.StringIO()
    path = str(tmp_path / "streetlights.yml")
    (tmp_path / "streetlights.yml").write_bytes(document("3.0-streetlights-mqtt.yml"))
    call_command("import_asyncapi", path, "--dry-run", stdout=out)
    text = out.getvalue()
    assert "would create /messagegroups/StreetlightsMQTTAPI.lightingMeasured\n" in text
    assert text.rstrip().endswith("(dry run: nothing was written)")
    assert snapshot() == before
    out = io.StringIO()
    call_command("import_asyncapi", path, "--group-prefix", "city", stdout=out)
    assert out.getvalue().splitlines()[-1] == "total: created 21, updated 0, unchanged 0"
    assert Group.objects.filter(group_type="definitionGroups", gid="city.lightingMeasured").exists()


def test_a_moved_info_version_makes_schema_versions_not_resources(su):
    doc = yaml.safe_load(document("3.0-streetlights-kafka.yml"))
    assert post_asyncapi(su, doc, query="?prefix=k").status_code == 200
    resources = Resource.objects.count()
    # the same payloads under a new version: nothing new (a schema that did not change gets no version)
    doc["info"]["version"] = "1.1.0"
    response = post_asyncapi(su, doc, query="?prefix=k")
    assert response.status_code == 200 and not response.json()["created"], response.content
    # a payload that changes compatibly: a new version of that schema only
    doc["info"]["version"] = "1.2.0"
    doc["components"]["schemas"]["dimLightPayload"]["properties"]["note"] = {"type": "string"}
    response = post_asyncapi(su, doc, query="?prefix=k")
    assert response.status_code == 200, response.content
    assert response.json()["created"] == ["/schemagroups/k/schemas/dimLightPayload/versions/1.2.0"]
    assert Resource.objects.count() == resources
    assert sorted(Version.objects.filter(resource__rid="dimLightPayload").values_list("vid", flat=True)) == [
        "1.0.0",
        "1.2.0",
    ]


def test_a_breaking_payload_change_is_refused_with_the_usual_reasons(su):
    doc = yaml.safe_load(document("3.0-streetlights-kafka.yml"))
    assert post_asyncapi(su, doc, query="?prefix=k").status_code == 200
    before = snapshot()
    doc["info"]["version"] = "2.0.0"
    doc["components"]["schemas"]["dimLightPayload"]["properties"]["percentage"]["type"] = "string"
    response = post_asyncapi(su, doc, query="?prefix=k")
    # as any incompatible version is refused through the 1.0 binding (400 compatibility_violation)
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["type"].endswith("#compatibility_violation")
    error = body["errors"][0]
    assert error["path"] == "document#/components/schemas/dimLightPayload"
    assert error["entity"] == "/schemagroups/k/schemas/dimLightPayload/versions/2.0.0"
    assert error["schemapath"] == "properties.percentage"
    assert error["reason"] == "a reader using the new schema refuses values of type integer"
    assert snapshot() == before


def test_a_changed_document_updates_in_place_and_keeps_what_it_does_not_describe(su):
    """A new title of a message updates that message (no new resource); labels, documentation and a schema's
    compatibility level set through the API stay, since AsyncAPI does not describe them."""
    doc = yaml.safe_load(document("3.0-streetlights-kafka.yml"))
    assert post_asyncapi(su, doc, query="?prefix=k").status_code == 200
    group = get_json(su, "/registry/messagegroups/k.lightsDim")
    group["labels"] = {"team": "lighting"}
    response = su.put("/registry/messagegroups/k.lightsDim", data=json.dumps(group), content_type="application/json")
    assert response.status_code == 200, response.content
    response = su.put(
        "/registry/schemagroups/k/schemas/dimLightPayload/meta",
        data=json.dumps({"compatibility": "forward"}),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    resources = Resource.objects.count()
    doc["components"]["messages"]["dimLight"]["title"] = "Dim the light"
    response = post_asyncapi(su, doc, query="?prefix=k")
    assert response.status_code == 200, response.content
    report = response.json()
    assert report["created"] == []
    assert "/messagegroups/k.lightsDim/messages/dimLight" in report["updated"]
    assert Resource.objects.count() == resources
    assert get_json(su, "/registry/messagegroups/k.lightsDim/messages/dimLight")["name"] == "Dim the light"
    assert get_json(su, "/registry/messagegroups/k.lightsDim")["labels"] == {"team": "lighting"}
    assert get_json(su, "/registry/schemagroups/k/schemas/dimLightPayload/meta")["compatibility"] == "forward"


@pytest.mark.parametrize(
    "content_type", ["application/vnd.aai.asyncapi", "application/vnd.aai.asyncapi+yaml", "text/yaml", ""]
)
def test_media_types_of_a_yaml_document(su, content_type):
    response = su.generic("POST", "/registry/asyncapi?prefix=m", document("3.0-simple.yml"), content_type=content_type)
    assert response.status_code == 200, response.content
