"""The Confluent API with confluent-kafka's own client against a live server: register, lookup, get by id,
versions, soft and permanent deletes, config, compatibility tests, modes (IMPORT with given ids), and the same
documents and change events through the other bindings."""

import httpx
import pytest
from confluent_kafka.schema_registry import Schema, SchemaReference
from confluent_kafka.schema_registry.error import SchemaRegistryError

from confluent.models import SchemaId
from registry.models import OutboxEvent, Resource, Version

pytestmark = pytest.mark.django_db(transaction=True)

USER = '{"type": "record", "name": "User", "fields": [{"name": "name", "type": "string"}]}'
USER_2 = (
    '{"type": "record", "name": "User", "fields": [{"name": "name", "type": "string"}, '
    '{"name": "age", "type": "int", "default": 0}]}'
)
USER_BAD = (
    '{"type": "record", "name": "User", "fields": [{"name": "name", "type": "string"}, '
    '{"name": "email", "type": "string"}]}'
)


def error_of(call) -> SchemaRegistryError:
    with pytest.raises(SchemaRegistryError) as info:
        call()
    return info.value


def test_register_lookup_and_get_by_id(registry, http, live_server):
    first = registry.register_schema("users-value", Schema(USER, "AVRO"))
    assert registry.register_schema("users-value", Schema(USER, "AVRO")) == first  # same content: same answer
    found = registry.lookup_schema("users-value", Schema(USER, "AVRO"))
    assert (found.schema_id, found.version, found.subject) == (first, 1, "users-value")
    assert registry.get_schema(first).schema_str == USER
    # the same text under another subject has the same id; new content a new id, and version 2
    assert registry.register_schema("people-value", Schema(USER, "AVRO")) == first
    second = registry.register_schema("users-value", Schema(USER_2, "AVRO"))
    assert second != first
    assert registry.get_versions("users-value") == [1, 2]
    latest = registry.get_latest_version("users-value")
    assert (latest.version, latest.schema_id, latest.schema.schema_str) == (2, second, USER_2)
    assert registry.get_version("users-value", 1).schema.schema_str == USER
    assert sorted(registry.get_subjects()) == ["people-value", "users-value"]
    assert registry.get_subjects_by_schema_id(first) == ["people-value", "users-value"]
    pairs = [(v.subject, v.version) for v in registry.get_schema_versions(first)]
    assert pairs == [("people-value", 1), ("users-value", 1)]
    assert registry.get_schema_types() == ["AVRO", "JSON", "PROTOBUF"]
    assert http.get("/subjects/users-value/versions/latest/schema").text == USER_2
    answer = http.get(f"/schemas/ids/{first}")
    assert answer.headers["content-type"] == "application/vnd.schemaregistry.v1+json"
    assert answer.json() == {"schema": USER, "guid": registry.get_version("users-value", 1).guid}
    # the same document through the xRegistry 1.0 and 0.5 bindings
    doc = httpx.get(f"{live_server.url}/registry/schemagroups/confluent/schemas/users-value/versions/2")
    assert doc.status_code == 200 and doc.content == USER_2.encode()
    assert doc.headers["xregistry-format"] == "Avro/1.11.0"
    assert httpx.get(f"{live_server.url}/schemaGroups/confluent/schemas/users-value").content == USER_2.encode()


def test_change_events_as_any_other_door(registry):
    registry.register_schema("orders-value", Schema(USER, "AVRO"))
    registry.register_schema("orders-value", Schema(USER_2, "AVRO"))
    assert sorted(OutboxEvent.objects.values_list("type", "subject")) == [
        ("io.cloudevents.schemaregistry.updated.v1", "/schemaGroups/confluent"),
        ("io.cloudevents.schemaregistry.updated.v1", "/schemaGroups/confluent/schemas/orders-value"),
        ("io.cloudevents.schemaregistry.updated.v1", "/schemaGroups/confluent/schemas/orders-value/versions/1"),
        ("io.cloudevents.schemaregistry.updated.v1", "/schemaGroups/confluent/schemas/orders-value/versions/2"),
    ]


def test_versions_written_elsewhere_get_numbers(registry, http, live_server, writer):
    """A schema created through the 1.0 binding (version ids of its own) is a subject with versions 1, 2."""
    auth = ("carol", "pw")
    base = f"{live_server.url}/registry/schemagroups/confluent"
    assert httpx.put(base, json={}, auth=auth).status_code in (200, 201)
    r = httpx.put(
        f"{base}/schemas/Telemetry/versions/v1.0",
        content=USER,
        auth=auth,
        headers={"xRegistry-format": "Avro/1.11.0", "Content-Type": "application/json"},
    )
    assert r.status_code == 201, r.text
    r = httpx.put(
        f"{base}/schemas/Telemetry/versions/v2.0",
        content=USER_2,
        auth=auth,
        headers={"xRegistry-format": "Avro/1.11.0", "Content-Type": "application/json"},
    )
    assert r.status_code == 201, r.text
    assert registry.get_versions("Telemetry") == [1, 2]
    assert registry.get_version("Telemetry", 2).schema.schema_str == USER_2
    # registered here afterwards: version 3, and the first content keeps one id across subjects
    third = '{"type": "record", "name": "User", "fields": []}'
    assert registry.register_schema_full_response("Telemetry", Schema(third, "AVRO")).version == 3
    assert registry.register_schema("copy", Schema(USER, "AVRO")) == registry.get_version("Telemetry", 1).schema_id


def test_soft_then_permanent_deletes(registry, http):
    first = registry.register_schema("s", Schema(USER, "AVRO"))
    registry.register_schema("s", Schema(USER_2, "AVRO"))
    assert registry.delete_version("s", 1) == 1
    assert registry.get_versions("s") == [2]
    assert registry.get_versions("s", deleted=True) == [1, 2]
    assert http.get("/subjects/s/versions/1").json()["error_code"] == 40402
    assert http.get("/subjects/s/versions/1", params={"deleted": "True"}).json()["version"] == 1
    assert registry.get_schema(first).schema_str == USER  # still readable by id
    assert error_of(lambda: registry.delete_version("s", 2, permanent=True)).error_code == 40407
    assert error_of(lambda: registry.delete_version("s", 1)).error_code == 40406
    assert registry.delete_version("s", 1, permanent=True) == 1
    assert Version.objects.filter(resource__rid="s").count() == 1
    assert error_of(lambda: registry.delete_subject("s", permanent=True)).error_code == 40405
    assert registry.delete_subject("s") == [2]
    assert registry.get_subjects() == [] and registry.get_subjects(deleted=True) == ["s"]
    assert error_of(lambda: registry.get_versions("s")).error_code == 40401
    assert registry.delete_subject("s", permanent=True) == [2]
    assert not Resource.objects.filter(rid="s").exists()
    assert "/schemaGroups/confluent/schemas/s" in OutboxEvent.objects.filter(type__endswith="deleted.v1").values_list(
        "subject", flat=True
    )
    assert http.get(f"/schemas/ids/{first}").json()["error_code"] == 40403  # (the client caches ids: asked raw)
    assert SchemaId.objects.filter(pk=first).exists()  # the id stays taken: never reused
    # a permanently deleted subject starts again at version 1, and the same content gets the same id again
    assert registry.register_schema_full_response("s", Schema(USER, "AVRO")).schema_id == first


def test_config(registry, http):
    assert registry.get_compatibility() == "BACKWARD_TRANSITIVE"  # the registry's default level
    assert error_of(lambda: registry.get_compatibility("s")).error_code == 40408
    assert registry.set_compatibility("s", "none") == {
        "compatibility": "NONE"
    }  # before the subject exists: kept for it
    assert registry.get_compatibility("s") == "NONE"
    registry.register_schema("s", Schema(USER, "AVRO"))
    registry.register_schema("s", Schema(USER_BAD, "AVRO"))  # NONE: accepted
    assert Resource.objects.get(rid="s").extensions["compatibility"] == "none"  # the schema's own attribute
    assert registry.set_compatibility(level="FULL") == {"compatibility": "FULL"}
    assert registry.get_compatibility() == "FULL"
    assert http.get("/config/other", params={"defaultToGlobal": "TRUE"}).json() == {"compatibilityLevel": "FULL"}
    r = http.put("/config", json={"compatibility": "SOMETIMES"})
    assert r.status_code == 422 and r.json()["error_code"] == 42203
    assert http.delete("/config/s").json() == {"compatibilityLevel": "NONE"}
    assert registry.get_config("s" if False else None).compatibility_level.value == "FULL"


def test_compatibility_tests_and_refused_registration(registry, http):
    registry.register_schema("s", Schema(USER, "AVRO"))
    assert registry.test_compatibility("s", Schema(USER_2, "AVRO")) is True
    assert registry.test_compatibility("s", Schema(USER_BAD, "AVRO")) is False
    verbose = http.post(
        "/compatibility/subjects/s/versions/latest", params={"verbose": "True"}, json={"schema": USER_BAD}
    ).json()
    assert verbose["is_compatible"] is False and any("email" in m for m in verbose["messages"])
    good = http.post("/compatibility/subjects/s/versions", params={"verbose": "true"}, json={"schema": USER_2})
    assert good.json() == {"is_compatible": True, "messages": []}
    events, versions = OutboxEvent.objects.count(), Version.objects.count()
    refused = error_of(lambda: registry.register_schema("s", Schema(USER_BAD, "AVRO")))
    assert refused.http_status_code == 409 and refused.error_code == 409
    assert refused.error_message.startswith("Schema being registered is incompatible with an earlier schema")
    assert "email" in refused.error_message
    assert (OutboxEvent.objects.count(), Version.objects.count()) == (events, versions)


def test_modes_and_import_with_given_ids(registry, http):
    assert registry.get_global_mode() == "READWRITE"
    registry.register_schema("existing", Schema(USER, "AVRO"))
    r = http.put("/mode", json={"mode": "IMPORT"})  # subjects exist: needs force
    assert r.status_code == 422 and r.json()["error_code"] == 42205
    assert registry.update_mode("imported", "IMPORT") == "IMPORT"
    r = http.post("/subjects/imported/versions", json={"schema": USER_2, "id": 777, "version": 5})
    assert r.status_code == 200 and (r.json()["id"], r.json()["version"]) == (777, 5), r.text
    assert registry.get_schema(777).schema_str == USER_2
    assert registry.get_versions("imported") == [5]
    assert Version.objects.get(resource__rid="imported").vid == "5"
    r = http.post("/subjects/imported/versions", json={"schema": USER, "id": 777, "version": 6})
    assert r.status_code == 422 and r.json()["error_code"] == 42207  # the id holds another schema
    # new ids are above every id given
    assert registry.register_schema("after", Schema('{"type": "string"}', "AVRO")) == 778
    # outside IMPORT an id is refused; READONLY refuses writes
    r = http.post("/subjects/existing/versions", json={"schema": USER_2, "id": 900})
    assert r.status_code == 422 and r.json()["error_code"] == 42205
    assert registry.update_mode("existing", "READONLY") == "READONLY"
    refused = error_of(lambda: registry.register_schema("existing", Schema(USER_2, "AVRO")))
    assert refused.error_code == 42205
    assert registry.get_mode("existing") == "READONLY"
    assert error_of(lambda: registry.get_mode("nomode")).error_code == 40409
    r = http.put("/mode/existing", json={"mode": "SOMETIMES"})
    assert r.status_code == 422 and r.json()["error_code"] == 42204
    assert registry.delete_mode("existing") == "READONLY"
    assert registry.update_global_mode("READONLY") == "READONLY"
    assert error_of(lambda: registry.register_schema("x", Schema(USER, "AVRO"))).error_code == 42205


def test_contexts_are_schema_groups(registry, http, live_server):
    registry.register_schema(":.payments:invoices-value", Schema(USER, "AVRO"))
    assert registry.get_subjects() == [":.payments:invoices-value"]
    assert registry.get_contexts() == [".", ".payments"]
    doc = httpx.get(f"{live_server.url}/registry/schemagroups/payments/schemas/invoices-value")
    assert doc.status_code == 200 and doc.content == USER.encode()


def test_json_schema_and_subjects_with_slashes(registry, http):
    schema = '{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}'
    schema_id = registry.register_schema("dir/file.json", Schema(schema, "JSON"))
    assert registry.get_subjects() == ["dir/file.json"]
    assert Resource.objects.get().rid == "dir%2Ffile.json"
    assert registry.get_schema(schema_id).schema_type == "JSON"
    assert Version.objects.get().extensions["format"] == "JsonSchema/draft-07"


def test_avro_references(registry):
    address = (
        '{"type": "record", "name": "Address", "namespace": "acme", "fields": [{"name": "city", "type": "string"}]}'
    )
    registry.register_schema("acme.Address", Schema(address, "AVRO"))
    person = '{"type": "record", "name": "Person", "namespace": "acme", "fields": [{"name": "home", "type": "acme.Address"}]}'
    schema = Schema(person, "AVRO", [SchemaReference("acme.Address", "acme.Address", 1)])
    schema_id = registry.register_schema("people", schema)
    got = registry.get_schema(schema_id)
    assert [(r.name, r.subject, r.version) for r in got.references] == [("acme.Address", "acme.Address", 1)]
    assert registry.get_referenced_by("acme.Address", 1) == [schema_id]
    assert error_of(lambda: registry.delete_version("acme.Address", 1)).error_code == 42206


def test_avro_references_are_checked_with_their_types(registry, http, live_server, writer):
    """The registry's own Avro check (every door's) reads the referenced named types only when the writer resolved
    them: through /confluent with references the schema is valid and later versions are compared knowing them;
    the same document without references, here or through the 1.0 binding, still names an unknown type."""
    from tests.confluent.test_errors import refused, state

    address = (
        '{"type": "record", "name": "Address", "namespace": "acme", "fields": [{"name": "city", "type": "string"}]}'
    )
    registry.register_schema("acme.Address", Schema(address, "AVRO"))
    fields = '[{"name": "home", "type": "acme.Address"}'
    person = '{"type": "record", "name": "Person", "namespace": "acme", "fields": %s]}'
    refs = [SchemaReference("acme.Address", "acme.Address", 1)]
    ref_json = [{"name": "acme.Address", "subject": "acme.Address", "version": 1}]
    before = state()
    message = refused(http.post("/subjects/people/versions", json={"schema": person % fields}), 422, 42201)
    assert "acme.Address" in message, message
    alone = httpx.put(
        f"{live_server.url}/registry/schemagroups/confluent/schemas/people/versions/1",
        content=person % fields,
        auth=("carol", "pw"),
        headers={"xRegistry-format": "Avro/1.11.0", "Content-Type": "application/json"},
    )
    assert alone.status_code == 400 and "acme.Address" in alone.text, alone.text
    assert state() == before
    first = registry.register_schema("people", Schema(person % fields, "AVRO", refs))
    # a later version is compared with the earlier one knowing the referenced types: a field without a default is
    # backward incompatible, with one it is compatible
    bad = person % (fields + ', {"name": "work", "type": "acme.Address"}')
    verbose = http.post(
        "/compatibility/subjects/people/versions/latest",
        params={"verbose": "true"},
        json={"schema": bad, "references": ref_json},
    ).json()
    assert verbose["is_compatible"] is False and any("work" in m for m in verbose["messages"]), verbose
    before = state()
    incompatible = error_of(lambda: registry.register_schema("people", Schema(bad, "AVRO", refs)))
    assert incompatible.error_code == 409 and "work" in incompatible.error_message, incompatible.error_message
    assert state() == before
    good = person % (fields + ', {"name": "work", "type": ["null", "acme.Address"], "default": null}')
    assert registry.test_compatibility("people", Schema(good, "AVRO", refs)) is True
    second = registry.register_schema_full_response("people", Schema(good, "AVRO", refs))
    assert second.version == 2 and second.schema_id != first


def test_another_schema_type_is_incompatible(registry, http):
    registry.register_schema("typed", Schema(USER, "AVRO"))
    events, versions = OutboxEvent.objects.count(), Version.objects.count()
    refused = http.post("/subjects/typed/versions", json={"schema": '{"type": "object"}', "schemaType": "JSON"})
    assert refused.status_code == 409 and refused.json()["error_code"] == 409, refused.text
    assert "schemaType JSON differs from AVRO" in refused.json()["message"]
    assert (OutboxEvent.objects.count(), Version.objects.count()) == (events, versions)


def test_a_protobuf_schema_serialized_is_kept_and_counted(registry, http):
    """`?format=serialized` builds a PROTOBUF schema's FileDescriptorProto once per text and references: the next
    read is a hit of `confluent_serialized_schemas` (registry/store/bounded_cache.py) in /metrics' counts."""
    import base64

    from google.protobuf import descriptor_pb2

    from tests.helpers import cache_use

    text = 'syntax = "proto3";\npackage acme;\nmessage Counted {\n  string id = 1;\n}\n'
    schema_id = registry.register_schema("counted-value", Schema(text, "PROTOBUF"))
    looked_up, _entries = cache_use("confluent_serialized_schemas")
    answers = [http.get(f"/schemas/ids/{schema_id}", params={"format": "serialized"}) for _ in range(2)]
    assert [a.status_code for a in answers] == [200, 200] and answers[0].json() == answers[1].json()
    descriptor = descriptor_pb2.FileDescriptorProto.FromString(base64.b64decode(answers[0].json()["schema"]))
    assert [m.name for m in descriptor.message_type] == ["Counted"]
    now, entries = cache_use("confluent_serialized_schemas")
    assert now - looked_up == 2 and entries >= 1
