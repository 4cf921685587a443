"""Optimistic concurrency the same way through every binding (issue 23 item 10, issue 24 item 6): a write that
names an epoch (`?epoch`, the binding's `PREFIX-epoch` header, the body's `epoch`, `If-Match`) applies only while
the entity is at that epoch, else the binding's epoch mismatch (or 412) and nothing is written; of writers racing
with the same precondition exactly one wins."""

import json
import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections
from rest_framework.test import APIClient

from registry.models import Group, Resource
from tests.helpers import snapshot

from .adapters import CORE, XR10

DOC = b'{"type": "object"}'
FORMAT = "JsonSchema/draft-07"


@pytest.fixture
def schema(su, binding):
    su.put(binding.group("g1"), {}, format="json")
    assert binding.create_schema(su, "g1", "s1", DOC, FORMAT).status_code == 201


def _stale_group_writes(binding):
    return [
        ("?epoch", lambda su: su.put(binding.group("g1") + "?epoch=7", {"description": "x"}, format="json")),
        ("body epoch", lambda su: su.put(binding.group("g1"), {"description": "x", "epoch": 7}, format="json")),
        (
            "epoch header",
            lambda su: binding.send(
                su, "PUT", binding.group("g1"), {"description": "x"}, **{binding.epoch_header: "7"}
            ),
        ),
    ]


@pytest.mark.parametrize("how", ["?epoch", "body epoch", "epoch header"])
def test_a_stale_epoch_on_a_group_write_is_refused(su, any_binding, how):
    if how == "epoch header" and any_binding.header_prefix is None:
        pytest.skip("the Schema Registry binding carries no metadata in headers of a prefix")
    su.put(any_binding.group("g1"), {}, format="json")
    before = snapshot()
    write = dict(_stale_group_writes(any_binding))[how]
    any_binding.assert_problem(write(su), any_binding.epoch_status, "epoch-mismatch")
    assert snapshot() == before


@pytest.mark.parametrize("how", ["?epoch", "epoch header"])
def test_a_stale_epoch_on_a_document_write_is_refused(su, binding, schema, how):
    before = snapshot()
    path = binding.schema("g1", "s1") + ("?epoch=7" if how == "?epoch" else "")
    headers = {binding.epoch_header: "7"} if how == "epoch header" else {}
    response = binding.send(su, "PUT", path, DOC, **headers)
    binding.assert_problem(response, binding.epoch_status, "epoch-mismatch")
    assert snapshot() == before


def test_a_stale_epoch_on_metadata_writes_of_10_is_refused(su, schema):
    """`$details` with ?epoch, the `meta` entity with its own epoch (it was applied: issue 23 item 10)."""
    before = snapshot()
    details = XR10.schema("g1", "s1") + "$details?epoch=7"
    XR10.assert_problem(su.put(details, {"description": "x"}, format="json"), 400, "epoch-mismatch")
    meta = XR10.schema("g1", "s1") + "/meta"
    for response in (
        su.put(meta, {"compatibility": "none", "epoch": 7}, format="json"),
        su.patch(meta + "?epoch=7", {"compatibility": "none"}, format="json"),
    ):
        XR10.assert_problem(response, 400, "epoch-mismatch")
    assert snapshot() == before
    current = su.get(meta).json()["epoch"]
    assert su.patch(meta, {"compatibility": "none", "epoch": current}, format="json").status_code == 200
    assert su.get(meta).json()["epoch"] == current + 1


def test_a_10_map_delete_checks_each_resource_epoch(su, schema):
    """core/spec.md "Deleting Entities": a Resource's epoch goes in `meta`; a top-level one alone is misplaced."""
    before = snapshot()
    collection = XR10.group("g1") + "/schemas"
    response = su.generic("DELETE", collection, json.dumps({"s1": {"meta": {"epoch": 99}}}), "application/json")
    XR10.assert_problem(response, 400, "epoch-mismatch")
    response = su.generic("DELETE", collection, json.dumps({"s1": {"epoch": 99}}), "application/json")
    assert response.status_code == 400 and response.json()["type"].endswith("#misplaced_epoch"), response.content
    assert snapshot() == before
    assert su.generic("DELETE", collection, json.dumps({}), "application/json").status_code == 204  # deletes none
    assert Resource.objects.filter(rid="s1").exists()
    response = su.generic(
        "DELETE", collection, json.dumps({"s1": {"meta": {"epoch": 1}}, "gone": {}}), "application/json"
    )
    assert response.status_code == 204  # an id that names nothing is skipped
    assert not Resource.objects.filter(rid="s1").exists()


def test_force_false_is_false(su, binding):
    """`?force=false` on a referenced group's delete is refused like no force at all (it deleted: issue 24 item 7)."""
    su.put(binding.group("g1"), {}, format="json")
    binding.create_schema(su, "g1", "s1", DOC, FORMAT)
    su.put("/registry/messagegroups/d", {}, format="json")  # (a group without a format: 1.0's)
    definition = {"schemaformat": FORMAT, "schemaurl": "#/schemaGroups/g1/schemas/s1"}
    assert su.put("/definitionGroups/d/definitions/m", definition, format="json").status_code == 201
    before = snapshot()
    response = su.delete(binding.group("g1") + "?force=false")
    binding.assert_problem(response, 409, "conflict")
    assert snapshot() == before
    assert Group.objects.filter(gid="g1").exists()


def test_if_match_pins_the_epoch_of_the_representation_it_matched(su, binding, schema):
    tag = su.get(binding.schema("g1", "s1"))["ETag"]
    assert binding.send(su, "PUT", binding.schema("g1", "s1"), b'{"type": "object", "title": "a"}', **{"If-Match": tag})
    before = snapshot()
    stale = binding.send(su, "PUT", binding.schema("g1", "s1"), b'{"type": "object"}', **{"If-Match": tag})
    binding.assert_problem(stale, 412, "precondition-failed")
    assert snapshot() == before


def test_metadata_changes_move_the_tag_of_a_document_read(su, binding, schema):
    """The tag covers the binding's metadata headers (`xRegistry-*` too): after a change of metadata only, the old
    tag no longer revalidates (it answered 304 with the stale `xRegistry-description`: issue 23 item 9)."""
    path = binding.schema("g1", "s1")
    tag = su.get(path)["ETag"]
    header = {f"{binding.header_prefix}-description": "changed"}
    if binding is XR10:
        su.patch(path + "$details", {"description": "changed"}, format="json")
    else:
        binding.send(su, "PUT", path, b"", **header)
    again = su.get(path, HTTP_IF_NONE_MATCH=tag)
    assert again.status_code == 200 and again[f"{binding.header_prefix}-description"] == "changed"


WRITERS = 16


@pytest.mark.postgres
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("binding", [CORE, XR10], ids=["0.5", "1.0"])
@pytest.mark.parametrize("precondition", ["?epoch", "If-Match"])
def test_of_writers_racing_with_one_precondition_exactly_one_wins(binding, precondition):
    if connection.vendor != "postgresql":
        pytest.skip("the race needs PostgreSQL's concurrency (REGISTRY_TEST_DB=postgres)")
    user = get_user_model().objects.create_superuser("racer", "r@example.com", "pw")
    setup = APIClient()
    setup.force_authenticate(user)
    setup.put(binding.group("g1"), {}, format="json")
    binding.create_schema(setup, "g1", "s1", DOC, FORMAT)
    path = binding.schema("g1", "s1") + ("$details" if binding is XR10 else "?meta")
    current = setup.get(path)
    epoch = current.json()["epoch"]
    barrier, statuses = threading.Barrier(WRITERS), []

    def write(n):
        client = APIClient(raise_request_exception=False)
        client.force_authenticate(user)
        barrier.wait()
        body = {"description": f"writer {n}"}
        if precondition == "?epoch":
            response = client.put(f"{path}{'&' if '?' in path else '?'}epoch={epoch}", body, format="json")
        else:
            response = client.put(path, body, format="json", HTTP_IF_MATCH=current["ETag"])
        statuses.append(response.status_code)
        connections.close_all()

    threads = [threading.Thread(target=write, args=(n,)) for n in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(200 <= s < 300 for s in statuses) == 1, statuses
    assert all(s < 500 for s in statuses), statuses


def test_a_read_whose_if_match_fails_is_the_bindings_problem(su, binding, schema):
    """A GET with an `If-Match` naming another tag is 412 in the binding's own error words (it was the 0.5-wip
    dialect in every binding)."""
    response = su.get(binding.schema("g1", "s1"), HTTP_IF_MATCH='"not-the-tag"')
    binding.assert_problem(response, 412, "precondition-failed")
