"""The registry enforces a schema version's data contract in its own message checks (issue 41 item 4;
docs/data-contracts.md, "The registry enforces the same contracts"): `validate` on a definition whose `schemaurl`
names a version registered through /confluent with a rule set runs its CEL and CEL_FIELD rules as confluent-kafka's
serializers run them (Avro, JSON Schema, Protobuf), names the rule that refused a message and why, writes nothing,
and stays within the check's budget; `manage.py validate_messages` runs the same rules."""

from __future__ import annotations

import base64
import json

import pytest
from confluent_kafka.schema_registry import Schema
from confluent_kafka.schema_registry.schema_registry_client import Metadata, MetadataTags, RuleSet
from django.core.management import call_command

from tests.confluent.test_contracts import state
from tests.helpers import cache_use, definition, make_definition_group, post_definition

pytestmark = pytest.mark.django_db(transaction=True)

ORDER = {
    "type": "record",
    "name": "Order",
    "namespace": "acme",
    "fields": [
        {"name": "id", "type": "string"},
        {"name": "size", "type": "int"},
        {"name": "email", "type": "string"},
        {"name": "items", "type": {"type": "array", "items": "int"}, "default": []},
    ],
}
POSITIVE = {"name": "positiveSize", "kind": "CONDITION", "mode": "WRITE", "type": "CEL", "expr": "message.size > 0"}
EMAIL = {
    "name": "piiIsAnEmail",
    "kind": "CONDITION",
    "mode": "WRITE",
    "type": "CEL_FIELD",
    "tags": ["PII"],
    "expr": "typeName == 'STRING' ; value.contains('@')",
    "doc": "a PII field holds an email address",
}


def rules(*items: dict, enable_at=None) -> RuleSet:
    return RuleSet.from_dict({"domainRules": list(items), **({"enableAt": enable_at} if enable_at else {})})


def define(client, subject: str, schemaformat="Avro/1.11.0", group: str = "shop", did: str = "order"):
    """A definition whose data is subject's version 1 (the schema `subject` of the default context's group)."""
    if client.get(f"/definitionGroups/{group}").status_code == 404:
        make_definition_group(client, group)
    url = f"/schemaGroups/confluent/schemas/{subject}/versions/1"
    doc = definition("acme.order", schemaformat=schemaformat, schemaurl=url)
    post_definition(client, group, did, doc)
    return f"/definitionGroups/{group}/definitions/{did}/validate"


def event(data=None, **members) -> dict:
    out = {"specversion": "1.0", "type": "acme.order", "id": "1", "source": "/shop", **members}
    if data is not None:
        out["data"] = data
    return out


def validate(client, path: str, message: dict) -> dict:
    response = client.generic("POST", path, json.dumps(message), content_type="application/cloudevents+json")
    assert response.status_code == 200, response.content
    return response.json()


def order(**changes) -> dict:
    return {"id": "o-1", "size": 3, "email": "ada@example.com", "items": [1, 2], **changes}


def avro_subject(registry, subject="orders-value", rule_set=None, tags=None):
    metadata = Metadata(MetadataTags(tags), None, None) if tags else None
    registry.register_schema(subject, Schema(json.dumps(ORDER), "AVRO", [], metadata, rule_set))


def test_a_cel_condition_refuses_a_message_naming_the_rule(registry, admin_client):
    avro_subject(registry, rule_set=rules(POSITIVE))
    path = define(admin_client, "orders-value")
    assert validate(admin_client, path, event(order())) == {
        "valid": True,
        "errors": [],
        "definition": "/definitionGroups/shop/definitions/order",
    }
    before = state()
    looked_up, _entries = cache_use("cel_programs")
    verdict = validate(admin_client, path, event(order(size=0)))
    assert state() == before  # a check writes nothing
    now, entries = cache_use("cel_programs")  # the rule's compiled program, kept by expression and schema
    assert now > looked_up and entries >= 1
    assert verdict["valid"] is False
    [error] = verdict["errors"]
    assert error["path"] == "data"
    assert error["rule"] == {
        "name": "positiveSize",
        "type": "CEL",
        "kind": "CONDITION",
        "mode": "WRITE",
        "expr": "message.size > 0",
        "side": "producer",
    }
    assert "refused by rule positiveSize" in error["reason"] and "'message.size > 0' is false" in error["reason"]
    # the xRegistry 1.0 binding's door runs the same check
    in_10 = validate(admin_client, "/registry/messagegroups/shop/messages/order/validate", event(order(size=0)))
    assert in_10["errors"] == [error] and in_10["definition"] == "/messagegroups/shop/messages/order"
    # the schema check comes first: data that is no Order is refused by it, the rules do not run on it
    verdict = validate(admin_client, path, event({"id": "o-1"}))
    assert verdict["valid"] is False and all("rule" not in e for e in verdict["errors"])


def test_a_cel_field_condition_on_tagged_fields(registry, admin_client):
    avro_subject(registry, rule_set=rules(EMAIL), tags={"acme.Order.email": ["PII"]})
    path = define(admin_client, "orders-value")
    assert validate(admin_client, path, event(order()))["valid"] is True
    verdict = validate(admin_client, path, event(order(email="nobody")))
    [error] = verdict["errors"]
    assert error["rule"]["name"] == "piiIsAnEmail" and error["rule"]["type"] == "CEL_FIELD"
    assert "on field acme.Order.email" in error["reason"] and "a PII field holds an email address" in error["reason"]
    # `id` is not tagged PII: the rule does not look at it
    assert validate(admin_client, path, event(order(id="no-at-sign")))["valid"] is True


def test_a_write_transform_runs_before_the_conditions_and_read_rules_run_after(registry, admin_client):
    trim = {"name": "atLeastOne", "kind": "TRANSFORM", "mode": "WRITE", "type": "CEL",
            "expr": "message.size > 0 ? message : {'id': message.id, 'size': 1, 'email': message.email, 'items': message.items}"}  # fmt: skip
    read = {"name": "smallOnRead", "kind": "CONDITION", "mode": "READ", "type": "CEL", "expr": "message.size < 10"}
    avro_subject(registry, rule_set=rules(trim, POSITIVE, read))
    path = define(admin_client, "orders-value")
    assert validate(admin_client, path, event(order(size=0)))["valid"] is True  # made 1 by the transform
    verdict = validate(admin_client, path, event(order(size=12)))
    [error] = verdict["errors"]
    assert error["rule"]["name"] == "smallOnRead" and error["rule"]["side"] == "consumer"
    assert "a consumer refuses it" in error["reason"]


def test_what_the_clients_let_pass_and_what_is_not_run_here(registry, admin_client):
    lenient = {**POSITIVE, "name": "lenient", "onFailure": "NONE"}
    encrypt = {"name": "encryptPii", "kind": "TRANSFORM", "mode": "WRITEREAD", "type": "ENCRYPT", "tags": ["PII"]}
    off = {**POSITIVE, "name": "off", "disabled": True}
    avro_subject(registry, rule_set=rules(lenient, encrypt, off))
    path = define(admin_client, "orders-value")
    verdict = validate(admin_client, path, event(order(size=0)))
    assert verdict["valid"] is True
    notes = " ".join(verdict["notes"])
    assert (
        "rule lenient: the condition 'message.size > 0' is false; its onFailure NONE lets the producer go on" in notes
    )
    assert "encryptPii (ENCRYPT)" in notes and "off" not in notes
    # a rule set enabled at the clients only is theirs
    avro_subject(registry, "clients-value", rule_set=rules(POSITIVE, enable_at="CLIENT"))
    path = define(admin_client, "clients-value", did="clients")
    verdict = validate(admin_client, path, event(order(size=0)))
    assert verdict["valid"] is True and "enabled at CLIENT only" in verdict["notes"][0]


def test_an_expression_that_fails_refuses_as_in_the_clients(registry, admin_client):
    broken = {"name": "noSuchField", "kind": "CONDITION", "mode": "WRITE", "type": "CEL", "expr": "message.nope > 1"}
    avro_subject(registry, rule_set=rules(broken))
    path = define(admin_client, "orders-value")
    [error] = validate(admin_client, path, event(order()))["errors"]
    assert error["rule"]["name"] == "noSuchField" and "its expression failed on this message" in error["reason"]


def test_json_schema_rules_with_inline_tags(registry, admin_client):
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Order",
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "size": {"type": "integer"},
            "email": {"type": "string", "confluent:tags": ["PII"]},
        },
        "required": ["id", "size"],
    }
    registry.register_schema("json-orders-value", Schema(json.dumps(schema), "JSON", [], None, rules(POSITIVE, EMAIL)))
    path = define(admin_client, "json-orders-value", "JsonSchema/draft-07")
    assert validate(admin_client, path, event({"id": "o", "size": 1, "email": "a@b"}))["valid"] is True
    [error] = validate(admin_client, path, event({"id": "o", "size": 1, "email": "ab"}))["errors"]
    assert error["rule"]["name"] == "piiIsAnEmail"
    [error] = validate(admin_client, path, event({"id": "o", "size": 0, "email": "a@b"}))["errors"]
    assert error["rule"]["name"] == "positiveSize"


def test_protobuf_rules_on_the_binary_encoding(registry, admin_client):
    proto = 'syntax = "proto3";\npackage acme;\n\nmessage Order {\n  string id = 1;\n  int32 size = 2;\n}\n'
    registry.register_schema("proto-orders-value", Schema(proto, "PROTOBUF", [], None, rules(POSITIVE)))
    path = define(admin_client, "proto-orders-value", "Protobuf/3")

    def encoded(size: int) -> str:  # field 1 (string "o"), field 2 (varint)
        return base64.b64encode(b"\x0a\x01o" + (b"\x10" + bytes([size]) if size else b"")).decode()

    message = event(data_base64=encoded(2), datacontenttype="application/protobuf")
    assert validate(admin_client, path, message)["valid"] is True
    [error] = validate(admin_client, path, {**message, "data_base64": encoded(0)})["errors"]
    assert error["rule"]["name"] == "positiveSize"


def test_avro_binary_data_is_read_for_the_rules(registry, admin_client):
    import io

    import fastavro

    avro_subject(registry, rule_set=rules(POSITIVE))
    path = define(admin_client, "orders-value")

    def encoded(size: int) -> str:
        out = io.BytesIO()
        fastavro.schemaless_writer(out, fastavro.parse_schema(ORDER), order(size=size))
        return base64.b64encode(out.getvalue()).decode()

    message = event(data_base64=encoded(1), datacontenttype="application/avro")
    assert validate(admin_client, path, message)["valid"] is True
    [error] = validate(admin_client, path, {**message, "data_base64": encoded(0)})["errors"]
    assert error["rule"]["name"] == "positiveSize"


def test_a_costly_rule_stops_at_the_check_budget(registry, admin_client, settings):
    quadratic = {"name": "pairs", "kind": "CONDITION", "mode": "WRITE", "type": "CEL",
                 "expr": "message.items.all(x, message.items.all(y, x + y >= 0))"}  # fmt: skip
    avro_subject(registry, rule_set=rules(quadratic))
    path = define(admin_client, "orders-value")
    assert validate(admin_client, path, event(order(items=list(range(20)))))["valid"] is True
    settings.REGISTRY_CHECK_SECONDS = 0.2
    before = state()
    response = admin_client.generic(
        "POST", path, json.dumps(event(order(items=list(range(3000))))), content_type="application/cloudevents+json"
    )
    assert response.status_code == 503, response.content
    assert response.json()["budget"] == "REGISTRY_CHECK_SECONDS"
    assert state() == before


def test_validate_messages_runs_the_rules(registry, admin_client, tmp_path):
    avro_subject(registry, rule_set=rules(POSITIVE))
    define(admin_client, "orders-value")
    messages = tmp_path / "orders.jsonl"
    messages.write_text(json.dumps(event(order())) + "\n" + json.dumps(event(order(size=0))) + "\n")
    out = __import__("io").StringIO()
    with pytest.raises(SystemExit) as exit_code:
        call_command("validate_messages", str(messages), "--group", "shop", stdout=out)
    assert exit_code.value.code == 1
    assert "orders.jsonl:2: data: refused by rule positiveSize" in out.getvalue()


def migrating_subject(registry, http):
    """orders-value: V1 (size), then V2 (height) as major version 2 with JSONata rules both ways."""
    from tests.confluent.test_contracts import DOWN, UP, V1, V2

    http.put("/config/orders-value", json={"compatibilityGroup": "major"})
    registry.register_schema(
        "orders-value", Schema(json.dumps(V1), "AVRO", [], Metadata.from_dict({"properties": {"major": "1"}}))
    )
    migrations = RuleSet.from_dict(
        {
            "migrationRules": [
                {"name": "sizeToHeight", "kind": "TRANSFORM", "mode": "UPGRADE", "type": "JSONATA", "expr": UP},
                {"name": "heightToSize", "kind": "TRANSFORM", "mode": "DOWNGRADE", "type": "JSONATA", "expr": DOWN},
            ]
        }
    )
    metadata = Metadata.from_dict({"properties": {"major": "2"}})
    registry.register_schema("orders-value", Schema(json.dumps(V2), "AVRO", [], metadata, migrations))
    return "/schemaGroups/confluent/schemas/orders-value/versions/2/migrate"


def test_a_jsonata_migration_rule_dry_run_over_the_api(registry, http, admin_client):
    path = migrating_subject(registry, http)

    def run(body, status=200):
        response = admin_client.post(path, json.dumps(body), content_type="application/json")
        assert response.status_code == status, response.content
        return response.json()

    before = state()
    up = run({"message": {"id": "o-1", "size": 3}})
    assert up == {
        "mode": "UPGRADE",
        "rules": [{"name": "sizeToHeight", "expr": json.loads(json.dumps(up["rules"][0]["expr"]))}],
        "message": {"id": "o-1", "height": 3},
        "valid": True,
        "errors": [],
    }
    down = run({"message": {"id": "o-1", "height": 3}, "mode": "DOWNGRADE"})
    assert down["message"] == {"id": "o-1", "size": 3} and down["rules"][0]["name"] == "heightToSize"
    # an expression not stored yet, whose result is no V2 Order
    tried = run({"message": {"id": "o-1", "size": 3}, "expr": "$merge([$, {'extra': 1}])", "rule": "draft"})
    assert tried["valid"] is False and tried["rules"] == [{"name": "draft", "expr": "$merge([$, {'extra': 1}])"}]
    # refusals name the rule, or what is wrong; nothing is written
    failed = run({"message": {"id": "o-1"}, "expr": "$number('x') + ", "rule": "broken"}, 400)
    assert failed["rule"] == {"name": "broken", "expr": "$number('x') + "} and "broken" in failed["detail"]
    assert "no migration rule named 'nope'" in run({"message": {}, "rule": "nope"}, 404)["detail"]
    assert "runs on UPGRADE, not on DOWNGRADE" in run({"message": {}, "rule": "sizeToHeight", "mode": "DOWNGRADE"}, 400)["detail"]  # fmt: skip
    assert "not a member" in run({"message": {}, "rules": []}, 400)["detail"]
    assert "mode must be UPGRADE or DOWNGRADE" in run({"message": {}, "mode": ["UPGRADE"]}, 400)["detail"]
    assert (
        "no JSONATA migration rule"
        in admin_client.post(
            path.replace("versions/2", "versions/1"), json.dumps({"message": {}}), content_type="application/json"
        ).json()["detail"]
    )
    assert state() == before


def test_a_runaway_jsonata_expression_stops(registry, http, admin_client):
    path = migrating_subject(registry, http)

    def run(expr):
        body = {"message": {}, "expr": expr, "rule": "runaway"}
        return admin_client.post(path, json.dumps(body), content_type="application/json")

    before = state()
    # deep recursion: stopped at JSONATA_DEPTH nested evaluations, a 400 naming the rule
    response = run("($f := function($x) { $x > 100000 ? 0 : 1 + $f($x + 1) }; $f(0))")
    assert response.status_code == 400, response.content
    assert response.json()["rule"]["name"] == "runaway" and "Stack overflow" in response.json()["detail"]
    # an endless tail call (JSONata runs it in constant depth): stopped by the check's budget
    response = run("($f := function($x) { $f($x + 1) }; $f(0))")
    assert response.status_code == 503, response.content
    assert response.json()["budget"] == "REGISTRY_CHECK_SECONDS"
    assert state() == before


def test_a_migrated_message_larger_than_a_body_is_refused(registry, http, admin_client, settings):
    """A rule whose result is larger than the largest body the registry takes is a 400 naming it, not a huge answer."""
    path = migrating_subject(registry, http)
    settings.REGISTRY_MAX_BODY_BYTES = 1000
    before = state()
    body = {"message": {}, "expr": "[1..1000]", "rule": "ranges"}
    response = admin_client.post(path, json.dumps(body), content_type="application/json")
    assert response.status_code == 400, response.content
    assert response.json()["rule"]["name"] == "ranges" and "REGISTRY_MAX_BODY_BYTES" in response.json()["detail"]
    body["expr"] = "[1..10]"
    assert admin_client.post(path, json.dumps(body), content_type="application/json").json()["message"] == list(
        range(1, 11)
    )
    assert state() == before


def test_a_jsonata_migration_rule_dry_run_in_the_admin(registry, http, admin_client):
    from django.urls import reverse

    from registry.models import Version

    migrating_subject(registry, http)
    version = Version.objects.get(resource__rid="orders-value", vid="2")
    page = admin_client.get(reverse("admin:catalog_schemaversion_change", args=[version.pk])).content.decode()
    url = reverse("admin:catalog_schemaversion_migrate", args=[version.pk])
    assert "migration-dry-run-link" in page and url in page
    form = admin_client.get(url)
    assert form.status_code == 200 and "sizeToHeight" in form.content.decode()
    before = state()
    answer = admin_client.post(url, {"mode": "UPGRADE", "rule": "sizeToHeight", "message": '{"id": "o-1", "size": 3}'})
    html = answer.content.decode()
    assert answer.status_code == 200 and "migrated-message" in html
    assert "&quot;height&quot;: 3" in html and "fits" in html
    failed = admin_client.post(url, {"mode": "UPGRADE", "expr": "$number('x') +", "message": "{}"}).content.decode()
    assert "the migration rule expr failed on the message" in failed
    assert state() == before
    # a version without migration rules has no link
    first = Version.objects.get(resource__rid="orders-value", vid="1")
    page = admin_client.get(reverse("admin:catalog_schemaversion_change", args=[first.pk])).content.decode()
    assert "migration-dry-run-link" not in page


def test_the_admin_s_message_check_names_the_refusing_rule(registry, admin_client):
    from django.urls import reverse

    from registry.models import Resource

    avro_subject(registry, rule_set=rules(POSITIVE))
    define(admin_client, "orders-value")
    definition_pk = Resource.objects.get(rid="order").pk
    url = reverse("admin:catalog_definition_validate", args=[definition_pk])
    answer = admin_client.post(
        url, {"kind": "application/cloudevents+json", "message": json.dumps(event(order(size=0)))}
    )
    html = answer.content.decode()
    assert "refused by rule positiveSize" in html and "positiveSize: message.size &gt; 0" in html
