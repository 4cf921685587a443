"""Topic–subject associations (issue 41 item 2; docs/confluent.md, "Associations") through confluent-kafka's own client:
`create_association`, `get_associations_by_resource_name` and `delete_associations`, and the serializers' default
subject name strategy, `AssociatedNameStrategy`, which asks this registry which subject holds a topic's schema (and
falls back to the topic's own subject without one). Associations are the attribute `confluentassociations` of the
subject's schema: both bindings show them, the owners rule them, the audit names who wrote them; refusals are
Confluent's codes with nothing written."""

from __future__ import annotations

import json

import pytest
from confluent_kafka.schema_registry import Schema
from confluent_kafka.schema_registry.schema_registry_client import (
    AssociationCreateOrUpdateInfo,
    AssociationCreateOrUpdateRequest,
)
from confluent_kafka.serialization import MessageField, SerializationContext

from registry.models import AuditRecord
from tests.confluent.test_contracts import refused, state

pytestmark = pytest.mark.django_db(transaction=True)

READING = {"type": "record", "name": "Reading", "fields": [{"name": "value", "type": "double"}]}


def request_for(topic: str, subject: str | None, **info) -> AssociationCreateOrUpdateRequest:
    return AssociationCreateOrUpdateRequest(
        resource_name=topic,
        resource_namespace="lkc-1",
        resource_id=f"id-{topic}",
        resource_type="topic",
        associations=[AssociationCreateOrUpdateInfo(subject=subject, association_type="value", **info)],
    )


def test_the_associated_name_strategy_reads_this_registry(registry, core):
    from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer

    registry.register_schema("sensor-readings", Schema(json.dumps(READING), "AVRO"))
    created = registry.create_association(request_for("readings", "sensor-readings"))
    assert created.associations[0].subject == "sensor-readings" and created.associations[0].lifecycle == "WEAK"
    [found] = registry.get_associations_by_resource_name("readings", "-", "topic", ["value"])
    assert (found.subject, found.resource_id, found.resource_namespace) == ("sensor-readings", "id-readings", "lkc-1")
    audit = AuditRecord.objects.order_by("pk").last()
    assert audit.path == "/schemaGroups/confluent/schemas/sensor-readings" and audit.actor == "carol"

    # the serializers' default strategy: the topic's associated subject, not `readings-value`
    context = SerializationContext("readings", MessageField.VALUE)
    serializer = AvroSerializer(registry, json.dumps(READING))
    data = serializer({"value": 1.5}, context)
    assert int.from_bytes(data[1:5], "big") == registry.get_latest_version("sensor-readings").schema_id
    assert AvroDeserializer(registry)(data, context) == {"value": 1.5}
    assert "readings-value" not in registry.get_subjects()
    # a topic without an association falls back to the topic's subject
    AvroSerializer(registry, json.dumps(READING))({"value": 2.0}, SerializationContext("other", MessageField.VALUE))
    assert "other-value" in registry.get_subjects()

    # both bindings show it, as the schema's attribute (1.0: in meta)
    meta = core.get("/registry/schemagroups/confluent/schemas/sensor-readings/meta").json()
    assert meta["confluentassociations"][0]["resourceName"] == "readings"

    # the subject cannot be deleted while it holds the topic's association; then the association goes, then it can
    refused(core.delete("/confluent/subjects/sensor-readings"), 409, 40904)
    registry.delete_associations("id-readings", "topic", ["value"])
    assert registry.get_associations_by_resource_name("readings", "-") == []
    assert core.delete("/confluent/subjects/sensor-readings").status_code == 200


def test_refusals_write_nothing(registry, http):
    registry.register_schema("sensor-readings", Schema(json.dumps(READING), "AVRO"))
    registry.register_schema("other-readings", Schema(json.dumps(READING), "AVRO"))
    registry.create_association(request_for("readings", "sensor-readings"))
    before = state()
    body = request_for("readings", "other-readings").to_dict()
    refused(http.post("/associations", json=body), 409, 40903, "id-readings")  # the topic's value has one
    refused(http.post("/associations", json=request_for("x", "nothing-here").to_dict()), 409, 40907)
    refused(http.post("/associations", json={**body, "resourceType": "table"}), 422, 42212, "resourceType")
    refused(http.post("/associations", json={**body, "resourceId": ""}), 422, 42212, "resourceId")
    refused(http.post("/associations", json={**body, "associations": []}), 422, 42212, "associations")
    weak_without_subject = request_for("y", None).to_dict()
    refused(http.post("/associations", json=weak_without_subject), 422, 42212, "subject")
    strong = request_for("y", "other-readings", lifecycle="STRONG").to_dict()
    refused(http.post("/associations", json=strong), 422, 42212, "subject")
    refused(http.delete("/associations/resources/id-nothing"), 404, 40410)
    assert state() == before
