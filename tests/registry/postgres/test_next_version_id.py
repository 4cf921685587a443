"""A new version without an id takes the first number after its resource's counter that no version holds
(`registry.services.versions.next_version_id`), whatever door stored the versions (issue 40 A):

- a version stored with a number above the counter by a door that does not move the counter (here the ORM) is
  skipped: the next POST takes the number after it, not a 409;
- on PostgreSQL, when no version holds a number above the counter (what the resource's row says with its lock,
  `highest_numeric_vid`), the write asks no query for the taken numbers.

PostgreSQL (`REGISTRY_TEST_DB=postgres`): SQLite looks the numbers up every time.
"""

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from registry.models import Resource, Version
from tests.helpers import make_group, post_schema

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
SCHEMA = "/schemaGroups/g/schemas/s"


@pytest.fixture
def client():
    user = get_user_model().objects.create_superuser("writer", "w@example.com", "pw")
    client = APIClient()
    client.force_authenticate(user)
    make_group(client, "g")
    post_schema(client, "g", "s", b'{"type": "object"}', "application/json", "JsonSchema/draft-07")
    return client


def _post(client) -> str:
    response = client.post(SCHEMA, b'{"type": "object"}', content_type="application/json")
    assert response.status_code == 201, response.content
    return Version.objects.filter(resource__rid="s").latest("pk").vid


def test_a_number_above_the_counter_stored_elsewhere_is_skipped(client):
    resource = Resource.objects.get(rid="s")
    first = Version.objects.get(resource=resource, vid="1")
    for vid in ("2", "3"):  # the counter stays at 1
        Version.objects.create(
            resource=resource,
            vid=vid,
            epoch=1,
            content=first.content,
            media_type=first.media_type,
            extensions=first.extensions,
            created_on=first.created_on,
            modified_on=first.created_on,
        )
    assert Resource.objects.get(rid="s").version_counter == 1
    assert _post(client) == "4"
    assert _post(client) == "5"
    assert sorted(Version.objects.filter(resource=resource).values_list("vid", flat=True)) == ["1", "2", "3", "4", "5"]


def test_no_query_for_the_taken_numbers_when_none_is_above_the_counter(client):
    _post(client)
    with CaptureQueriesContext(connection) as queries:
        assert _post(client) == "3"
    assert not [q["sql"] for q in queries.captured_queries if "vid IN (" in q["sql"]]
