"""Outbox rows of change events: one per entity path written (docs/api-contract.md sections 8 and 9)."""

import pytest

from registry.models import OutboxEvent, Resource
from tests.helpers import (
    TEXT,
    assert_problem,
    definition,
    make_definition_group,
    make_group,
    new_version,
    post_definition,
    post_schema,
    send,
    send_json,
)

pytestmark = pytest.mark.django_db

SR = "io.cloudevents.schemaregistry"
MC = "io.cloudevents.messagecatalog"
EP = "io.cloudevents.endpointregistry"


class Outbox:
    """The outbox rows written since the last look."""

    def __init__(self):
        self.seen = set(OutboxEvent.objects.values_list("id", flat=True))

    def new(self) -> list[tuple[str, str]]:
        rows = [e for e in OutboxEvent.objects.all() if e.id not in self.seen]
        self.seen |= {e.id for e in rows}
        return sorted((e.type, e.subject) for e in rows)


@pytest.fixture
def box(db):
    return Outbox()


def test_group_events(su, box):
    make_group(su, "g1")
    assert box.new() == [(f"{SR}.updated.v1", "/schemaGroups/g1")]
    send_json(su, "PUT", "/schemaGroups/g1", {"description": "x"})
    assert box.new() == [(f"{SR}.updated.v1", "/schemaGroups/g1")]
    send_json(su, "PUT", "/schemaGroups/g2", {})
    assert box.new() == [(f"{SR}.updated.v1", "/schemaGroups/g2")]
    su.delete("/schemaGroups/g2")
    assert box.new() == [(f"{SR}.deleted.v1", "/schemaGroups/g2")]


def test_event_fields(su, box):
    body = make_group(su, "g1")
    event = OutboxEvent.objects.get()
    assert event.source == "http://testserver"
    assert event.subject == "/schemaGroups/g1"
    from registry.domain.attributes import timestamp

    assert timestamp(event.time) == body["modifiedOn"]
    make_group(su, "g2")
    ids = list(OutboxEvent.objects.values_list("id", flat=True))
    assert len(set(ids)) == 2


def test_resource_create_emits_resource_and_version(su, box):
    make_group(su, "g1")
    box.new()
    post_schema(su, "g1", "s1")
    assert box.new() == [
        (f"{SR}.updated.v1", "/schemaGroups/g1/schemas/s1"),
        (f"{SR}.updated.v1", "/schemaGroups/g1/schemas/s1/versions/1"),
    ]


def test_version_writes(su, box):
    make_group(su, "g1")
    post_schema(su, "g1", "s1")
    box.new()
    new_version(su, "g1", "s1")
    assert box.new() == [(f"{SR}.updated.v1", "/schemaGroups/g1/schemas/s1/versions/2")]
    send(su, "PUT", "/schemaGroups/g1/schemas/s1/versions/1", b"changed", TEXT)
    assert box.new() == [(f"{SR}.updated.v1", "/schemaGroups/g1/schemas/s1/versions/1")]
    send(su, "PUT", "/schemaGroups/g1/schemas/s1/versions/7", b"new", TEXT)
    assert box.new() == [(f"{SR}.updated.v1", "/schemaGroups/g1/schemas/s1/versions/7")]
    send(su, "PUT", "/schemaGroups/g1/schemas/s1", b"latest changed", TEXT)
    assert box.new() == [(f"{SR}.updated.v1", "/schemaGroups/g1/schemas/s1")]
    send_json(su, "PUT", "/schemaGroups/g1/schemas/s1/versions/2?meta", {"description": "m"})
    assert box.new() == [(f"{SR}.updated.v1", "/schemaGroups/g1/schemas/s1/versions/2")]
    send_json(su, "PUT", "/schemaGroups/g1/schemas/s1?meta", {"description": "m"})
    assert box.new() == [(f"{SR}.updated.v1", "/schemaGroups/g1/schemas/s1")]
    su.delete("/schemaGroups/g1/schemas/s1/versions/1")
    assert box.new() == [(f"{SR}.deleted.v1", "/schemaGroups/g1/schemas/s1/versions/1")]
    su.delete("/schemaGroups/g1/schemas/s1/versions")
    assert box.new() == [(f"{SR}.deleted.v1", "/schemaGroups/g1/schemas/s1/versions/2")]
    su.delete("/schemaGroups/g1/schemas/s1")
    assert box.new() == [(f"{SR}.deleted.v1", "/schemaGroups/g1/schemas/s1")]


def test_subtree_delete_emits_one_event_for_the_root(su, box):
    make_group(su, "g1")
    post_schema(su, "g1", "s1")
    new_version(su, "g1", "s1")
    box.new()
    su.delete("/schemaGroups/g1")
    assert box.new() == [(f"{SR}.deleted.v1", "/schemaGroups/g1")]


def test_bulk_deletes_emit_one_per_entry(su, box):
    make_group(su, "a")
    make_group(su, "b")
    box.new()
    su.delete("/schemaGroups")
    assert box.new() == [(f"{SR}.deleted.v1", "/schemaGroups/a"), (f"{SR}.deleted.v1", "/schemaGroups/b")]


def test_definition_retention_emits_new_and_deleted_version(su, box):
    make_definition_group(su, "dg")
    assert box.new() == [(f"{MC}.updated.v1", "/definitionGroups/dg")]
    post_definition(su, "dg", "d1")
    box.new()
    send(su, "POST", "/definitionGroups/dg/definitions/d1", definition("com.example.y"), "application/json")
    assert box.new() == [
        (f"{MC}.deleted.v1", "/definitionGroups/dg/definitions/d1/versions/1"),
        (f"{MC}.updated.v1", "/definitionGroups/dg/definitions/d1/versions/2"),
    ]


def test_endpoint_event_type(su, box):
    make_group(su, "e1", "endpoints", usage="producer")
    assert box.new() == [(f"{EP}.updated.v1", "/endpoints/e1")]


def test_failed_requests_write_no_events(su, box, anon):
    make_group(su, "g1")
    post_schema(su, "g1", "s1")
    box.new()
    assert_problem(send_json(su, "POST", "/schemaGroups", {"id": "G1"}), 409)
    assert_problem(send_json(su, "PUT", "/schemaGroups/g1?epoch=9", {}), 409)
    assert_problem(send_json(su, "POST", "/schemaGroups", {"id": "x", "tags": []}), 400)
    assert_problem(send_json(anon, "POST", "/schemaGroups", {"id": "x"}), 401)
    assert_problem(
        su.generic("DELETE", "/schemaGroups", '[{"id": "g1"}, {"id": "nope"}]', content_type="application/json"), 404
    )
    assert_problem(su.delete("/schemaGroups/g1/schemas/s1/versions/1"), 400)
    assert box.new() == []


def test_rollback_writes_nothing(su, box):
    """A resource create that fails validation after the resource row is saved rolls back entirely."""
    make_definition_group(su, "dg")
    box.new()
    bad = definition()
    bad["metadata"]["attributes"]["type"]["required"] = False
    assert_problem(post_definition(su, "dg", "d1", doc=bad, expect=None), 400)
    assert not Resource.objects.exists()
    assert box.new() == []
    # a bulk delete whose second entry fails keeps the first entry and emits nothing
    post_definition(su, "dg", "d1")
    box.new()
    response = su.generic(
        "DELETE", "/definitionGroups/dg/definitions", '[{"id": "d1"}, {"id": "d2"}]', content_type="application/json"
    )
    assert_problem(response, 404, "d2")
    assert Resource.objects.filter(rid="d1").exists()
    assert box.new() == []
