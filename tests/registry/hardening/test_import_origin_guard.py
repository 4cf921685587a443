"""Issue 12: a document import writes through the same rules as the API: entities synced from another registry
change only through their sync, whether the change comes as an API request or inside an imported document."""

import json

import pytest

from registry.models import Group, Resource
from tests.helpers import assert_problem, make_group, post_schema, snapshot

pytestmark = pytest.mark.django_db
SOURCE = "https://other.example/registry"


def post_document(client, doc):
    return client.generic("POST", "/", json.dumps(doc), content_type="application/json")


def schema_document(gid="g", sid="s", text="{}"):
    return {"schemaGroups": {gid: {"schemas": {sid: {"versions": {"1": {"format": "Custom/1", "schema": text}}}}}}}


@pytest.fixture
def synced_group(su):
    make_group(su, "g")
    Group.objects.filter(gid="g").update(origin=SOURCE)


def test_a_new_schema_in_a_synced_group_is_refused_by_import_as_by_the_api(su, synced_group):
    before = snapshot()
    assert_problem(post_schema(su, "g", "s", expect=None), 409, "synced")
    assert_problem(post_document(su, schema_document()), 400, "synced")
    assert snapshot() == before


def test_a_new_version_of_a_synced_schema_is_refused_by_import(su):
    make_group(su, "g")
    assert post_document(su, schema_document()).status_code == 200
    Group.objects.filter(gid="g").update(origin=SOURCE)
    Resource.objects.filter(rid="s").update(origin=SOURCE)
    before = snapshot()
    changed = schema_document()
    changed["schemaGroups"]["g"]["schemas"]["s"]["versions"]["2"] = {"format": "Custom/1", "schema": "two"}
    assert_problem(post_document(su, changed), 400, "synced")
    changed = schema_document(text="changed")
    assert_problem(post_document(su, changed), 400, "synced")
    assert snapshot() == before
    assert post_document(su, schema_document()).json()["created"] == []  # unchanged: nothing to refuse
