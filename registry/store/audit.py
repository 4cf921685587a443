"""The audit trail (docs/teams.md): every committed change records who made it (a user's name, or the system's
source: a command), through which door (a binding, the admin, an import, Spark, sync: `via` names the sync's source,
whose owner is the actor), what (the entity's store path, create/update/delete, its epoch before and after, the
attributes it changed) and when, in the change's own transaction beside its outbox row (registry/services/events.py),
so a rollback leaves neither. The same actor travels with the change event as the CloudEvents `authcontext` extension
(`authtype`, `authid`).

What changed (`changes`: attribute -> `{"before": ..., "after": ...}`) is worked out by the services, which hold the
entity before and after the write (`state`, `changes`): a creation lists the attributes set (no `before`), a delete
what was there (no `after`), an update the attributes that differ. A document is shown as its digest and size, never
its bytes; a secret never at all: a value under a name that holds secrets (`SECRET_WORDS`) is `***`, and so is the
password in a URL's user info; a caller with secrets of its own shows them as it shows them elsewhere (`shown`: the
subscriptions' masked sink and settings).

Each row names the group it concerns by the group's row id (`group_pk`), not only by its path: a group deleted and
made again with the same id by another team is another group, and its owners read its rows only.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable
from typing import Any

from ..access.permissions import group_path_of
from ..domain.model import registry_model
from ..models import AuditRecord
from ..sent_together import Part, insert_part

SECRET = "***"
# names (any part of them, irrespective of case) whose values are secrets: a sync source's `token`, a sink's
# `password`, an `Authorization` header, a Confluent `basic.auth.user.info`, a client's `secret`, API keys ...
SECRET_WORDS = ("password", "passwd", "secret", "token", "apikey", "api_key", "api-key", "credential", "authorization")
SECRET_NAMES = frozenset({"pwd", "auth", "userinfo", "user.info", "user_info", "privatekey", "private_key"})
_SECRET_WORD = re.compile("|".join(map(re.escape, SECRET_WORDS)))  # (no cache: docs/performance.md, caches)
# the password of a URL's user info (`amqp://user:PASSWORD@host`)
URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*:)[^@/\s]*@")
ABSENT = object()
COMMON = ("name", "description", "tags", "docs")

# how a caller shows one attribute's value; each takes the type its attribute holds (a sink's str, a settings dict)
Shown = Callable[[Any], object]


def actor_of(ctx) -> tuple[str, str]:
    """(authid, authtype) of a write: the signed-in user's name ("user": a sync's is its source's owner), or the
    system's source ("system": the context's user name, such as `demo`, else `system:DOOR`)."""
    actor = ctx.actor
    if actor is not None and getattr(actor, "pk", None):
        return actor.get_username(), "user"
    return ctx.user or f"system:{ctx.audit_door}", "system"


def record(
    ctx,
    path: str,
    operation: str,
    epochs: tuple,
    event_id,
    time,
    actor: tuple[str, str] | None = None,
    changes: dict | None = None,
) -> Part:
    """The audit row of one change (the services' event writer sends it with the change's outbox row and change
    count, in the change's transaction: registry/sent_together.py); `actor`: `actor_of(ctx)` when the caller has it;
    `changes`: what `changes()` made of the entity before and after."""
    values = _values(ctx, actor if actor is not None else actor_of(ctx), path, operation, epochs, time, changes)
    return insert_part(AuditRecord, {**values, "event": event_id})


def rows(ctx, changes: list[tuple[str, str, tuple, dict]], time) -> list[AuditRecord]:
    """Unsaved audit rows for many changes of one write ((path, operation, epochs, changes))."""
    return [AuditRecord(**values) for values in fields_of(ctx, changes, time)]


def fields_of(ctx, changes: list[tuple[str, str, tuple, dict]], time) -> list[dict]:
    """The fields of the audit rows of many changes of one write, as `rows` but no models: the bulk writer's, which
    copies them into the table (a model each cost more than the rest of its audit row)."""
    actor = actor_of(ctx)
    return [_values(ctx, actor, path, operation, epochs, time, changed) for path, operation, epochs, changed in changes]


def record_now(ctx, path: str, operation: str, changes: dict | None = None) -> AuditRecord:
    """The audit row of a change to something that is not a registry entity and sends no change event (a
    subscription: `/subscriptions/ID`), written at once in the caller's transaction; no epochs, no group (registry
    admins alone read it: registry/audit_views.py); `changes`: what `changes()` made of it before and after, with the
    caller's own masking."""
    values = _values(ctx, actor_of(ctx), path, operation, (None, None), ctx.now, changes, group_pk=None)
    return AuditRecord.objects.create(**values)


def _values(ctx, actor: tuple[str, str], path: str, operation: str, epochs: tuple, time, changes, group_pk=...) -> dict:
    """An audit row's fields (but its event) for one change; `group_pk`: the row id of its group, when the caller
    knows it (else the context's)."""
    authid, authtype = actor
    group_path = group_path_of(path)
    return {
        "time": time,
        "actor": authid,
        "authtype": authtype,
        "door": ctx.audit_door,
        "via": ctx.via,
        "path": path,
        "group_path": group_path,
        "group_pk": (ctx.group_pks.get(group_path) or ctx.group_pk(group_path)) if group_pk is ... else group_pk,
        "operation": operation,
        "epoch_before": epochs[0],
        "epoch_after": epochs[1],
        "changes": changes,
    }


# --- what changed ------------------------------------------------------------------------------------------------


def state(entity, path: str) -> dict:
    """A registry entity's attributes as the audit trail compares them (attribute -> value): its common attributes
    and extensions; a version's document (as its bytes: `changes` shows a digest), media type (`contenttype`) and
    link (its type's `...URI`). Epochs and the modification stamps are the row's own fields, not attributes here."""
    out = {key: value for key in COMMON if (value := getattr(entity, key)) not in (None, {}, "")}
    out.update(entity.extensions or {})
    if hasattr(entity, "content"):  # a version
        _document(out, path, entity.content, entity.media_type, entity.resource_uri)
    return out


def fields_state(path: str, fields: dict, extensions: dict | None, document: tuple | None = None) -> dict:
    """`state` of an entity known by its fields' values (the bulk writer's): the common attributes in `fields`, the
    `extensions`, and a version's (document, media type, link)."""
    out = {key: value for key in COMMON if (value := fields.get(key)) not in (None, {}, "")}
    out.update(extensions or {})
    if document is not None:
        _document(out, path, *document)
    return out


def _document(out: dict, path: str, content, media_type, link) -> None:
    """A version's document (its bytes), media type and link, in its `state`."""
    document_name, uri_name = _document_names(path)
    if content:
        out[document_name] = content if type(content) is bytes else bytes(content)  # (PostgreSQL's: a memoryview)
    if media_type:
        out["contenttype"] = media_type
    if link:
        out[uri_name] = link


def _document_names(path: str) -> tuple[str, str]:
    """The names of a version's document and link for the version at `path` (its type's: `schema`, `schemaURI`)."""
    parts = path.split("/", 4)
    return _names_of(parts[1], parts[3]) if len(parts) > 4 else ("document", "documentURI")


@functools.cache
def _names_of(group_type: str, resource_type: str) -> tuple[str, str]:
    try:
        rt = registry_model[group_type].resource_type(resource_type)
    except KeyError:
        return "document", "documentURI"
    return rt.singular, rt.uri_attribute


def changes(before: dict | None, after: dict | None, shown: dict[str, Shown] | None = None) -> dict:
    """What differs between an entity's `state` before and after a change (None: it did not exist), as the audit
    row keeps it: attribute -> `{"before": ..., "after": ...}`, a member left out where the attribute was not there.
    Values are shown by `shown[attribute]` when given (a caller's own masking), else by `shown_value`."""
    shown = shown or {}
    if not before:  # a creation: every attribute set (the common case of the writes, kept short)
        return {
            key: {"after": show(value) if (show := shown.get(key)) else shown_value(key, value)}
            for key, value in sorted((after or {}).items())
        }
    after = after or {}
    out = {}
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key, ABSENT), after.get(key, ABSENT)
        if old == new and type(old) is type(new):
            continue
        show = shown.get(key)
        entry = {}
        if old is not ABSENT:
            entry["before"] = show(old) if show is not None else shown_value(key, old)
        if new is not ABSENT:
            entry["after"] = show(new) if show is not None else shown_value(key, new)
        out[key] = entry
    return out


def is_secret_name(name: str) -> bool:
    lowered = name.lower()
    return lowered in SECRET_NAMES or _SECRET_WORD.search(lowered) is not None


def shown_value(name: str, value):
    """A value as the audit trail shows it: a document (bytes) as `{"digest": "sha256:...", "size": N}`; `***` for a
    value under a secret's name (`is_secret_name`), at any depth; a URL's password masked in every string."""
    if is_secret_name(name):
        return SECRET
    if isinstance(value, str):
        return URL_PASSWORD.sub(rf"\g<head>{SECRET}@", value) if "@" in value else value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"digest": "sha256:" + hashlib.sha256(value).hexdigest(), "size": len(value)}
    if isinstance(value, dict):
        return {key: shown_value(str(key), item) for key, item in value.items()}
    if isinstance(value, list):
        return [shown_value("", item) for item in value]
    return value
