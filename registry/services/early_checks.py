"""A new version's check made before its resource's lock, so that under the lock the new document is compared only with
the versions written since (issue 29).

Every write of a resource's versions holds the resource's row lock until it commits (registry/services/locked_reads.py),
and the check of the new document against the earlier versions (under `backward_transitive`, every one of them) was
most of that time. So, before the lock, a new version is checked as it would be under it, against what this process
last saw of the resource, without a query: the resource's and its latest version's attributes as this process's last
new version of it left them, and the earlier documents this process keeps (registry/store/earlier_documents.py).

Under the lock the version is built from what is read there, and checked again where what the check reads differs from
what the early check read (compared by value): the common rules of every version (`validate_version`: attributes,
link, a document that parses) when the version's attributes, document, media type or URI differ; the referenced
documents are resolved again (a resolver may read the database). When all the check's inputs are those of the early
check (the version's attributes, the resource's and the group's, the document, the referenced documents), the hook is
told that they passed it (`VersionCheck.passed_before_lock`) and how many of the earlier documents, first to last, are
the ones the early check passed with (`VersionCheck.previous_checked`): the schemas' hook (catalog/hooks.py) does not
check the document alone again, and compares it with the others alone: usually the few versions other processes wrote
in the meantime, often none. What a hook reads from the database it reads again.

An early check that fails (any problem, or any error its guessed inputs lead to) is dropped: the check under the lock compares with every version and answers,
so every answer, refusals included, stays what it was. Nothing is written or locked before the lock. A process's first
new version of a resource (nothing seen yet) has no early check, nor has a type whose check reads no earlier documents.

Memory: per process, the attributes of at most SEEN resources and at most SEEN_BYTES of their last documents (then all
are forgotten at once).
"""

from __future__ import annotations

import dataclasses
import threading

from django.db import DatabaseError

from ..domain.model import ResourceType
from ..models import Group, Resource, Version
from ..store.earlier_documents import kept_documents
from .context import WriteContext
from .inputs import VersionInput, absorb_document, inherited
from .versions import (
    Checked,
    resource_attributes,
    set_resource_attributes,
    unsaved_version,
    validate_version,
    version_attributes,
)

SEEN = 10_000
SEEN_BYTES = 8 * 1024 * 1024


@dataclasses.dataclass(frozen=True)
class _Seen:
    resource_id: int
    attributes: dict  # the resource's
    latest: dict  # its latest version's
    written: tuple | None  # that version as an earlier document: (created_on, id, format, document)

    @property
    def size(self) -> int:
        return len(self.written[3]) if self.written is not None else 0


# (group's id, resource type, resource id) -> the resource as this process's last new version of it left it
_seen: dict[tuple[int, str, str], _Seen] = {}
_seen_bytes = 0
_seen_lock = threading.Lock()


def check_early(ctx: WriteContext, group: Group, rt: ResourceType, rid: str, inp: VersionInput) -> Checked | None:
    """A new version of the resource `rid` made of `inp`, checked (`validate_version`) against what this process last
    saw of the resource, before its lock: what the check compared, or None (nothing seen, or a problem)."""
    seen = _seen.get((group.pk, rt.plural, rid))
    documents = kept_documents(seen.resource_id, seen.written) if seen is not None else None
    if seen is None or documents is None:
        return None
    resource = Resource(pk=seen.resource_id, group=group, resource_type=rt.plural, rid=rid)
    set_resource_attributes(resource, seen.attributes)
    mine = dataclasses.replace(inp, attributes=dict(inp.attributes))  # the input is read again under the lock
    try:
        ctx.authorize("version", "create", f"{resource.path}/versions")
        absorb_document(rt, mine, rid)
        version, attrs = unsaved_version(ctx, resource, rt, mine, inherited(seen.latest, mine), mine.version_id or "")
        return validate_version(
            ctx,
            resource,
            rt,
            version,
            attrs,
            is_update=False,
            referenced_documents=mine.referenced_documents,
            earlier=lambda _exclude: documents,
            before_lock=True,
            history=mine.history,
        )
    except DatabaseError:
        raise  # (the transaction cannot go on)
    except Exception:  # noqa: BLE001 - a problem, or anything the guessed inputs led to: the check under the lock answers
        return None


def remember(group: Group, rid: str, resource: Resource, version: Version) -> None:
    """What a new version of the resource `rid` (written, under its lock) leaves for the next one's early check."""
    global _seen_bytes
    key = (group.pk, resource.resource_type, rid)
    seen = None
    if resource.latest_id == version.pk:  # (not so under a sticky default version: nothing is kept)
        written = None
        if version.content is not None and len(version.content) <= SEEN_BYTES // 16:
            written = (version.created_on, version.pk, version.extensions.get("format"), bytes(version.content))
        seen = _Seen(resource.pk, resource_attributes(resource), version_attributes(version), written)
    with _seen_lock:
        old = _seen.pop(key, None)
        _seen_bytes -= old.size if old is not None else 0
        if seen is None:
            return
        if len(_seen) >= SEEN or _seen_bytes + seen.size > SEEN_BYTES:
            _seen.clear()
            _seen_bytes = 0
        _seen[key] = seen
        _seen_bytes += seen.size
