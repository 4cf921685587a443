"""Subjects written through the registry's other doors are numbered when their write commits (issue 40): the
Confluent API's first read after a write, or after a bulk import, only reads (no statement writes), and sees the
versions, their numbers and their schema ids."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from confluent.models import SchemaId, SubjectVersion

pytestmark = pytest.mark.django_db(transaction=True)

AVRO = '{"type": "record", "name": "User", "fields": [{"name": "name", "type": "string"}]}'
AVRO_2 = (
    '{"type": "record", "name": "User", "fields": [{"name": "name", "type": "string"}, '
    '{"name": "age", "type": "int", "default": 0}]}'
)


def writes(queries) -> list[str]:
    return [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))]


def read_only(client, path: str):
    """GET `path`; fails when answering it wrote anything."""
    with CaptureQueriesContext(connection) as queries:
        answer = client.get(path)
    assert answer.status_code == 200, answer.content
    assert writes(queries.captured_queries) == []
    return answer.json()


@pytest.fixture
def writer(client, django_user_model):
    user = django_user_model.objects.create_superuser("carol", "carol@example.com", "pw")
    client.force_login(user)
    return client


def put_version(client, schema: str, vid: str, text: str):
    answer = client.put(
        f"/registry/schemagroups/confluent/schemas/{schema}/versions/{vid}",
        text,
        content_type="application/json",
        headers={"xRegistry-format": "Avro/1.11.0"},
    )
    assert answer.status_code in (200, 201), answer.content
    return answer


def test_versions_written_through_another_binding_are_numbered_when_written(writer):
    put_version(writer, "Telemetry", "v1.0", AVRO)
    put_version(writer, "Telemetry", "v2.0", AVRO_2)
    # the first reads of the Confluent API only read
    assert read_only(writer, "/confluent/subjects") == ["Telemetry"]
    assert read_only(writer, "/confluent/subjects/Telemetry/versions") == [1, 2]
    second = read_only(writer, "/confluent/subjects/Telemetry/versions/2")
    assert json.loads(second["schema"]) == json.loads(AVRO_2)
    assert read_only(writer, f"/confluent/schemas/ids/{second['id']}")["schema"] == second["schema"]


def test_a_version_changed_in_place_gets_its_new_schema_id_when_written(writer):
    put_version(writer, "Telemetry", "1", AVRO)
    before = read_only(writer, "/confluent/subjects/Telemetry/versions/1")
    put_version(writer, "Telemetry", "1", AVRO_2)  # the document replaced in place: the epoch moves
    after = read_only(writer, "/confluent/subjects/Telemetry/versions/1")
    assert after["version"] == 1 and after["id"] != before["id"]
    assert json.loads(after["schema"]) == json.loads(AVRO_2)


def test_a_registry_document_import_is_numbered_when_it_commits(writer):
    document = {
        "schemaGroups": {
            "confluent": {
                "schemas": {
                    f"s{n}": {
                        "format": "JsonSchema/draft-07",
                        "versions": {
                            str(v): {
                                "format": "JsonSchema/draft-07",
                                "schema": {"type": "object", "title": f"s{n} v{v}"},
                            }
                            for v in (1, 2)
                        },
                    }
                    for n in range(3)
                }
            },
            "other": {"schemas": {"x": {"versions": {"1": {"format": "JsonSchema/draft-07", "schema": {}}}}}},
        }
    }
    answer = writer.post("/", json.dumps(document), content_type="application/json")
    assert answer.status_code == 200, answer.content
    assert read_only(writer, "/confluent/subjects") == [":.other:x", "s0", "s1", "s2"]
    assert read_only(writer, "/confluent/subjects/s1/versions") == [1, 2]
    assert SubjectVersion.objects.count() == 7
    assert SchemaId.objects.count() == 7  # each content its own id


def test_a_subject_whose_numbering_did_not_run_is_numbered_when_read(writer):
    """What the write's numbering left out (a crash after the commit) is listed by `GET /subjects` all the same,
    which only reads, and numbered by the first read of the subject's versions."""
    from confluent.numbering import number_written
    from registry.commit_listeners import on_commit_path_listeners

    on_commit_path_listeners.remove(number_written)
    try:
        put_version(writer, "Telemetry", "1", AVRO)
    finally:
        on_commit_path_listeners.append(number_written)
    assert SubjectVersion.objects.count() == 0
    assert read_only(writer, "/confluent/subjects") == ["Telemetry"]
    assert writer.get("/confluent/subjects/Telemetry/versions").json() == [1]
    assert SubjectVersion.objects.count() == 1
    assert read_only(writer, "/confluent/subjects/Telemetry/versions") == [1]
