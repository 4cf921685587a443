"""The Confluent API's lists of subjects and of a subject's versions: every page of `GET /confluent/subjects` is the
slice of the whole list that `?offset` and `?limit` name, whatever mix of subjects the registry holds (the default
context's and other contexts', ids that hold a percent-encoded character, schemas not numbered yet, soft-deleted
subjects, schemas of formats Confluent has no type for), with `?subjectPrefix`, `?deleted` and `?deleted_only` (what
a list paged in the database must keep, issue 40); a subject's versions are listed from their numbers alone."""

import json

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db(transaction=True)

AVRO = '{"type": "record", "name": "User", "fields": [{"name": "name", "type": "string"}]}'


@pytest.fixture
def writer(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("carol", "carol@example.com", "pw"))
    return client


def put(client, group: str, schema: str, fmt: str = "Avro/1.11.0", text: str = AVRO, media: str = "application/json"):
    answer = client.put(
        f"/registry/schemagroups/{group}/schemas/{schema}/versions/1",
        text,
        content_type=media,
        headers={"xRegistry-format": fmt},
    )
    assert answer.status_code in (200, 201), answer.content


def register(client, subject: str):
    answer = client.post(
        f"/confluent/subjects/{subject}/versions",
        json.dumps({"schema": AVRO}),
        content_type="application/vnd.schemaregistry.v1+json",
    )
    assert answer.status_code == 200, answer.content


def names(client, query: str) -> list[str]:
    answer = client.get(f"/confluent/subjects?{query}")
    assert answer.status_code == 200, answer.content
    return answer.json()


def test_every_page_is_the_slice_of_the_whole_list(writer):
    from confluent.numbering import number_written
    from registry.commit_listeners import on_commit_path_listeners

    for subject in ("b", "Bee", "a-1", "a.2", "9z", "Zeta", "a/b.proto", "a~c", "gone"):
        register(writer, subject)
    for subject in ("s", ":.c:s", ":.c-d:s", ":.c:a/x", ":.p/q:r"):  # contexts; `c` a prefix of `c-d`
        register(writer, subject)
    xsd = '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"/>'
    put(
        writer, "confluent", "xml", fmt="XSD/1.1", text=xsd, media="application/xml"
    )  # no Confluent type: not a subject
    on_commit_path_listeners.remove(number_written)
    try:
        put(writer, "confluent", "late")  # not numbered yet: a subject all the same
        put(writer, "confluent", "late%252Fodd")  # the id `late%2Fodd`
    finally:
        on_commit_path_listeners.append(number_written)
    assert writer.delete("/confluent/subjects/gone").status_code == 200  # soft-deleted
    expected = sorted(
        ["b", "Bee", "a-1", "a.2", "9z", "Zeta", "a/b.proto", "a~c", "late", "late/odd"]
        + ["s", ":.c:s", ":.c-d:s", ":.c:a/x", ":.p/q:r"]
    )
    assert names(writer, "") == expected
    assert names(writer, "deleted=true") == sorted([*expected, "gone"])
    assert names(writer, "deleted_only=true") == ["gone"]
    for prefix, shown in (("a", ["a-1", "a.2", "a/b.proto", "a~c"]), (":.c", [":.c-d:s", ":.c:a/x", ":.c:s"])):
        assert names(writer, f"subjectPrefix={prefix}") == shown
    assert names(writer, "subjectPrefix=a%2F") == ["a/b.proto"]
    assert names(writer, "subjectPrefix=%C3%A9") == []
    for query, whole in (("", expected), ("deleted=true", sorted([*expected, "gone"]))):
        for offset in range(len(whole) + 2):
            for limit in (1, 4):
                assert names(writer, f"{query}&offset={offset}&limit={limit}") == whole[offset : offset + limit]
        assert names(writer, f"{query}&offset=3") == whole[3:]
        assert names(writer, f"{query}&offset=-5&limit=2") == whole[:2]
        assert names(writer, f"{query}&offset=99999999999999999999&limit=99999999999999999999") == []
    for prefix in ("a", ":.c"):
        whole = names(writer, f"subjectPrefix={prefix}")
        assert names(writer, f"subjectPrefix={prefix}&offset=1&limit=2") == whole[1:3]


def test_a_subjects_version_numbers_are_read_without_their_rows(writer):
    """`GET /subjects/S/versions` reads the numbers alone, not each version's row with its version and schema id (a
    subject may have thousands of versions: docs/performance.md)."""
    fields = [{"name": "name", "type": "string"}]
    for extra in ("age", "city", "zip"):
        fields.append({"name": extra, "type": "string", "default": ""})
        answer = writer.post(
            "/confluent/subjects/s/versions",
            json.dumps({"schema": json.dumps({"type": "record", "name": "User", "fields": fields})}),
            content_type="application/vnd.schemaregistry.v1+json",
        )
        assert answer.status_code == 200, answer.content
    assert writer.delete("/confluent/subjects/s/versions/2").status_code == 200
    sent: list[str] = []

    def record(execute, sql, params, many, context):
        sent.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        assert writer.get("/confluent/subjects/s/versions").json() == [1, 3]
    assert sent and not [sql for sql in sent if "confluent_schemaid" in sql]
    assert writer.get("/confluent/subjects/s/versions?deleted=true").json() == [1, 2, 3]
    assert writer.get("/confluent/subjects/s/versions?deleted_only=true").json() == [2]
    assert writer.get("/confluent/subjects/s/versions?offset=1&limit=1").json() == [3]
    assert writer.get("/confluent/subjects/nothing/versions").json()["error_code"] == 40401
