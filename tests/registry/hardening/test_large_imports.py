"""Issue 11 item 8: a large invalid import is refused fast (checked before any write, linear in the document),
a document too large for one request is refused at once with a 413 problem document, and nothing is written."""

import json
import time

import pytest

from registry.models import Group
from tests.helpers import assert_problem, snapshot

pytestmark = pytest.mark.django_db


def groups_document(count: int, bad_at: int | None = None, **bad) -> dict:
    groups = {f"g{i:05d}": {"id": f"g{i:05d}", "description": f"group {i}"} for i in range(count)}
    if bad_at is not None:
        groups[f"g{bad_at:05d}"].update(bad)
    return {"specversion": "0.5-wip", "schemaGroups": groups}


def post_document(client, doc):
    return client.generic("POST", "/", json.dumps(doc), content_type="application/json")


def test_large_invalid_import_is_refused_before_any_write_and_fast(su):
    """5,000 groups, the last one with a name that is not a string: refused with that entity named, in well
    under the time the entity-by-entity import took (about 1.5 ms a group before, on SQLite)"""
    before = snapshot()
    started = time.thread_time()  # CPU time of the request (the test client runs it in this thread): load-proof
    response = post_document(su, groups_document(5000, bad_at=4999, name=5))
    elapsed = time.thread_time() - started
    body = assert_problem(response, 400, "/schemaGroups/g04999")
    assert body["errors"] == [{"path": "/schemaGroups/g04999", "reason": "name must be a string"}]
    assert snapshot() == before
    assert elapsed < 3, f"refusing took {elapsed:.1f} s"


def test_every_error_is_listed_once(su):
    doc = groups_document(3)
    doc["schemaGroups"]["g00001"]["bad name"] = "x"
    doc["schemaGroups"]["g00002"]["schemas"] = {
        "s": {"versions": {"1": {"format": "JsonSchema/draft-07", "schema": "{not json"}}}
    }
    doc["schemaGroups"]["bad id!?"] = {}
    body = assert_problem(post_document(su, doc), 400)
    paths = [e["path"] for e in body["errors"]]
    assert "/schemaGroups/g00001" in paths and "/schemaGroups/bad id!?" in paths
    assert any(p.startswith("/schemaGroups/g00002/schemas/s") for p in paths)  # the version's format error too
    assert len(body["errors"]) == len({(e["path"], e["reason"]) for e in body["errors"]})
    assert Group.objects.count() == 0


def test_document_over_the_entity_limit_is_413_before_validation(su, settings):
    settings.REGISTRY_IMPORT_MAX_ENTITIES = 100
    before = snapshot()
    body = assert_problem(post_document(su, groups_document(101, bad_at=3, name=5)), 413, "101 entities")
    assert "REGISTRY_IMPORT_MAX_ENTITIES" in body["detail"] and "spark_import" in body["detail"]
    assert snapshot() == before
    assert post_document(su, groups_document(100)).status_code == 200
    assert Group.objects.count() == 100


def test_import_byte_limit_is_its_own(su, settings):
    """an export may exceed the per-entity body limit; the document import has its own, larger limit"""
    settings.REGISTRY_MAX_BODY_BYTES = 1000
    doc = groups_document(1)
    doc["schemaGroups"]["g00000"]["description"] = "d" * 900
    doc["schemaGroups"]["g00000"]["name"] = "n" * 900
    assert post_document(su, doc).status_code == 200
    settings.REGISTRY_MAX_IMPORT_BYTES = 1000
    assert_problem(post_document(su, doc), 413, "REGISTRY_MAX_IMPORT_BYTES")


def test_groups_differing_by_case_in_one_document_or_from_the_store_are_refused(su):
    assert post_document(su, groups_document(2)).status_code == 200
    before = snapshot()
    doc = {"schemaGroups": {"G00001": {}, "new": {}}}
    assert_problem(post_document(su, doc), 400, "differs only by case")
    assert_problem(post_document(su, {"schemaGroups": {"Ab": {}, "aB": {}}}), 400, "differs only by case")
    assert snapshot() == before


def test_reimport_of_many_stored_groups_changes_nothing(su):
    doc = groups_document(1500)
    assert post_document(su, doc).status_code == 200
    before = snapshot()
    report = post_document(su, doc).json()
    assert len(report["unchanged"]) == 1500 and report["created"] == report["updated"] == []
    assert snapshot() == before
