"""The audit trail (docs/teams.md): every committed change records who made it (a user's name, or the system's
source: a command), through which door (a binding, the admin, an import, Spark, sync: `via` names the sync's source,
whose owner is the actor), what (the entity's
store path, create/update/delete, its epoch before and after) and when, in the change's own transaction beside its
outbox row (registry/services/events.py), so a rollback leaves neither. The same actor travels with the change event
as the CloudEvents `authcontext` extension (`authtype`, `authid`).
"""

from __future__ import annotations

from .models import AuditRecord
from .permissions import group_path_of
from .sent_together import Part, insert_part


def actor_of(ctx) -> tuple[str, str]:
    """(authid, authtype) of a write: the signed-in user's name ("user": a sync's is its source's owner), or the
    system's source ("system": the context's user name, such as `demo`, else `system:DOOR`)."""
    actor = ctx.actor
    if actor is not None and getattr(actor, "pk", None):
        return actor.get_username(), "user"
    return ctx.user or f"system:{ctx.audit_door}", "system"


def record(ctx, path: str, operation: str, epochs: tuple, event_id, time, actor: tuple[str, str] | None = None) -> Part:
    """The audit row of one change (the services' event writer sends it with the change's outbox row and change
    count, in the change's transaction: registry/sent_together.py); `actor`: `actor_of(ctx)` when the caller has it."""
    values = _values(ctx, actor if actor is not None else actor_of(ctx), path, operation, epochs, time)
    return insert_part(AuditRecord, {**values, "event": event_id})


def rows(ctx, changes: list[tuple[str, str, tuple]], time) -> list[AuditRecord]:
    """Unsaved audit rows for many changes of one write ((path, operation, epochs)): the bulk writer's."""
    actor = actor_of(ctx)
    return [AuditRecord(**_values(ctx, actor, path, operation, epochs, time)) for path, operation, epochs in changes]


def _values(ctx, actor: tuple[str, str], path: str, operation: str, epochs: tuple, time) -> dict:
    """An audit row's fields (but its event) for one change."""
    authid, authtype = actor
    return {
        "time": time,
        "actor": authid,
        "authtype": authtype,
        "door": ctx.audit_door,
        "via": ctx.via,
        "path": path,
        "group_path": group_path_of(path),
        "operation": operation,
        "epoch_before": epochs[0],
        "epoch_after": epochs[1],
    }


def record_now(ctx, path: str, operation: str) -> AuditRecord:
    """The audit row of a change to something that is not a registry entity and sends no change event (a
    subscription: `/subscriptions/ID`), written at once in the caller's transaction; no epochs."""
    return AuditRecord.objects.create(**_values(ctx, actor_of(ctx), path, operation, (None, None), ctx.now))
