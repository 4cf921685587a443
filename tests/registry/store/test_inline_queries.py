"""`?inline` costs a fixed number of queries whatever the number of resources (issue 14: no query per resource)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

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
