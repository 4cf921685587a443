"""Checks before shipping (docs/api-contract.md section 12, issue 15 item 1): a concrete message against a definition.

`POST /definitionGroups/G/definitions/D/validate` and `POST /definitionGroups/G/validate` over the demo registry
(catalog/demo: Contoso CRM with in-registry JSON Schemas, Watchkam with templates and required data fields, the
Avro light bulb, the Kafka wind generator), and definitions made here (inline schemas, external schemaurls).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from registry.documents.formats import parse_document
from registry.documents.imports import import_document
from registry.services import WriteContext
from tests.helpers import assert_problem, make_definition_group, make_group, post_definition, snapshot

DEMO = Path(__file__).resolve().parents[2] / "catalog" / "demo"
STRUCTURED = "application/cloudevents+json"
CRM = "/definitionGroups/Contoso.CRM.Events"
CUSTOMER_CREATED = f"{CRM}/definitions/Contoso.CRM.Events.CustomerCreated"
WATCHKAM = "/definitionGroups/Fabrikam.Watchkam"
MOTION = f"{WATCHKAM}/definitions/Fabrikam.Watchkam.MotionDetected"


@pytest.fixture
def demo(db):
    for name in (
        "contoso-crm.cereg",
        "watchkam-jsons07.cereg",
        "lightbulb-avro.cereg",
        "windgenerator-kafka-avro.cereg",
        "waterboiler-mqtt5-jsons07.cereg",
    ):
        import_document(WriteContext(user="demo"), parse_document((DEMO / name).read_bytes(), yaml_format=False))


def post(client, path, body, content_type=STRUCTURED):
    data = body if isinstance(body, bytes | str) else json.dumps(body)
    return client.generic("POST", path, data, content_type=content_type)


def customer_created(**changes):
    event = {
        "specversion": "1.0",
        "type": "Contoso.CRM.Events.CustomerCreated",
        "id": "c-1",
        "source": "/crm/customers",
        "time": "2024-05-01T10:00:00Z",
        "data": {"customerId": "42", "name": "Ada"},
    }
    event.update(changes)
    return {k: v for k, v in event.items() if v is not None}


def motion(**changes):
    event = {
        "specversion": "1.0",
        "type": "Fabrikam.Watchkam.MotionDetected",
        "id": "m-1",
        "source": "contoso/cam-7",
        "time": "2024-05-01T10:00:00Z",
        "subject": "motion-1",
        "data": {
            "tenantid": "contoso",
            "deviceid": "cam-7",
            "motionid": "m1",
            "location": "door",
            "time": 1714557600,
            "imageUrl": "https://example.com/1.jpg",
            "motionType": "person",
        },
    }
    event.update(changes)
    return {k: v for k, v in event.items() if v is not None}


def verdict(response, path: str) -> dict:
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["definition"] == path
    assert body["valid"] is (not body["errors"])
    return body


def error_paths(body) -> list[str]:
    return [e["path"] for e in body["errors"]]


# --- one definition -------------------------------------------------------------------------------------------


def test_matching_structured_event_is_valid_and_nothing_is_written(anon, demo):
    before = snapshot()
    body = verdict(post(anon, f"{CUSTOMER_CREATED}/validate", customer_created()), CUSTOMER_CREATED)
    assert body == {"valid": True, "errors": [], "definition": CUSTOMER_CREATED}
    body = verdict(post(anon, f"{MOTION}/validate", motion()), MOTION)
    assert body["valid"] is True, body
    assert snapshot() == before


@pytest.mark.parametrize(
    "changes, path",
    [
        ({"source": "/crm/orders"}, "metadata.source"),
        ({"time": "yesterday"}, "metadata.time"),
        ({"time": None}, "metadata.time"),
        ({"id": None}, "metadata.id"),
        ({"id": 7}, "metadata.id"),
        ({"specversion": "0.3"}, "metadata.specversion"),
        ({"data": {"customerId": 42, "name": "Ada"}}, "data.customerId"),
    ],
)
def test_one_thing_wrong_names_exactly_that_path(anon, demo, changes, path):
    body = verdict(post(anon, f"{CUSTOMER_CREATED}/validate", customer_created(**changes)), CUSTOMER_CREATED)
    assert body["valid"] is False
    assert error_paths(body) == [path], body
    assert all(e["reason"] for e in body["errors"])


def test_missing_required_data_field_names_it(anon, demo):
    event = motion()
    del event["data"]["motionid"]
    body = verdict(post(anon, f"{MOTION}/validate", event), MOTION)
    assert error_paths(body) == ["data.motionid"], body
    event = motion()
    event["data"]["time"] = "noon"
    assert error_paths(verdict(post(anon, f"{MOTION}/validate", event), MOTION)) == ["data.time"]


def test_template_values(anon, demo):
    # Watchkam's source is "{tenantid}/{deviceid}"
    assert verdict(post(anon, f"{MOTION}/validate", motion(source="fabrikam/cam-1")), MOTION)["valid"] is True
    body = verdict(post(anon, f"{MOTION}/validate", motion(source="just-one-segment")), MOTION)
    assert error_paths(body) == ["metadata.source"]
    assert "{tenantid}/{deviceid}" in body["errors"][0]["reason"]


def test_template_matching_in_a_definition_made_here(su, anon):
    make_definition_group(su, "orders")
    doc = {
        "format": "CloudEvents/1.0",
        "metadata": {
            "attributes": {
                "type": {"value": "com.example.order.created"},
                "source": {"value": "/{tenant}/orders"},
                "priority": {"type": "integer", "required": True},
                "region": {"value": "eu"},
            }
        },
        "schemaformat": "JsonSchema/draft-07",
        "schema": {
            "type": "object",
            "properties": {
                "orderId": {"type": "string"},
                "items": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string"}}}},
            },
            "required": ["orderId"],
        },
    }
    post_definition(su, "orders", "created", doc)
    path = "/definitionGroups/orders/definitions/created"
    event = {
        "specversion": "1.0",
        "type": "com.example.order.created",
        "id": "1",
        "source": "/contoso/orders",
        "priority": 3,
        "region": "eu",
        "data": {"orderId": "o-1", "items": [{"sku": "a"}]},
    }
    assert verdict(post(anon, f"{path}/validate", event), path)["valid"] is True
    assert error_paths(verdict(post(anon, f"{path}/validate", {**event, "source": "/contoso/invoices"}), path)) == [
        "metadata.source"
    ]
    assert error_paths(verdict(post(anon, f"{path}/validate", {**event, "source": "/a/b/orders"}), path)) == [
        "metadata.source"
    ]
    assert error_paths(verdict(post(anon, f"{path}/validate", {**event, "region": "us"}), path)) == ["metadata.region"]
    assert error_paths(verdict(post(anon, f"{path}/validate", {**event, "priority": "3"}), path)) == [
        "metadata.priority"
    ]
    no_priority = {k: v for k, v in event.items() if k != "priority"}
    assert error_paths(verdict(post(anon, f"{path}/validate", no_priority), path)) == ["metadata.priority"]
    nested = {**event, "data": {"orderId": "o-1", "items": [{"sku": "a"}, {"sku": 5}]}}
    assert error_paths(verdict(post(anon, f"{path}/validate", nested), path)) == ["data.items[1].sku"]
    # binary mode: ce- headers (text), the body is the data
    binary = {
        "headers": {
            "ce-specversion": "1.0",
            "ce-type": "com.example.order.created",
            "ce-id": "1",
            "ce-source": "/contoso/orders",
            "ce-priority": "3",
            "ce-region": "eu",
            "content-type": "application/json",
        },
        "body": {"orderId": "o-1"},
    }
    assert verdict(post(anon, f"{path}/validate", binary, "application/json"), path)["valid"] is True
    binary["body"] = {"orderId": 1}
    assert error_paths(verdict(post(anon, f"{path}/validate", binary, "application/json"), path)) == ["data.orderId"]
    # data_base64 holding JSON
    encoded = {**event, "data_base64": base64.b64encode(b'{"orderId": 2}').decode()}
    del encoded["data"]
    assert error_paths(verdict(post(anon, f"{path}/validate", encoded), path)) == ["data.orderId"]


def test_schema_outside_the_registry_is_a_note(su, anon):
    make_definition_group(su, "ext")
    doc = {
        "format": "CloudEvents/1.0",
        "metadata": {"attributes": {"type": {"value": "x.y"}}},
        "schemaformat": "JsonSchema/draft-07",
        "schemaurl": "https://schemas.example.com/x.json",
    }
    post_definition(su, "ext", "d", doc)
    path = "/definitionGroups/ext/definitions/d"
    event = {"specversion": "1.0", "type": "x.y", "id": "1", "source": "/s", "data": {"anything": 1}}
    body = verdict(post(anon, f"{path}/validate", event), path)
    assert body["valid"] is True
    assert body["notes"] == ["data not checked: schema https://schemas.example.com/x.json is outside this registry"]


LUMEN = "/definitionGroups/Fabrikam.Lumen/definitions/Fabrikam.Lumen.TurnedOn"
LUMEN_DATA = {
    "tenantid": "t",
    "deviceid": "d",
    "switchSource": "AppSwitch",
    "brightness": 800,
    "color": "#ffffff",
    "colorTemperature": 2700,
    "powerConsumption": 8.5,
}


def lumen(**changes):
    event = {
        "specversion": "1.0",
        "type": "Fabrikam.Lumen.TurnedOn",
        "id": "1",
        "source": "t/d",
        "time": "2024-05-01T10:00:00Z",
        "datacontenttype": "application/json",
        "data": dict(LUMEN_DATA),
    }
    event.update(changes)
    return {k: v for k, v in event.items() if v is not None}


def test_avro_data_json(anon, demo):
    assert verdict(post(anon, f"{LUMEN}/validate", lumen()), LUMEN)["valid"] is True
    body = verdict(post(anon, f"{LUMEN}/validate", lumen(data={**LUMEN_DATA, "brightness": "bright"})), LUMEN)
    assert error_paths(body) == ["data.brightness"], body
    assert "int" in body["errors"][0]["reason"]
    body = verdict(post(anon, f"{LUMEN}/validate", lumen(data={**LUMEN_DATA, "switchSource": "Clap"})), LUMEN)
    assert error_paths(body) == ["data.switchSource"], body


def test_avro_data_binary(anon, demo):
    import io

    import fastavro

    schema = json.loads(anon.get("/schemaGroups/Fabrikam.Lumen/schemas/Fabrikam.Lumen.TurnedOnEventData").content)
    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(schema), LUMEN_DATA)
    encoded = base64.b64encode(out.getvalue()).decode()
    # the definition declares datacontenttype application/json: the binary form is a metadata error only
    body = verdict(
        post(anon, f"{LUMEN}/validate", lumen(data=None, data_base64=encoded, datacontenttype="application/avro")),
        LUMEN,
    )
    assert error_paths(body) == ["metadata.datacontenttype"], body
    truncated = base64.b64encode(out.getvalue()[:5]).decode()
    body = verdict(
        post(anon, f"{LUMEN}/validate", lumen(data=None, data_base64=truncated, datacontenttype="application/avro")),
        LUMEN,
    )
    assert error_paths(body) == ["metadata.datacontenttype", "data"], body


def test_kafka_envelope(anon, demo):
    path = "/definitionGroups/WindGenerator.Events/definitions/WindGenerator.PowerOutputUpdate"
    envelope = {"headers": {"action": "powerOutput"}, "key": "gen-1", "topic": "wind"}
    body = verdict(post(anon, f"{path}/validate", envelope, "application/json"), path)
    assert "metadata.headers.action" not in error_paths(body), body
    envelope["headers"]["action"] = "statusChange"
    assert "metadata.headers.action" in error_paths(
        verdict(post(anon, f"{path}/validate", envelope, "application/json"), path)
    )


def test_mqtt_envelope(anon, demo):
    path = "/definitionGroups/WaterBoiler.Events/definitions/WaterBoiler.TemperatureUpdate"
    envelope = {"topic-name": "waterboiler/b1/temperature", "qos": 1, "retain": False, "body": {}}
    body = verdict(post(anon, f"{path}/validate", envelope, "application/json"), path)
    assert not [p for p in error_paths(body) if p.startswith("metadata")], body
    envelope.update({"topic-name": "waterboiler/b1/status", "qos": 2})
    assert sorted(
        p
        for p in error_paths(verdict(post(anon, f"{path}/validate", envelope, "application/json"), path))
        if p.startswith("metadata")
    ) == ["metadata.qos", "metadata.topic-name"]


# --- by type ----------------------------------------------------------------------------------------------------


def test_group_validate_picks_the_definition_by_type(anon, demo):
    before = snapshot()
    body = verdict(post(anon, f"{CRM}/validate", customer_created()), CUSTOMER_CREATED)
    assert body["valid"] is True
    updated = customer_created(type="Contoso.CRM.Events.CustomerUpdated")
    response = post(anon, f"{CRM}/validate", updated)
    assert response.json()["definition"] == f"{CRM}/definitions/Contoso.CRM.Events.CustomerUpdated"
    binary = {
        "headers": {
            "ce-type": "Contoso.CRM.Events.CustomerCreated",
            "ce-specversion": "1.0",
            "ce-id": "1",
            "ce-source": "/crm/customers",
            "ce-time": "2024-05-01T10:00:00Z",
        },
        "body": {"customerId": "1"},
    }
    assert verdict(post(anon, f"{CRM}/validate", binary, "application/json"), CUSTOMER_CREATED)["valid"] is True
    assert snapshot() == before


def test_group_validate_unknown_type_is_404_naming_it(anon, demo):
    assert_problem(post(anon, f"{CRM}/validate", customer_created(type="com.example.nope")), 404, "com.example.nope")
    assert_problem(post(anon, "/definitionGroups/none/validate", customer_created()), 404)
    assert_problem(post(anon, f"{CRM}/definitions/nope/validate", customer_created()), 404)


# --- bad input --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body, mention",
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "object"),
        (b'"text"', "object"),
        (b"", "required"),
    ],
)
def test_bad_input_is_400(anon, demo, body, mention):
    before = snapshot()
    assert_problem(post(anon, f"{CUSTOMER_CREATED}/validate", body), 400, mention)
    assert_problem(post(anon, f"{CRM}/validate", body, "application/json"), 400, mention)
    assert snapshot() == before


def test_unsupported_media_type_and_flags(anon, demo):
    assert_problem(post(anon, f"{CUSTOMER_CREATED}/validate", json.dumps(customer_created()), "text/plain"), 415)
    assert_problem(post(anon, f"{CUSTOMER_CREATED}/validate?inline", customer_created()), 400, "inline")


def test_huge_data_is_refused_quickly(anon, demo, settings):
    settings.REGISTRY_MAX_BODY_BYTES = 1024 * 1024
    event = customer_created(data={"customerId": "x" * (2 * 1024 * 1024)})
    assert_problem(post(anon, f"{CUSTOMER_CREATED}/validate", event), 413)


def test_reads_closed_need_authentication(anon, su, demo, settings):
    settings.REGISTRY_PUBLIC_READ = False
    assert post(anon, f"{CUSTOMER_CREATED}/validate", customer_created()).status_code in (401, 403)
    assert verdict(post(su, f"{CUSTOMER_CREATED}/validate", customer_created()), CUSTOMER_CREATED)["valid"]


def test_http_envelope(su, anon):
    make_group(su, "web", "definitionGroups", format="HTTP/1.1")
    doc = {
        "format": "HTTP/1.1",
        "metadata": {
            "method": "POST",
            "path": "/orders/{orderId}",
            "headers": [
                {"name": "X-Tenant", "value": "{tenant}", "required": True},
                {"name": "X-Kind", "value": "order"},
            ],
        },
        "schemaformat": "JsonSchema/draft-07",
        "schema": {"type": "object", "required": ["orderId"]},
    }
    post_definition(su, "web", "order", doc)
    path = "/definitionGroups/web/definitions/order"
    envelope = {
        "method": "POST",
        "path": "/orders/o-1",
        "headers": {"x-tenant": "contoso", "X-Kind": "order"},
        "body": {"orderId": "o-1"},
    }
    assert verdict(post(anon, f"{path}/validate", envelope, "application/json"), path)["valid"] is True
    wrong = {**envelope, "method": "GET", "headers": {"X-Kind": "order"}, "body": {}}
    assert sorted(error_paths(verdict(post(anon, f"{path}/validate", wrong, "application/json"), path))) == [
        "data.orderId",
        "metadata.headers.X-Tenant",
        "metadata.method",
    ]
    structured = post(anon, f"{path}/validate", {"specversion": "1.0", "type": "t", "id": "1", "source": "/s"})
    assert error_paths(verdict(structured, path)) == ["message"]


def test_compiled_validators_are_cached(anon, demo):
    from catalog.validators import message_json
    from registry.store.bounded_cache import CACHE_METRICS

    def counted():
        labels = {"cache": "message_json_validators"}
        return [CACHE_METRICS.get_sample_value(f"registry_cache_{n}_total", labels) or 0 for n in ("misses", "hits")]

    message_json._validators.clear()
    before = counted()
    for _ in range(3):
        verdict(post(anon, f"{CUSTOMER_CREATED}/validate", customer_created()), CUSTOMER_CREATED)
    assert [after - then for after, then in zip(counted(), before, strict=True)] == [1, 2]


# --- AMQP and NATS envelopes, and a schema whose references loop -------------------------------------------------

ORDER_SCHEMA = {"type": "object", "properties": {"orderId": {"type": "string"}}, "required": ["orderId"]}


def test_amqp_envelope(su, anon):
    make_group(su, "amqp", "definitionGroups", format="AMQP/1.0")
    doc = {
        "format": "AMQP/1.0",
        "metadata": {
            "properties": {"subject": {"value": "orders.created"}, "content-type": {"value": "application/json"}},
            "header": {"priority": {"type": "integer"}},
            "application-properties": {"tenant": {"required": True}},
        },
        "schemaformat": "JsonSchema/draft-07",
        "schema": ORDER_SCHEMA,
    }
    post_definition(su, "amqp", "created", doc)
    path = "/definitionGroups/amqp/definitions/created"
    envelope = {
        "properties": {"subject": "orders.created", "content-type": "application/json"},
        "header": {"priority": 4},
        "application-properties": {"tenant": "contoso"},
        "body": {"orderId": "o-1"},
    }
    before = snapshot()
    assert verdict(post(anon, f"{path}/validate", envelope, "application/json"), path)["valid"] is True
    wrong = json.loads(json.dumps(envelope))
    wrong["properties"]["subject"] = "orders.deleted"
    assert error_paths(verdict(post(anon, f"{path}/validate", wrong, "application/json"), path)) == [
        "metadata.properties.subject"
    ]
    wrong = json.loads(json.dumps(envelope))
    del wrong["application-properties"]["tenant"]
    assert error_paths(verdict(post(anon, f"{path}/validate", wrong, "application/json"), path)) == [
        "metadata.application-properties.tenant"
    ]
    wrong = {**envelope, "body": {"orderId": 7}}
    assert error_paths(verdict(post(anon, f"{path}/validate", wrong, "application/json"), path)) == ["data.orderId"]
    assert snapshot() == before


def test_nats_envelope(su, anon):
    make_group(su, "nats", "definitionGroups", format="NATS/1.0")
    doc = {
        "format": "NATS/1.0",
        "metadata": {"subject": {"value": "orders.{region}.created"}, "headers": {"tenant": {"required": True}}},
        "schemaformat": "JsonSchema/draft-07",
        "schema": ORDER_SCHEMA,
    }
    post_definition(su, "nats", "created", doc)
    path = "/definitionGroups/nats/definitions/created"
    envelope = {"subject": "orders.eu.created", "headers": {"tenant": "contoso"}, "body": {"orderId": "o-1"}}
    assert verdict(post(anon, f"{path}/validate", envelope, "application/json"), path)["valid"] is True
    assert error_paths(
        verdict(post(anon, f"{path}/validate", {**envelope, "subject": "orders.eu.deleted"}, "application/json"), path)
    ) == ["metadata.subject"]
    assert error_paths(
        verdict(post(anon, f"{path}/validate", {**envelope, "headers": {}}, "application/json"), path)
    ) == ["metadata.headers.tenant"]
    assert error_paths(verdict(post(anon, f"{path}/validate", {**envelope, "body": {}}, "application/json"), path)) == [
        "data.orderId"
    ]


def test_a_schema_whose_references_loop_answers_in_bounded_time(su, anon):
    """a JSON Schema whose $ref points at itself forever: a verdict, not a hang, and never a pass (issue 24: a
    check that could not run is an error marked unchecked)"""
    import time

    make_group(su, "loops")
    looping = json.dumps(
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"$ref": "#/definitions/a"}},
            "$ref": "#/definitions/a",
        }
    )
    response = su.generic(
        "POST",
        "/schemaGroups/loops/schemas",
        looping,
        content_type="application/json",
        headers={"Registry-id": "s", "Registry-format": "JsonSchema/draft-07"},
    )
    make_definition_group(su, "looped")
    doc = {
        "format": "CloudEvents/1.0",
        "metadata": {"attributes": {"type": {"value": "x.looped"}}},
        "schemaformat": "JsonSchema/draft-07",
        "schemaurl": "#/schemaGroups/loops/schemas/s",
    }
    post_definition(su, "looped", "d", doc)
    path = "/definitionGroups/looped/definitions/d"
    event = {"specversion": "1.0", "type": "x.looped", "id": "1", "source": "/s", "data": {"a": 1}}
    started = time.monotonic()
    body = verdict(post(anon, f"{path}/validate", event), path)
    assert time.monotonic() - started < 5
    if response.status_code == 201:  # stored: validating against it must end, as an unchecked error
        assert body["valid"] is False and body["errors"] and all(e.get("unchecked") for e in body["errors"]), body
    else:  # refused at write time: the definition's schema is not in the registry
        assert response.status_code == 400 and body.get("notes"), body


def test_avro_json_encoding_with_wrapped_unions(su, anon):
    """Avro's JSON encoding writes a union's value as {"type": value}; the plain form is taken as well"""
    make_definition_group(su, "avro")
    schema = {
        "type": "record",
        "name": "Order",
        "fields": [{"name": "id", "type": "string"}, {"name": "note", "type": ["null", "string"]}],
    }
    doc = {
        "format": "CloudEvents/1.0",
        "metadata": {"attributes": {"type": {"value": "x.order"}}},
        "schemaformat": "Avro/1.11",
        "schema": schema,
    }
    post_definition(su, "avro", "order", doc)
    path = "/definitionGroups/avro/definitions/order"
    event = {"specversion": "1.0", "type": "x.order", "id": "1", "source": "/s"}
    for data in ({"id": "o-1", "note": {"string": "gift"}}, {"id": "o-1", "note": "gift"}, {"id": "o-1", "note": None}):
        assert verdict(post(anon, f"{path}/validate", {**event, "data": data}), path)["valid"] is True, data
    for data in ({"id": "o-1", "note": {"string": 5}}, {"id": 1, "note": None}):
        assert verdict(post(anon, f"{path}/validate", {**event, "data": data}), path)["valid"] is False, data


# --- the same checks through the xRegistry 1.0 binding (docs/api-contract.md section 12) -----------------------

V1_CRM = "/registry/messagegroups/Contoso.CRM.Events"
V1_CUSTOMER_CREATED = f"{V1_CRM}/messages/Contoso.CRM.Events.CustomerCreated"


def test_the_10_binding_gives_the_same_verdict_in_its_names(anon, demo):
    before = snapshot()
    xid = V1_CUSTOMER_CREATED.removeprefix("/registry")
    assert verdict(post(anon, f"{V1_CUSTOMER_CREATED}/validate", customer_created()), xid) == {
        "valid": True,
        "errors": [],
        "definition": xid,
    }
    wrong = customer_created(source=None, data={"customerId": 42, "name": "Ada"})
    old = verdict(post(anon, f"{CUSTOMER_CREATED}/validate", wrong), CUSTOMER_CREATED)
    new = verdict(post(anon, f"{V1_CUSTOMER_CREATED}/validate", wrong), xid)
    assert old["valid"] is False and error_paths(new) == error_paths(old) and "metadata.source" in error_paths(new)
    picked = post(anon, f"{V1_CRM}/validate", customer_created(type="Contoso.CRM.Events.CustomerUpdated"))
    assert verdict(picked, "/messagegroups/Contoso.CRM.Events/messages/Contoso.CRM.Events.CustomerUpdated")
    assert snapshot() == before


def test_the_10_binding_answers_its_own_errors(anon, demo, settings):
    body = post(anon, f"{V1_CRM}/messages/nope/validate", customer_created()).json()
    assert body["type"].endswith("#not_found") and body["status"] == 404
    assert "/definitionGroups" not in body["detail"]
    body = post(anon, f"{V1_CRM}/validate", customer_created(type="com.example.nope")).json()
    assert body["status"] == 404 and "com.example.nope" in body["detail"]
    body = post(anon, f"{V1_CUSTOMER_CREATED}/validate", b"{not json").json()
    assert body["type"].endswith("#parsing_data") and body["status"] == 400
    settings.REGISTRY_PUBLIC_READ = False
    refused = post(anon, f"{V1_CUSTOMER_CREATED}/validate", customer_created())
    assert refused.status_code == 401 and refused["WWW-Authenticate"].startswith("Basic")
    get_user_model().objects.create_user("reader", "r@example.com", "secret")
    basic = base64.b64encode(b"reader:secret").decode()
    answer = anon.generic(
        "POST",
        f"{V1_CUSTOMER_CREATED}/validate",
        json.dumps(customer_created()),
        content_type=STRUCTURED,
        HTTP_AUTHORIZATION=f"Basic {basic}",
    )
    assert answer.status_code == 200 and answer.json()["valid"] is True
