"""The CloudEvent of a change, built with the CloudEvents SDK (2.x core API), structured mode, no data.

A subscription's `config.eventformat` chooses the event (docs/api-contract.md sections 8 and 11):
- `cloudevents-registry-0.5` (default): the 0.5 event, `<prefix>.updated.v1` / `<prefix>.deleted.v1`, the
  store path as `subject`;
- `xregistry-1.0`: the event of xRegistry 1.0 core/events.md, `io.xregistry.<group|resource|version>.
  <updated|deleted>`, the entity's xid in 1.0 names as `subject` (`/messagegroups/G/messages/M`), and
  `xregcorrelationid`, the same for every event of one write (the outbox rows of one transaction share their
  `source` and `time`). The outbox does not record which attributes changed nor whether an entity is new, so
  there is no `data.changed` and a creation is announced as `updated`.

Both carry the CloudEvents `authcontext` extension of the change (docs/teams.md): `authtype` `user` (a signed-in
user's write, a sync's as its source's owner; `authid` their name) or `system` (a command; `authid` its source,
`system:import`).
"""

from __future__ import annotations

import hashlib

from cloudevents.core.bindings.http import to_structured_event
from cloudevents.core.v1.event import CloudEvent

from registry.bindings.v10.mapping import v1_path
from registry.models import OutboxEvent

from ..event_formats import DEFAULT_FORMAT, XREGISTRY_10


def event_format(subscription) -> str:
    return (subscription.config or {}).get("eventformat") or DEFAULT_FORMAT


def _entity(path: str) -> str:
    depth = len([p for p in path.split("/") if p])
    return {2: "group", 4: "resource"}.get(depth, "version" if depth >= 6 else "registry")


def attributes(event: OutboxEvent, eventformat: str = DEFAULT_FORMAT) -> dict:
    """The context attributes of the change's CloudEvent in `eventformat`: what is delivered, and what the
    subscription's filters are matched against (`time` as RFC 3339 text, as it is on the wire)."""
    if eventformat == XREGISTRY_10:
        action = "deleted" if event.type.endswith(".deleted.v1") else "updated"
        correlation = hashlib.sha256(f"{event.source}|{event.time.isoformat()}".encode()).hexdigest()[:20]
        out = {
            "specversion": "1.0",
            "id": str(event.id),
            "type": f"io.xregistry.{_entity(event.subject)}.{action}",
            "source": event.source,
            "subject": v1_path(event.subject),
            "time": _rfc3339(event.time),
            "xregcorrelationid": correlation,
        }
    else:
        out = {
            "specversion": "1.0",
            "id": str(event.id),
            "type": event.type,
            "source": event.source,
            "subject": event.subject,
            "time": _rfc3339(event.time),
        }
    if event.authtype:  # the CloudEvents authcontext extension: who made the change (a name; nothing secret)
        out["authtype"] = event.authtype
        if event.authid:
            out["authid"] = event.authid
    return out


def _rfc3339(moment) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def cloud_event(event: OutboxEvent, eventformat: str = DEFAULT_FORMAT) -> CloudEvent:
    """The same `id` on every attempt: the outbox row's id."""
    return CloudEvent(attributes={**attributes(event, eventformat), "time": event.time})


def structured(event: OutboxEvent, eventformat: str = DEFAULT_FORMAT) -> tuple[dict[str, str], bytes]:
    """(headers, body) of the structured-mode message: `application/cloudevents+json`."""
    message = to_structured_event(cloud_event(event, eventformat))
    return dict(message.headers), message.body
