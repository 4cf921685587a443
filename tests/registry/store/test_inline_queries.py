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


@pytest.mark.parametrize("path, status", [("/schemaGroups?inline", 400), ("/registry/schemagroups?inline=*", 406)])
def test_a_page_of_groups_too_large_to_inline_is_refused_before_it_is_read(su, anon, settings, path, status):
    """The page's resources and versions are counted in SQL before they are read: above REGISTRY_MAX_INLINE_ENTITIES
    the page is refused without reading them (0.5 read them all, then refused; 1.0 answered whatever the size: a page
    of 1,000 groups of the 100k registry grew its worker by 951 MiB). Within the limit, the same answer."""
    make_group(su)
    post_schema(su, sid="s0")
    new_version(su, sid="s0", body=b"second")
    within = anon.get(path)
    assert within.status_code == 200
    settings.REGISTRY_MAX_INLINE_ENTITIES = 3  # the group, its schema and its two versions: 4
    table = f'"{Version._meta.db_table}"."content"'
    with CaptureQueriesContext(connection) as captured:
        refused = anon.get(path)
    assert refused.status_code == status, refused.content
    assert "4 entities" in refused.json()["detail"]
    assert not any(table in query["sql"] for query in captured.captured_queries)  # no version read
    settings.REGISTRY_MAX_INLINE_ENTITIES = 4
    assert anon.get(path).content == within.content
