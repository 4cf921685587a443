"""Change events: written to the outbox in the writing transaction, announced after commit.

`emit_updated` / `emit_deleted` add one outbox row per entity path written (docs/api-contract.md sections 8 and 9),
with its actor (the CloudEvents `authcontext`), and the change's audit row (registry/store/audit.py). Their statements read
nothing back, so that a caller can send them with its own as one statement (registry/sent_together.py).
Apps that deliver events (subscriptions/) register a callback with `register_on_commit`
(registry/commit_listeners.py); the engine itself knows nothing of delivery.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from django.db import transaction

from ..commit_listeners import (
    WrittenPaths,
    on_commit_listeners,
    on_commit_path_listeners,
    register_on_commit,  # noqa: F401  (re-exported)
)
from ..commit_listeners import announce as _announce
from ..domain.attributes import Attributes
from ..domain.model import registry_model
from ..models import OutboxEvent
from ..sent_together import insert_part
from ..store import audit
from ..store.change_marker import count_change
from .context import WriteContext

# an entity's epoch before and after a change (None: it was not there, or is not any more)
Epochs = tuple[int | None, int | None]


def _event_type(path: str, action: str) -> str:
    group_type = registry_model[path.split("/")[1]]
    return f"{group_type.event_type_prefix}.{action}.v1"


def _emit(
    ctx: WriteContext,
    path: str,
    action: str,
    time: datetime,
    operation: str | None,
    epochs: Epochs,
    changes: Attributes | None,
) -> None:
    authid, authtype = actor = audit.actor_of(ctx)
    event_id = uuid.uuid4()
    # the rows' values, not model instances (building those cost as much as the rest of their Python), and one
    # statement with the change count (registry/sent_together.py)
    parts = [
        insert_part(
            OutboxEvent,
            {
                "id": event_id,
                "type": _event_type(path, action),
                "source": ctx.base_url or "/",
                "subject": path,
                "time": time,
                "authtype": authtype,
                "authid": authid,
                "owners": ctx.group_owners(path) or None,  # who may be told of it when reads are not public
            },
        )
    ]
    if operation is not None:  # its audit row, in the same transaction (registry/store/audit.py)
        parts.append(audit.record(ctx, path, operation, epochs, event_id, time, actor, changes))
    ctx.emitted += 1
    count_change(
        ctx, tuple(parts)
    )  # the change marker moves when this transaction commits (registry/store/change_marker.py)
    if on_commit_listeners and not _announcement_pending():
        # robust: a failing announcement (broker down) must not fail a change that has committed; the
        # periodic sweep relays the outbox anyway
        transaction.on_commit(_announce, robust=True)
    if on_commit_path_listeners:
        _note_written(path)


def _note_written(path: str) -> None:
    """Add `path` to this transaction's paths for the path listeners (registry/commit_listeners.py), registered to
    run after it commits (robust: what they keep is rebuilt when read, should they fail). Outside a transaction Django
    runs the callback at once: the path is added before it is registered."""
    connection = transaction.get_connection()
    for _savepoints, callback, _robust in connection.run_on_commit:
        if isinstance(callback, WrittenPaths):
            callback.paths[path] = None
            return
    pending = WrittenPaths()
    pending.paths[path] = None
    transaction.on_commit(pending, robust=True)


def _announcement_pending() -> bool:
    """Whether this transaction already announces its events on commit: one announcement per transaction,
    however many events it writes (an import writes thousands). Django drops the callbacks of a savepoint
    that rolls back, so a later event of the same transaction registers again."""
    return any(callback is _announce for _savepoints, callback, _robust in transaction.get_connection().run_on_commit)


def emit_updated(
    ctx: WriteContext,
    path: str,
    modified_on: datetime,
    *,
    created: bool = False,
    epochs: Epochs = (None, None),
    changes: Attributes | None = None,
    audited: bool = True,
) -> None:
    """The `updated` event of the entity at `path` and its audit row: a creation (`created`) or an update, with the
    entity's epoch before and after (`epochs`) and what changed (`changes`: registry/store/audit.py `changes`).
    `audited=False`: the caller records the audit rows itself (the bulk writer, whose group events stand for many
    entities)."""
    operation = ("create" if created else "update") if audited else None
    _emit(ctx, path, "updated", modified_on, operation, epochs, changes)


def emit_deleted(ctx: WriteContext, path: str, *, epoch: int | None = None, changes: Attributes | None = None) -> None:
    """The `deleted` event of the entity at `path` (its epoch when deleted) and its audit row (`changes`: what was
    there)."""
    _emit(ctx, path, "deleted", ctx.now, "delete", (epoch, None), changes)
