"""`?inline` costs a fixed number of queries whatever the number of resources (issue 14: no query per resource)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from registry.models import Version
from tests.helpers import make_group, new_version, post_schema

pytestmark = pytest.mark.django_db


def queries(client, path) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
        body = b"".join(response.streaming_content) if response.streaming else response.content
    assert response.status_code == 200 and body
    return len(captured)


@pytest.mark.parametrize(
    "path", ["/?inline", "/schemaGroups?inline", "/schemaGroups/g1?inline", "/schemaGroups/g1/schemas?inline"]
)
def test_inline_queries_do_not_grow_with_resources(su, anon, path):
    make_group(su)
    post_schema(su, sid="s0")
    few = queries(anon, path)
    for n in range(1, 12):
        post_schema(su, sid=f"s{n}")
        new_version(su, sid=f"s{n}", body=b"second")
    assert queries(anon, path) == few


def reads_documents(client, path) -> bool:
    """Whether answering `path` selected the versions' documents (their `content` column)."""
    column = f'"{Version._meta.db_table}"."content"'
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    assert response.status_code == 200, response.content
    return any(column in query["sql"] for query in captured.captured_queries)


@pytest.mark.parametrize(
    "inline, documents",
    [("schemas", False), ("schemas.versions", False), ("schemas.schema", True), ("*", True), ("meta", False)],
)
def test_a_10_group_reads_documents_only_when_it_shows_them(su, anon, inline, documents):
    """1.0 `GET /registry/schemagroups/g1?inline=schemas` loads the schemas and their versions, not the versions'
    documents (the group's read loaded every document whatever `?inline` named); the same queries whatever the
    number of schemas."""
    make_group(su)
    post_schema(su, sid="s0")
    path = f"/registry/schemagroups/g1?inline={inline}"
    assert reads_documents(anon, path) is documents
    few = queries(anon, path)
    for n in range(1, 6):
        post_schema(su, sid=f"s{n}")
        new_version(su, sid=f"s{n}", body=b"second")
    assert queries(anon, path) == few
