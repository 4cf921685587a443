"""`manage.py import_confluent` against a second instance of this server (gunicorn over its own SQLite): every
subject, version, reference and compatibility level copied with ids and versions preserved; twice changes nothing."""

import io

import pytest
from confluent_kafka.schema_registry import Schema, SchemaReference, SchemaRegistryClient
from django.core.management import call_command

from confluent.models import SubjectVersion
from registry.models import OutboxEvent, Resource
from tests.harness.gunicorn import start_gunicorn

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
ADDRESS = 'syntax = "proto3";\npackage acme;\nmessage Address {\n  string city = 1;\n}\n'
PERSON = 'syntax = "proto3";\npackage acme;\nimport "acme/address.proto";\nmessage Person {\n  Address home = 1;\n}\n'


@pytest.fixture
def source(tmp_path):
    process, url, _token = start_gunicorn(tmp_path)
    yield url.replace("http://", "http://ops:pw@") + "/confluent"
    process.stop()


def test_import_confluent(source, registry):
    remote = SchemaRegistryClient({"url": source})
    remote.update_mode("old-orders", "IMPORT")
    r = remote._rest_client.post(
        "subjects/old-orders/versions", {"schema": '{"type": "string"}', "id": 4000, "version": 3}
    )
    assert (r["id"], r["version"]) == (4000, 3) and r["guid"]  # the answer is the registered schema, with its GUID
    remote.set_compatibility("users", "NONE")
    first = remote.register_schema("users", Schema('{"type": "record", "name": "U", "fields": []}', "AVRO"))
    second = remote.register_schema("users", Schema('{"type": "int"}', "AVRO"))  # NONE allows it
    remote.register_schema("acme/address.proto", Schema(ADDRESS, "PROTOBUF"))
    person = remote.register_schema(
        "people", Schema(PERSON, "PROTOBUF", [SchemaReference("acme/address.proto", "acme/address.proto", 1)])
    )
    remote.register_schema("skipped-here", Schema('{"type": "long"}', "AVRO"))

    out = io.StringIO()
    call_command("import_confluent", url=source, subjects="(?!skipped).*", stdout=out, stderr=io.StringIO())
    assert out.getvalue().strip().splitlines()[-1] == "subjects 4, versions created 5, unchanged 0, failed 0"
    assert sorted(registry.get_subjects()) == ["acme/address.proto", "old-orders", "people", "users"]
    assert registry.get_version("old-orders", 3).schema_id == 4000
    assert [registry.get_version("users", n).schema_id for n in (1, 2)] == [first, second]
    assert registry.get_compatibility("users") == "NONE"
    people = registry.get_latest_version("people")
    assert people.schema_id == person and people.schema.schema_str == PERSON
    assert [(r.subject, r.version) for r in people.schema.references] == [("acme/address.proto", 1)]
    assert Resource.objects.get(rid="people").extensions.get("compatibility") is None  # back to the group's level

    events, rows = OutboxEvent.objects.count(), SubjectVersion.objects.count()
    out = io.StringIO()
    call_command("import_confluent", url=source, subjects="(?!skipped).*", stdout=out, stderr=io.StringIO())
    assert out.getvalue().strip().splitlines()[-1] == "subjects 4, versions created 0, unchanged 5, failed 0"
    assert (OutboxEvent.objects.count(), SubjectVersion.objects.count()) == (events, rows)
