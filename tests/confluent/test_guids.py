"""Schema GUIDs (issue 41 item 2; docs/confluent.md, "Schema GUIDs"), as confluent-kafka's recent clients use them:
the `guid` of a registration's and a lookup's answer, `GET /schemas/guids/{guid}`, and a message framed with the GUID
(the serializer's `header_schema_id_serializer`, which writes it into a header) read back by the deserializer, which
asks this registry for the schema of the GUID. A GUID is stable per distinct content, as ids are, and never reused."""

from __future__ import annotations

import json
import uuid

import pytest
from confluent_kafka.schema_registry import Schema
from confluent_kafka.serialization import MessageField, SerializationContext

from confluent.models import SchemaId

pytestmark = pytest.mark.django_db(transaction=True)

V1 = {"type": "record", "name": "Reading", "fields": [{"name": "value", "type": "double"}]}
V2 = {
    "type": "record",
    "name": "Reading",
    "fields": [{"name": "value", "type": "double"}, {"name": "unit", "type": "string", "default": "C"}],
}


def test_guids_in_answers_and_by_guid(registry, http):
    first = registry.register_schema_full_response("readings-value", Schema(json.dumps(V1), "AVRO"))
    assert uuid.UUID(first.guid)
    again = registry.register_schema_full_response("readings-value", Schema(json.dumps(V1), "AVRO"))
    assert again.guid == first.guid
    # the same content under another subject: the same id and GUID; another content: others
    other = registry.register_schema_full_response("copies-value", Schema(json.dumps(V1), "AVRO"))
    assert (other.schema_id, other.guid) == (first.schema_id, first.guid)
    second = registry.register_schema_full_response("readings-value", Schema(json.dumps(V2), "AVRO"))
    assert second.guid != first.guid and second.schema_id != first.schema_id
    assert registry.lookup_schema("readings-value", Schema(json.dumps(V1), "AVRO")).guid == first.guid
    assert http.get("/subjects/readings-value/versions/2").json()["guid"] == second.guid
    assert http.get(f"/schemas/ids/{second.schema_id}").json()["guid"] == second.guid

    by_guid = http.get(f"/schemas/guids/{first.guid}").json()
    assert by_guid["id"] == first.schema_id and json.loads(by_guid["schema"]) == V1
    assert json.loads(registry.get_schema_by_guid(second.guid).schema_str) == V2
    for unknown in (str(uuid.uuid4()), "not-a-guid"):
        answer = http.get(f"/schemas/guids/{unknown}")
        assert answer.status_code == 404 and answer.json()["error_code"] == 40403, answer.text
    assert SchemaId.objects.filter(guid=first.guid).count() == 1


def test_a_message_framed_with_the_guid_round_trips(registry):
    from confluent_kafka.schema_registry import header_schema_id_serializer
    from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer

    serializer = AvroSerializer(registry, json.dumps(V1), conf={"schema.id.serializer": header_schema_id_serializer})
    context = SerializationContext("readings", MessageField.VALUE, [])
    data = serializer({"value": 21.5}, context)
    [(_name, header)] = context.headers
    guid = uuid.UUID(bytes=header[1:17])  # the header: magic byte 1, then the GUID's 16 bytes
    assert str(guid) == registry.get_latest_version("readings-value").guid
    registry.clear_caches()  # the deserializer asks the registry for the GUID's schema
    assert AvroDeserializer(registry)(data, context) == {"value": 21.5}
