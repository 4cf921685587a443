"""The Confluent API's lists of subjects and of a subject's versions: every page of `GET /confluent/subjects` is the
slice of the whole list that `?offset` and `?limit` name, whatever mix of subjects the registry holds (the default
context's and other contexts', ids that hold a percent-encoded character, schemas not numbered yet, soft-deleted
subjects, schemas of formats Confluent has no type for), with `?subjectPrefix`, `?deleted` and `?deleted_only` (what
a list paged in the database must keep, issue 40); a subject's versions are listed from their numbers alone."""

import json

import pytest
from django.db import connection, transaction

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


def _rows_of(client, url: str) -> tuple[list[str], dict[str, int]]:
    """A page, and the rows its SELECTs read by table (their plans on PostgreSQL, `EXPLAIN ANALYZE`; an aggregate's
    rows aside), planned as for a large table: a test's table of a few pages is cheapest read whole, so sequential and
    bitmap scans are off, in a transaction of the test's own."""
    sent: list[tuple[str, object]] = []

    def keep(execute, sql, params, many, context):
        sent.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(keep):
        answer = client.get(url)
    assert answer.status_code == 200, answer.content
    read: dict[str, int] = {}

    def walk(node) -> None:
        if node["Node Type"] == "Aggregate":
            return
        if "Scan" in node["Node Type"] and node["Actual Rows"]:
            table = node.get("Relation Name", "?")
            read[table] = read.get(table, 0) + node["Actual Rows"] * node["Actual Loops"]
        for child in node.get("Plans", []):
            walk(child)

    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off")
        for sql, params in sent:
            if sql.lstrip().upper().startswith("SELECT"):
                cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, params)
                (plan,) = cursor.fetchone()
                walk((plan if isinstance(plan, list) else json.loads(plan))[0]["Plan"])
    return answer.json(), read


@pytest.mark.skipif("connection.vendor != 'postgresql'", reason="the plan's rows are PostgreSQL's EXPLAIN")
def test_a_page_reads_the_names_index_alone(writer):
    """40 subjects of 2 versions each, paged by 10: a page reads the entries of the names' index up to its last one
    and nothing else of the registry (no schema, version or subject version: before, every page read every subject
    version of the registry to decide which schemas are subjects), so the first page reads what a page holds and the
    one at offset 30 the 40 names before and in it, whatever the number of versions."""
    fields = [{"name": "name", "type": "string"}]
    for n in range(40):
        for extra in ("age", ""):
            shape = fields + ([{"name": extra, "type": "string", "default": ""}] if extra else [])
            answer = writer.post(
                f"/confluent/subjects/s{n:03d}/versions",
                json.dumps({"schema": json.dumps({"type": "record", "name": "U", "fields": shape})}),
                content_type="application/vnd.schemaregistry.v1+json",
            )
            assert answer.status_code == 200, answer.content
    whole = names(writer, "")  # brings what the writes changed up to date
    assert whole == [f"s{n:03d}" for n in range(40)]
    with connection.cursor() as cursor:  # the tables' sizes known to the planner (as autovacuum would, at times)
        cursor.execute("ANALYZE")
    first, read_first = _rows_of(writer, "/confluent/subjects?offset=0&limit=10")
    deep, read_deep = _rows_of(writer, "/confluent/subjects?offset=30&limit=10")
    assert (first, deep) == (whole[:10], whole[30:])
    for read in (read_first, read_deep):  # the signed-in caller's user and session aside
        assert set(read) - {"auth_user", "django_session"} <= {"confluent_subjectstate", "confluent_subjectnames"}, read
    assert read_first.get("confluent_subjectstate", 0) <= 10 and read_deep.get("confluent_subjectstate", 0) <= 40


def test_pages_place_the_subjects_whose_numbering_has_not_run(writer):
    """Schemas written through the registry while the numbering after the commit does not run (a crash between the
    two) are listed, each in its place on every page, among the subjects the list's rows hold."""
    from confluent.numbering import number_written
    from registry.commit_listeners import on_commit_path_listeners

    for subject in ("b", "d", "f", ":.c:h"):
        register(writer, subject)
    on_commit_path_listeners.remove(number_written)
    try:
        for schema in ("a", "c", "e", "g", "zz"):
            put(writer, "confluent", schema)
        put(writer, "c", "a")  # `:.c:a`
    finally:
        on_commit_path_listeners.append(number_written)
    whole = sorted(["a", "b", "c", "d", "e", "f", "g", "zz", ":.c:a", ":.c:h"])
    assert names(writer, "") == whole
    for offset in range(len(whole) + 1):
        for limit in (1, 2, 3, 20):
            assert names(writer, f"offset={offset}&limit={limit}") == whole[offset : offset + limit], (offset, limit)
    assert names(writer, "subjectPrefix=:.c&offset=1") == [":.c:h"]
    assert names(writer, "deleted=true&offset=2&limit=3") == whole[2:5]
