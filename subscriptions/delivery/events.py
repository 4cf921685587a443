"""The CloudEvent of a change, built with the CloudEvents SDK (2.x core API), structured mode, no data."""
from __future__ import annotations

from cloudevents.core.bindings.http import to_structured_event
from cloudevents.core.v1.event import CloudEvent

from registry.models import OutboxEvent


def cloud_event(event: OutboxEvent) -> CloudEvent:
    """The same `id` on every attempt: the outbox row's id."""
    return CloudEvent(attributes={"specversion": "1.0", "id": str(event.id), "type": event.type,
                                  "source": event.source, "subject": event.subject, "time": event.time})


def structured(event: OutboxEvent) -> tuple[dict[str, str], bytes]:
    """(headers, body) of the structured-mode message: `application/cloudevents+json`."""
    message = to_structured_event(cloud_event(event))
    return dict(message.headers), message.body
