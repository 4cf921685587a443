"""Outbox rows (docs/api-contract.md sections 8, 9): one per entity path written, in the writing transaction."""

import json

import pytest

from registry.models import OutboxEvent

from .jsonschema_docs import SCHEMA_V2, new_version, post_schema

pytestmark = pytest.mark.django_db


def events():
    return [(e.type.rsplit(".", 2)[-2], e.subject) for e in OutboxEvent.objects.order_by("created_at")]


def test_events_per_write(su, group):
    post_schema(su)
    new_version(su)
    su.put("/schemaGroups/g1/schemas/s1/versions/1?meta", {"description": "x"}, format="json")
    su.delete("/schemaGroups/g1/schemas/s1/versions/1")
    assert events() == [
        ("updated", "/schemaGroups/g1"),
        ("updated", "/schemaGroups/g1/schemas/s1"),
        ("updated", "/schemaGroups/g1/schemas/s1/versions/1"),
        ("updated", "/schemaGroups/g1/schemas/s1/versions/2"),
        ("updated", "/schemaGroups/g1/schemas/s1/versions/1"),
        ("deleted", "/schemaGroups/g1/schemas/s1/versions/1"),
    ]
    event = OutboxEvent.objects.order_by("created_at").first()
    assert event.type == "io.cloudevents.schemaregistry.updated.v1"
    assert event.source == "http://testserver"


def test_event_types_per_group_type(su):
    su.put("/definitionGroups/d", {"format": "CloudEvents/1.0"}, format="json")
    su.put("/endpoints/e", {"usage": "producer"}, format="json")
    types = set(OutboxEvent.objects.values_list("type", flat=True))
    assert types == {"io.cloudevents.messagecatalog.updated.v1", "io.cloudevents.endpointregistry.updated.v1"}


def test_failed_request_writes_no_event(su, group):
    before = OutboxEvent.objects.count()
    post_schema(su, body={"type": 12}, format="JsonSchema/draft-07")
    su.put("/schemaGroups/g1?epoch=9", {}, format="json")
    su.generic("POST", "/schemaGroups/g1/schemas/s1", json.dumps(SCHEMA_V2), content_type="application/json")
    assert OutboxEvent.objects.count() == before


def test_event_time_is_modified_on(su):
    body = su.post("/schemaGroups", {"id": "t"}, format="json").json()
    event = OutboxEvent.objects.get()
    assert event.time.isoformat().replace("+00:00", "Z") == body["modifiedOn"]


@pytest.mark.django_db(transaction=True)
def test_one_announcement_per_committed_transaction():
    """Listeners (the subscriptions relay) hear once per transaction that wrote events, not once per event,
    and a savepoint that rolled back does not take the announcement of the rest with it."""
    from django.db import transaction

    from registry.services import EntityAddress, WriteContext, create_group
    from registry.services import events as engine_events

    heard = []
    engine_events.register_on_commit(lambda: heard.append(OutboxEvent.objects.count()))
    listener = engine_events.on_commit_listeners[-1]
    try:
        with transaction.atomic():
            for n in range(5):
                create_group(ctx=WriteContext(user="t"), address=EntityAddress("schemaGroups"), data={"id": f"g{n}"})
        assert heard == [5]
        with transaction.atomic():
            try:
                with transaction.atomic():
                    create_group(
                        ctx=WriteContext(user="t"), address=EntityAddress("schemaGroups"), data={"id": "undone"}
                    )
                    raise RuntimeError("roll the savepoint back")
            except RuntimeError:
                pass
            create_group(ctx=WriteContext(user="t"), address=EntityAddress("schemaGroups"), data={"id": "kept"})
        assert heard == [5, 6]
        with transaction.atomic():
            create_group(ctx=WriteContext(user="t"), address=EntityAddress("schemaGroups"), data={"id": "rolled-back"})
            transaction.set_rollback(True)
        assert heard == [5, 6]
    finally:
        engine_events.on_commit_listeners.remove(listener)
