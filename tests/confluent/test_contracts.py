"""Data contracts of schema versions (issue 41 item 1; docs/confluent.md, "Metadata and rule sets"): Confluent's
`metadata` and `ruleSet` registered, looked up and read through confluent-kafka's own SchemaRegistryClient against a
live server; the config's defaults, overrides and compatibility group; inheritance from the previous version; the
clients' own rule executors running the stored rules in their serializers (a CEL condition refusing a message, a
CEL_FIELD transform, a JSONata migration between two major versions kept apart by `compatibilityGroup`); every refusal
in Confluent's code with nothing written; and the same data as version attributes (`confluentmetadata`,
`confluentruleset`) in both xRegistry bindings, exported and imported unchanged, and on the admin's version page."""

from __future__ import annotations

import json

import pytest
from confluent_kafka.schema_registry import Schema
from confluent_kafka.schema_registry.schema_registry_client import (
    Metadata,
    MetadataProperties,
    MetadataTags,
    Rule,
    RuleKind,
    RuleMode,
    RuleSet,
    ServerConfig,
)
from confluent_kafka.serialization import MessageField, SerializationContext
from django.urls import reverse

from confluent.models import SchemaId, SubjectVersion
from registry.models import AuditRecord, Group, OutboxEvent, Resource, Version

pytestmark = pytest.mark.django_db(transaction=True)

TOPIC = "orders"
SUBJECT = "orders-value"
V1 = {
    "type": "record",
    "name": "Order",
    "namespace": "acme",
    "fields": [{"name": "id", "type": "string"}, {"name": "size", "type": "int"}],
}
V2 = {  # `size` renamed `height`: incompatible with V1 (no default), a new major version
    "type": "record",
    "name": "Order",
    "namespace": "acme",
    "fields": [{"name": "id", "type": "string"}, {"name": "height", "type": "int"}],
}
UP = "$merge([$sift($, function($v, $k) {$k != 'size'}), {'height': $.'size'}])"
DOWN = "$merge([$sift($, function($v, $k) {$k != 'height'}), {'size': $.'height'}])"


def rule(name, kind, mode, rule_type, expr, tags=None, on_failure=None) -> Rule:
    return Rule(name, None, kind, mode, rule_type, tags, None, expr, None, on_failure, False)


def props(**values) -> Metadata:
    return Metadata(None, MetadataProperties(values), None)


def state() -> tuple:
    """What a refused write must leave as it was."""
    return (
        Version.objects.count(),
        Resource.objects.count(),
        Group.objects.count(),
        SchemaId.objects.count(),
        AuditRecord.objects.count(),
        OutboxEvent.objects.count(),
        sorted(json.dumps(v, sort_keys=True) for v in Group.objects.values_list("extensions", flat=True)),
        sorted(json.dumps(v, sort_keys=True) for v in Resource.objects.values_list("extensions", flat=True)),
    )


def refused(response, status: int, code: int, *words: str) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["error_code"] == code, body
    for word in words:
        assert word in body["message"], body
    return body


def context() -> SerializationContext:
    return SerializationContext(TOPIC, MessageField.VALUE)


def test_register_lookup_and_read_with_metadata_and_rule_set(registry, http):
    metadata = Metadata(MetadataTags({"Order.id": ["PII", "PII", "KEY"]}), MetadataProperties({"owner": "shop"}), None)
    rules = RuleSet(None, [rule("checkSize", RuleKind.CONDITION, RuleMode.WRITE, "CEL", "message.size > 0")])
    schema = Schema(json.dumps(V1), "AVRO", [], metadata, rules)
    registered = registry.register_schema_full_response(SUBJECT, schema)
    assert registered.version == 1

    got = registry.get_version(SUBJECT, 1)
    assert got.schema.metadata.properties.properties == {"owner": "shop"}
    assert got.schema.metadata.tags.tags == {"Order.id": ["KEY", "PII"]}  # as Confluent holds them: sorted, once
    [stored] = got.schema.rule_set.domain_rules
    assert (stored.name, stored.kind, stored.mode, stored.type, stored.expr) == (
        "checkSize",
        RuleKind.CONDITION,
        RuleMode.WRITE,
        "CEL",
        "message.size > 0",
    )
    by_id = http.get(f"/schemas/ids/{registered.schema_id}").json()
    assert by_id["metadata"]["properties"] == {"owner": "shop"} and by_id["ruleSet"]["domainRules"][0]["name"] == (
        "checkSize"
    )
    found = registry.lookup_schema(SUBJECT, schema)
    assert (found.version, found.schema_id) == (1, registered.schema_id)

    # the same content again is the same version; the same text with another rule set is another schema (a new
    # version with a new id), as Confluent's ids
    assert registry.register_schema(SUBJECT, schema) == registered.schema_id
    other_rules = RuleSet(None, [rule("checkSize", RuleKind.CONDITION, RuleMode.WRITE, "CEL", "message.size > 1")])
    other = registry.register_schema_full_response(SUBJECT, Schema(json.dumps(V1), "AVRO", [], metadata, other_rules))
    assert other.version == 2 and other.schema_id != registered.schema_id
    # the subject's latest version carrying given metadata (GET /subjects/S/metadata)
    latest = registry.get_latest_with_metadata(SUBJECT, {"owner": "shop"})
    assert latest.version == 2
    refused(http.get(f"/subjects/{SUBJECT}/metadata", params={"key": "owner", "value": "else"}), 404, 40403)
    refused(http.get("/subjects/nothing/metadata", params={"key": "owner", "value": "shop"}), 404, 40401)


def test_a_registration_inherits_and_merges_defaults_and_overrides(registry, http):
    registry.set_config(
        SUBJECT,
        ServerConfig(
            default_metadata=props(owner="shop", tier="gold"),
            override_metadata=props(tier="platinum"),
            override_rule_set=RuleSet(None, [rule("mustHaveId", RuleKind.CONDITION, RuleMode.WRITE, "CEL", "true")]),
        ),
    )
    config = http.get(f"/config/{SUBJECT}").json()
    assert config["defaultMetadata"] == {"properties": {"owner": "shop", "tier": "gold"}}, config
    assert config["overrideRuleSet"]["domainRules"][0]["name"] == "mustHaveId"

    own = RuleSet(None, [rule("positive", RuleKind.CONDITION, RuleMode.WRITE, "CEL", "message.size > 0")])
    registry.register_schema(SUBJECT, Schema(json.dumps(V1), "AVRO", [], props(team="a"), own))
    first = registry.get_version(SUBJECT, 1).schema
    # the default under the registration's own, the override over both
    assert first.metadata.properties.properties == {"owner": "shop", "team": "a", "tier": "platinum"}
    assert [r.name for r in first.rule_set.domain_rules] == ["positive", "mustHaveId"]

    # a later version sent without metadata or rules inherits the previous version's
    later = dict(V1, doc="documented")
    registry.register_schema(SUBJECT, Schema(json.dumps(later), "AVRO"))
    second = registry.get_version(SUBJECT, 2).schema
    assert second.metadata.properties.properties == first.metadata.properties.properties
    assert [r.name for r in second.rule_set.domain_rules] == ["positive", "mustHaveId"]
    # sending the content as registered finds it (a lookup merges as a registration does)
    assert registry.lookup_schema(SUBJECT, Schema(json.dumps(later), "AVRO")).version == 2

    # deleting the subject's config removes every member, answering what it was
    old = http.delete(f"/config/{SUBJECT}").json()
    assert old["overrideMetadata"] == {"properties": {"tier": "platinum"}}
    assert http.get(f"/config/{SUBJECT}").json()["error_code"] == 40408


def test_config_members_through_both_bindings(registry, http, core):
    http.put("/config", json={"compatibilityGroup": "major", "normalize": True, "validateFields": False})
    assert http.get("/config").json() == {
        "compatibilityLevel": "BACKWARD_TRANSITIVE",
        "compatibilityGroup": "major",
        "normalize": True,
        "validateFields": False,
    }
    group = core.get("/registry/schemagroups/confluent").json()
    assert group["confluentcompatibilitygroup"] == "major" and group["confluentnormalize"] is True
    registry.register_schema(SUBJECT, Schema(json.dumps(V1), "AVRO"))
    answer = http.put(f"/config/{SUBJECT}", json={"compatibilityGroup": "app", "defaultMetadata": None})
    assert answer.status_code == 200 and answer.json() == {"compatibilityGroup": "app"}, answer.text
    meta = core.get(f"/registry/schemagroups/confluent/schemas/{SUBJECT}/meta").json()
    assert meta["confluentcompatibilitygroup"] == "app"
    # the config that applies to the subject: its own member over its context's
    assert http.get(f"/config/{SUBJECT}", params={"defaultToGlobal": "true"}).json() == {
        "compatibilityLevel": "BACKWARD_TRANSITIVE",
        "compatibilityGroup": "app",
        "normalize": True,
        "validateFields": False,
    }


def test_refusals_write_nothing(registry, http, core):
    registry.register_schema(SUBJECT, Schema(json.dumps(V1), "AVRO"))
    before = state()
    body = {"schema": json.dumps(V1)}
    bad_rules = [
        ({"domainRules": [{"name": "r", "type": "CEL", "mode": "UPGRADE"}]}, "domainRules[0].mode"),
        ({"migrationRules": [{"name": "r", "type": "JSONATA", "mode": "WRITE"}]}, "migrationRules[0].mode"),
        ({"domainRules": [{"name": "9r", "type": "CEL"}]}, "domainRules[0].name"),
        ({"domainRules": [{"name": "r"}]}, "domainRules[0].type"),
        ({"domainRules": [{"name": "r", "type": "CEL"}, {"name": "r", "type": "CEL"}]}, "domainRules[1].name"),
        ({"domainRules": [{"name": "r", "type": "CEL", "mode": "WRITE", "onFailure": "ERROR,NONE"}]}, "onFailure"),
        ({"domainRules": "CEL"}, "domainRules"),
    ]
    for rule_set, member in bad_rules:
        refused(http.post(f"/subjects/{SUBJECT}/versions", json={**body, "ruleSet": rule_set}), 422, 42210, member)
        refused(http.put(f"/config/{SUBJECT}", json={"defaultRuleSet": rule_set}), 422, 42210, member)
    for metadata, member in [
        ({"properties": {"a": 1}}, "metadata.properties"),
        ({"tags": {"x": "PII"}}, "metadata.tags.x"),
        ({"colour": "red"}, "metadata.colour"),
    ]:
        refused(http.post(f"/subjects/{SUBJECT}/versions", json={**body, "metadata": metadata}), 422, 42201, member)
    refused(http.put("/config", json={"overrideMetadata": {"sensitive": "x"}}), 422, 42201, "overrideMetadata")
    refused(http.put("/config", json={"normalize": "yes"}), 422, 422, "normalize")
    refused(http.put("/config", json={"compatibilityGroup": 3}), 422, 422, "compatibilityGroup")
    refused(http.put("/config", json={"alias": "other"}), 422, 422, "alias")
    refused(http.put("/config", json={"compatibility": "MOSTLY"}), 422, 42203)
    # the other doors refuse the attributes' other shapes too, naming them (400)
    version = f"/registry/schemagroups/confluent/schemas/{SUBJECT}/versions/1"
    put = core.patch(version + "$details", json={"confluentruleset": {"domainRules": [{"name": "r"}]}})
    assert put.status_code == 400 and "confluentruleset" in put.text, put.text
    put = core.patch(f"/registry/schemagroups/confluent/schemas/{SUBJECT}/meta", json={"confluentnormalize": 1})
    assert put.status_code == 400 and "confluentnormalize" in put.text, put.text
    assert state() == before


def test_a_cel_condition_refuses_a_bad_message_in_the_clients_serializer(registry):
    from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
    from confluent_kafka.schema_registry.rules.cel.cel_executor import CelExecutor
    from confluent_kafka.schema_registry.serde import RuleConditionError
    from confluent_kafka.serialization import SerializationError

    CelExecutor.register()
    condition = rule("positiveSize", RuleKind.CONDITION, RuleMode.WRITE, "CEL", "message.size > 0")
    registry.register_schema(SUBJECT, Schema(json.dumps(V1), "AVRO", [], None, RuleSet(None, [condition])))
    serializer = AvroSerializer(registry, None, conf={"auto.register.schemas": False, "use.latest.version": True})
    good = serializer({"id": "o-1", "size": 3}, context())
    assert AvroDeserializer(registry)(good, context()) == {"id": "o-1", "size": 3}
    with pytest.raises((RuleConditionError, SerializationError)) as refused_message:
        serializer({"id": "o-2", "size": 0}, context())
    error = refused_message.value
    assert any("message.size > 0" in str(e) for e in (error, error.__cause__, error.__context__) if e), repr(error)


def test_a_cel_field_transform_runs_in_the_clients_serializer(registry):
    from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
    from confluent_kafka.schema_registry.rules.cel.cel_field_executor import CelFieldExecutor

    CelFieldExecutor.register()
    transform = rule("suffix", RuleKind.TRANSFORM, RuleMode.WRITE, "CEL_FIELD", "name == 'id' ; value + '-checked'")
    registry.register_schema(SUBJECT, Schema(json.dumps(V1), "AVRO", [], None, RuleSet(None, [transform])))
    serializer = AvroSerializer(registry, None, conf={"auto.register.schemas": False, "use.latest.version": True})
    data = serializer({"id": "o-1", "size": 3}, context())
    assert AvroDeserializer(registry)(data, context()) == {"id": "o-1-checked", "size": 3}


def test_a_compatibility_group_and_a_jsonata_migration_across_major_versions(registry, http, core):
    """Version 2 is incompatible with version 1: refused while both are of one compatibility group; registered once
    the subject's `compatibilityGroup` keeps the majors apart. A producer still writing major 1 and a consumer reading
    major 2 (and the other way round) meet through the JSONata migration rules of version 2, which the clients'
    deserializer runs."""
    from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
    from confluent_kafka.schema_registry.rules.jsonata.jsonata_executor import JsonataExecutor

    JsonataExecutor.register()
    registry.register_schema(SUBJECT, Schema(json.dumps(V1), "AVRO", [], props(major="1")))
    migrations = RuleSet(
        [
            rule("up", RuleKind.TRANSFORM, RuleMode.UPGRADE, "JSONATA", UP),
            rule("down", RuleKind.TRANSFORM, RuleMode.DOWNGRADE, "JSONATA", DOWN),
        ],
        None,
    )
    v2 = Schema(json.dumps(V2), "AVRO", [], props(major="2"), migrations)
    before = state()
    assert not registry.test_compatibility_all_versions(SUBJECT, v2)
    refused(http.post(f"/subjects/{SUBJECT}/versions", json=v2.to_dict()), 409, 409, "incompatible")
    assert state() == before
    # the compatibility group, set as the clients set it (ServerConfig); the registry's other doors keep it apart too
    registry.set_config(SUBJECT, ServerConfig(compatibility_group="major"))
    assert registry.test_compatibility_all_versions(SUBJECT, v2)
    assert registry.register_schema_full_response(SUBJECT, v2).version == 2
    # within a major, compatibility still applies
    refused(
        http.post(f"/subjects/{SUBJECT}/versions", json={**v2.to_dict(), "schema": json.dumps(V1)}),
        409,
        409,
        "incompatible",
    )
    v1_reader = {"use.latest.with.metadata": {"major": "1"}}
    v2_reader = {"use.latest.with.metadata": {"major": "2"}}
    old_producer = AvroSerializer(registry, None, conf={"auto.register.schemas": False, **v1_reader})
    new_producer = AvroSerializer(registry, None, conf={"auto.register.schemas": False, **v2_reader})
    old_bytes = old_producer({"id": "o-1", "size": 7}, context())
    new_bytes = new_producer({"id": "o-2", "height": 9}, context())
    assert AvroDeserializer(registry, conf=v2_reader)(old_bytes, context()) == {"id": "o-1", "height": 7}
    assert AvroDeserializer(registry, conf=v1_reader)(new_bytes, context()) == {"id": "o-2", "size": 9}
    # through another door, a version of major 2 is compared with major 2 alone
    third = dict(V2, doc="v2, documented")
    created = core.post(
        f"/registry/schemagroups/confluent/schemas/{SUBJECT}/versions",
        json={"3": {"schema": third, "confluentmetadata": {"properties": {"major": "2"}}}},
    )
    assert created.status_code in (200, 201), created.text


def test_both_bindings_show_export_and_import_the_version_attributes(registry, http, core):
    metadata = Metadata(None, MetadataProperties({"owner": "shop"}), ["id"])
    rules = RuleSet(
        [rule("up", RuleKind.TRANSFORM, RuleMode.UPGRADE, "JSONATA", UP)],
        [rule("positive", RuleKind.CONDITION, RuleMode.WRITE, "CEL", "message.size > 0")],
    )
    registry.register_schema(SUBJECT, Schema(json.dumps(V1), "AVRO", [], metadata, rules))
    answered = http.get(f"/subjects/{SUBJECT}/versions/1").json()
    v10 = core.get(f"/registry/schemagroups/confluent/schemas/{SUBJECT}/versions/1$details").json()
    v05 = core.get(f"/schemaGroups/confluent/schemas/{SUBJECT}/versions/1?meta").json()
    for shown in (v10, v05):
        assert shown["confluentmetadata"] == answered["metadata"], shown
        assert shown["confluentruleset"] == answered["ruleSet"], shown
        assert "metadata" not in shown or shown["metadata"] != answered["metadata"]
    for door in ("0.5", "1.0"):
        if door == "1.0":
            document = core.get("/registry/export").content
        else:
            document = core.get("/", params={"inline": ""}, headers={"Accept": "application/cloudevents-registry+json"})
            document = document.content
        assert core.delete("/schemaGroups?force=true").status_code in (200, 204)
        if door == "1.0":
            imported = core.post("/registry/", content=document, headers={"Content-Type": "application/json"})
        else:
            imported = core.post(
                "/", content=document, headers={"Content-Type": "application/cloudevents-registry+json"}
            )
        assert imported.status_code in (200, 201), imported.text
        again = http.get(f"/subjects/{SUBJECT}/versions/1").json()
        assert again["metadata"] == answered["metadata"] and again["ruleSet"] == answered["ruleSet"], again
        # and the content is known: registering it again is the same version
        assert registry.register_schema_full_response(SUBJECT, Schema(json.dumps(V1), "AVRO", [], metadata, rules))
        assert SubjectVersion.objects.count() == 1


def test_the_admin_shows_the_rules_of_a_version(registry, admin_client):
    rules = RuleSet(None, [rule("positiveSize", RuleKind.CONDITION, RuleMode.WRITE, "CEL", "message.size > 0")])
    registry.register_schema(SUBJECT, Schema(json.dumps(V1), "AVRO", [], props(owner="shop"), rules))
    version = Version.objects.get(resource__rid=SUBJECT)
    page = admin_client.get(reverse("admin:catalog_schemaversion_change", args=[version.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "positiveSize" in html and "message.size &gt; 0" in html and "CONDITION" in html and "owner" in html
