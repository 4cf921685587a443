"""The services' bulk entry point (the Spark import's): new and changed entities written in bulk, one
transaction per batch of groups, each with the outbox rows of its change events, coalesced to one `updated`
event per changed group.

The caller brings entities already judged one by one by the same rules as the other doors: validated by the
types' hooks (on Spark's executors, through the same validators), refused when synced from elsewhere
(`bulk_refusal`, the origin guard of `WriteContext`), and a new resource only together with an accepted
version. What this module owns is how they are stored, and that the invariants of the single writes hold:
epochs (1 for new entities, + 1 for changed groups and versions), the latest version, the version counter,
the type's retention (`versions.apply_retention`, with its `deleted` events) and the change events.

New resources and versions, nearly all the rows of a large import, are inserted with COPY on PostgreSQL and
with multi-row INSERTs elsewhere; groups and changed entities, few, go through the ORM. Every touched
resource is then pointed at its latest version: in one statement on PostgreSQL, one per resource elsewhere.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from typing import TypeVar, cast

from django.db import connection, transaction
from django.db.models import Count
from django.utils import timezone

from ..documents.flatten import EntityRecord
from ..domain.attributes import Attributes, version_sort_key
from ..domain.errors import Problem
from ..domain.model import registry_model
from ..models import AuditRecord, Group, Resource, Version
from ..store import audit
from .context import WriteContext
from .events import Epochs, emit_updated
from .registry_state import touch_registry
from .versions import apply_retention, refresh_latest

_T = TypeVar("_T")
_Row = TypeVar("_Row", Resource, Version, AuditRecord)

COMMON = ("name", "description", "tags", "docs")
ENTITY_COLUMNS = (
    "name",
    "description",
    "tags",
    "docs",
    "extensions",
    "created_by",
    "created_on",
    "modified_by",
    "modified_on",
)
RESOURCE_COLUMNS = (*ENTITY_COLUMNS, "group_id", "resource_type", "rid", "version_counter", "epoch")
VERSION_COLUMNS = (
    *ENTITY_COLUMNS,
    "resource_id",
    "vid",
    "epoch",
    "content",
    "media_type",
    "resource_uri",
    "compatibility_check",
)
JSON_COLUMNS = ("tags", "extensions", "changes")
AUDIT_COLUMNS = (
    "time",
    "actor",
    "authtype",
    "door",
    "via",
    "path",
    "group_path",
    "group_pk",
    "operation",
    "epoch_before",
    "epoch_after",
    "changes",
)
QUERY_CHUNK = 10_000  # ids per `IN (...)` query, well below the databases' limits on parameters


def _split(attributes: Attributes) -> tuple[dict[str, object], Attributes]:
    """(an entity's column values, its extension attributes among them as `extensions`; those extensions)"""
    fields = {k: attributes.get(k) for k in COMMON}
    fields["tags"] = fields["tags"] or {}
    fields["extensions"] = extensions = {k: v for k, v in attributes.items() if k not in COMMON}
    return fields, extensions


def _entity_values(fields: dict[str, object], ctx: WriteContext) -> tuple[object, ...]:
    return (
        fields["name"],
        fields["description"],
        fields["tags"],
        fields["docs"],
        fields["extensions"],
        ctx.user,
        ctx.now,
        ctx.user,
        ctx.now,
    )


def _insert(model: type[_Row], columns: tuple[str, ...], rows: list[tuple[object, ...]]) -> None:
    """Insert new rows: with COPY on PostgreSQL (Django has no COPY; psycopg's is used directly), with
    bulk_create elsewhere."""
    if connection.vendor != "postgresql":
        model.objects.bulk_create([model(**dict(zip(columns, row, strict=True))) for row in rows], batch_size=2000)
        return
    json_at = [n for n, column in enumerate(columns) if column in JSON_COLUMNS]
    with connection.cursor() as cursor:
        raw = cursor.cursor if hasattr(cursor, "cursor") else cursor
        with raw.copy(f"COPY {model._meta.db_table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                values = list(row)
                for n in json_at:
                    if values[n] is not None:
                        values[n] = json.dumps(values[n])
                copy.write_row(values)


def _audit_values(fields: dict[str, object]) -> tuple[object, ...]:
    return tuple(fields[column] for column in AUDIT_COLUMNS)


def _chunks(items: list[_T], size: int = QUERY_CHUNK) -> Iterator[list[_T]]:
    return (items[n : n + size] for n in range(0, len(items), size))


def bulk_refusal(*, ctx: WriteContext, record: EntityRecord, origins: dict[str, str]) -> str | None:
    """The origin guard for an entity known by its path: an entity synced from another registry, or anything
    inside a synced group or resource, changes only through its sync. `origins` maps the paths of synced
    groups and resources to their source. The refusal as the API words it, or None."""
    held = [record.group_path] + ([record.resource_path] if record.kind == "version" else []) + [record.path]
    for path in (p for p in held if p is not None):  # named by the synced entity's path, as the API names it
        try:
            ctx.guard_origin(path, origins.get(path))
        except Problem as problem:
            return problem.detail
    return None


def bulk_write(*, ctx: WriteContext, records: list[tuple[str, EntityRecord]], existing: dict[str, int]) -> None:
    """Write one batch (complete groups) in one transaction. `records` are (status, record) with status
    new or changed, each accepted by the caller (see the module docstring); `existing` maps paths of stored
    entities to their primary keys."""
    now = ctx.now
    changed_groups: set[str] = set()
    # (path, operation, epochs, changes): one audit row per entity written, with what it changed (registry/store/audit.py)
    audited: list[tuple[str, str, Epochs, Attributes]] = []
    with transaction.atomic():
        group_ids: dict[str, int] = {}
        for status, record in (r for r in records if r[1].kind == "group"):
            fields, _extensions = _split(record.attributes)
            if status == "new":
                group = Group.objects.create(
                    group_type=record.group_type,
                    gid=record.gid,
                    epoch=1,
                    created_by=ctx.user,
                    created_on=now,
                    modified_by=ctx.user,
                    modified_on=now,
                    **fields,
                )
                touch_registry(ctx)
                before = None
            else:
                group = Group.objects.get(pk=existing[record.path])
                before = audit.state(group, record.path)
                for key, value in fields.items():
                    setattr(group, key, value)
                group.epoch += 1
                group.modified_by, group.modified_on = ctx.user, now
                group.save()
            operation, epochs = "create" if status == "new" else "update", (group.epoch - 1 or None, group.epoch)
            audited.append((record.path, operation, epochs, audit.changes(before, audit.state(group, record.path))))
            group_ids[record.path] = group.pk
            ctx.saw_group(group)  # for its events and audit rows (no look-up)
            changed_groups.add(record.path)

        def group_pk(path: str) -> int:
            return group_ids.get(path) or existing[path]

        new_resources: list[tuple[object, ...]] = []
        new_groups: set[int] = set()  # the groups of the new resources
        resource_records = [r for r in records if r[1].kind == "resource"]
        stored = _stored_resources([existing[r.path] for s, r in resource_records if s != "new"])
        for status, record in resource_records:
            fields, extensions = _split(record.attributes)
            changed_groups.add(record.group_path)
            before = audit.state(stored[existing[record.path]], record.path) if status != "new" else None
            after = audit.fields_state(record.path, fields, extensions)
            operation = "create" if status == "new" else "update"
            audited.append((record.path, operation, (None, None), audit.changes(before, after)))
            if status == "new":
                new_groups.add(group_pk(record.group_path))
                new_resources.append(
                    (*_entity_values(fields, ctx), group_pk(record.group_path), record.resource_type, record.rid, 0, 1)
                )
            else:
                Resource.objects.filter(pk=existing[record.path]).update(
                    modified_by=ctx.user, modified_on=now, **fields
                )
        _insert(Resource, RESOURCE_COLUMNS, new_resources)
        resource_ids: dict[tuple[int, str | None, str | None], int] = {}
        for chunk in _chunks(sorted(new_groups)):
            for pk, group_id, resource_type, rid in Resource.objects.filter(group_id__in=chunk).values_list(
                "pk", "group_id", "resource_type", "rid"
            ):
                resource_ids[(group_id, resource_type, rid)] = pk

        def resource_pk(record: EntityRecord) -> int:
            if record.resource_path in existing:
                return existing[record.resource_path]
            return resource_ids[(group_pk(record.group_path), record.resource_type, record.rid)]

        rows: list[tuple[object, ...]] = []
        touched: set[int] = set()
        for status, record in (r for r in records if r[1].kind == "version"):
            fields, extensions = _split(record.attributes)
            pk = resource_pk(record)
            touched.add(pk)
            changed_groups.add(record.group_path)
            if status == "new":
                document = (record.document, record.media_type, record.resource_uri)
                created = audit.changes(None, audit.fields_state(record.path, fields, extensions, document))
                audited.append((record.path, "create", (None, 1), created))
                rows.append(
                    (
                        *_entity_values(fields, ctx),
                        pk,
                        record.vid,
                        1,
                        record.document,
                        record.media_type,
                        record.resource_uri,
                        record.compatibility_check,
                    )
                )
            else:
                version = Version.objects.get(pk=existing[record.path])
                before = audit.state(version, record.path)
                for key, value in fields.items():
                    setattr(version, key, value)
                version.content, version.media_type = record.document, record.media_type
                version.resource_uri = record.resource_uri
                version.compatibility_check = record.compatibility_check
                version.epoch += 1
                version.modified_by, version.modified_on = ctx.user, now
                version.save()
                changes = audit.changes(before, audit.state(version, record.path))
                audited.append((record.path, "update", (version.epoch - 1, version.epoch), changes))
        # a resource's new versions are created in version-id order (attributes.version_sort_key), so that the order
        # they were created in (attributes.version_order) is the order they were checked in (pipeline/spark/entities.py)
        resource_at, vid_at = VERSION_COLUMNS.index("resource_id"), VERSION_COLUMNS.index("vid")
        # (the columns' values: a resource's row id and a version id)
        rows.sort(key=lambda row: (cast(int, row[resource_at]), version_sort_key(cast(str, row[vid_at]))))
        _insert(Version, VERSION_COLUMNS, rows)
        _refresh_latest(sorted(touched))
        _retain(ctx, sorted(touched))
        _insert(AuditRecord, AUDIT_COLUMNS, [_audit_values(row) for row in audit.fields_of(ctx, audited, now)])
        for path in sorted(changed_groups):
            emit_updated(ctx, path, timezone.now(), audited=False)  # audited entity by entity above


def _stored_resources(pks: list[int]) -> dict[int, Resource]:
    """The stored rows of the resources a batch changes (their attributes before: the audit trail's), by id."""
    found: dict[int, Resource] = {}
    for chunk in _chunks(pks):
        found.update((resource.pk, resource) for resource in Resource.objects.filter(pk__in=chunk))
    return found


def _retain(ctx: WriteContext, resource_ids: list[int]) -> None:
    """The services' retention (`registry.services.versions.apply_retention`, with its `deleted` events) for the
    touched resources of types that keep a bounded number of versions and now hold more than one."""
    bounded = {
        (gt.plural, rt.plural): rt for gt in registry_model.group_types for rt in gt.resources if rt.versions >= 0
    }
    if not bounded:
        return
    for chunk in _chunks(resource_ids):
        several = (
            Version.objects.filter(resource_id__in=chunk)
            .order_by()
            .values("resource_id")
            .annotate(n=Count("pk"))
            .filter(n__gt=1)
            .values_list("resource_id", flat=True)
        )
        for resource in Resource.objects.filter(pk__in=list(several)).select_related("group"):
            rt = bounded.get((resource.group.group_type, resource.resource_type))
            if rt is not None and apply_retention(ctx, resource, rt):
                refresh_latest(resource)


def _refresh_latest(resource_ids: list[int]) -> None:
    """Point each touched resource at its latest version (the sticky default it names, else the greatest id:
    `services.versions.refresh_latest`'s rule) and move its version counter past numeric ids."""
    versions = defaultdict(list)
    for chunk in _chunks(resource_ids):
        for pk, resource_id, vid in Version.objects.filter(resource_id__in=chunk).values_list(
            "pk", "resource_id", "vid"
        ):
            versions[resource_id].append((vid, pk))
    counters: dict[int, int] = {}
    sticky: dict[int, str | None] = {}  # resource -> the version its sticky default names
    for chunk in _chunks(resource_ids):
        for pk, counter, extensions in Resource.objects.filter(pk__in=chunk).values_list(
            "pk", "version_counter", "extensions"
        ):
            counters[pk] = counter
            if isinstance(extensions, dict) and extensions.get("defaultversionsticky"):
                sticky[pk] = extensions.get("defaultversionid")
    updates = []
    for resource_id, entries in versions.items():
        named = [pk for vid, pk in entries if resource_id in sticky and vid == sticky[resource_id]]
        latest = named[0] if named else max(entries, key=lambda e: version_sort_key(e[0]))[1]
        counter = max([counters[resource_id], *(int(v) for v, _pk in entries if v.isdigit())])
        updates.append((latest, counter, resource_id))
    if not updates:
        return
    table = Resource._meta.db_table
    with connection.cursor() as cursor:  # Django's bulk_update would build a CASE WHEN per row
        if connection.vendor == "postgresql":  # one statement for all rows, joined with them as arrays
            cursor.execute(
                f"UPDATE {table} AS r SET latest_id = u.latest, version_counter = u.counter FROM "
                "unnest(%s::bigint[], %s::bigint[], %s::bigint[]) AS u(latest, counter, id) "
                "WHERE r.id = u.id",
                [list(column) for column in zip(*updates, strict=True)],
            )
        else:
            cursor.executemany(f"UPDATE {table} SET latest_id = %s, version_counter = %s WHERE id = %s", updates)
