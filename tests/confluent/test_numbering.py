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


def test_a_write_numbers_what_changed_elsewhere_since_the_last_numbering(writer):
    """A write's numbering reads the versions after the last one it numbered only while nothing else changed the
    subject's versions (PostgreSQL's versions digest says so): a version changed in place or added by another door
    (here the ORM, which numbers nothing) is numbered by the next write all the same."""
    from registry.models import Version

    put_version(writer, "Telemetry", "1", AVRO)
    put_version(writer, "Telemetry", "2", AVRO_2)
    first = Version.objects.get(resource__rid="Telemetry", vid="1")
    Version.objects.filter(pk=first.pk).update(content=AVRO_2.replace("age", "years").encode(), epoch=first.epoch + 1)
    Version.objects.create(
        resource=first.resource,
        vid="2b",
        epoch=1,
        content=AVRO_2.encode(),
        extensions=first.extensions,
        created_on=first.created_on,
        modified_on=first.created_on,
    )
    put_version(writer, "Telemetry", "3", AVRO)
    rows = {row.version.vid: row for row in SubjectVersion.objects.select_related("version", "schema_id")}
    assert sorted(rows) == ["1", "2", "2b", "3"]
    assert all(row.epoch == row.version.epoch for row in rows.values())
    assert "years" in rows["1"].schema_id.schema and rows["1"].number == 1
    assert rows["2b"].schema_id == rows["2"].schema_id and rows["2b"].number == 3 and rows["3"].number == 4


def test_a_write_numbering_reads_the_versions_after_the_last_it_numbered(writer):
    """On PostgreSQL the numbering after a write reads the subject's versions after the last one this process
    numbered, not every version (the statement's plan, run again after the write: the versions' rows it reads)."""
    if connection.vendor != "postgresql":
        pytest.skip("the versions digest is PostgreSQL's (REGISTRY_TEST_DB=postgres)")
    for vid in range(1, 21):
        put_version(writer, "Telemetry", str(vid), AVRO)
    sent = []

    def keep(execute, sql, params, many, context):
        if "registry_version" in sql and "confluent_subjectversion" in sql and "FOR UPDATE" not in sql:
            sent.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(keep):
        put_version(writer, "Telemetry", "21", AVRO_2)
    assert read_only(writer, "/confluent/subjects/Telemetry/versions") == list(range(1, 22))
    ((sql, params),) = sent
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}", params)
        (plan,) = cursor.fetchone()[0]

    def versions_read(node) -> int:
        own = node["Actual Rows"] * node["Actual Loops"] if node.get("Relation Name") == "registry_version" else 0
        return own + sum(versions_read(child) for child in node.get("Plans", []))

    assert versions_read(plan["Plan"]) <= 2
