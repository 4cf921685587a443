"""Writing a bulk import: new and changed entities in bulk, one transaction per batch of groups, each with
the outbox rows of its change events, coalesced to one `updated` event per changed group.

On PostgreSQL, versions (the bulk of the rows) are written with COPY; elsewhere with multi-row INSERTs.
Epochs follow the contract: 1 for new entities, + 1 for changed groups and versions.
"""
from __future__ import annotations

from collections import defaultdict

from django.db import connection, transaction
from django.utils import timezone

from registry.attributes import version_sort_key
from registry.documents.flatten import EntityRecord
from registry.models import Group, Resource, Version
from registry.services.context import WriteContext
from registry.services.events import emit_updated

COMMON = ("name", "description", "tags", "docs")
VERSION_COLUMNS = ("name", "description", "tags", "docs", "extensions", "created_by", "created_on", "modified_by",
                   "modified_on", "resource_id", "vid", "epoch", "content", "media_type", "resource_uri")


def _split(attributes: dict) -> dict:
    fields = {k: attributes.get(k) for k in COMMON}
    fields["tags"] = fields["tags"] or {}
    fields["extensions"] = {k: v for k, v in attributes.items() if k not in COMMON}
    return fields


def _copy_versions(rows: list[tuple]) -> None:
    import json

    with connection.cursor() as cursor:
        raw = cursor.cursor if hasattr(cursor, "cursor") else cursor
        with raw.copy(f"COPY {Version._meta.db_table} ({', '.join(VERSION_COLUMNS)}) FROM STDIN") as copy:
            for row in rows:
                values = list(row)
                values[2] = json.dumps(values[2])
                values[4] = json.dumps(values[4])
                copy.write_row(values)


def write_batch(ctx: WriteContext, records: list[tuple[str, EntityRecord]], existing: dict[str, int]) -> None:
    """Write one batch (complete groups) in one transaction. `records` are (status, record) with status
    new or changed; `existing` maps paths of stored entities to their primary keys."""
    now = ctx.now
    changed_groups: set[str] = set()
    with transaction.atomic():
        group_ids = {}
        for status, record in (r for r in records if r[1].kind == "group"):
            fields = _split(record.attributes)
            if status == "new":
                group = Group.objects.create(group_type=record.group_type, gid=record.gid, epoch=1,
                                             created_by=ctx.user, created_on=now, modified_by=ctx.user,
                                             modified_on=now, **fields)
            else:
                group = Group.objects.get(pk=existing[record.path])
                for key, value in fields.items():
                    setattr(group, key, value)
                group.epoch += 1
                group.modified_by, group.modified_on = ctx.user, now
                group.save()
            group_ids[record.path] = group.pk
            changed_groups.add(record.path)

        def group_pk(path):
            return group_ids.get(path) or existing[path]

        new_resources = []
        for status, record in (r for r in records if r[1].kind == "resource"):
            fields = _split(record.attributes)
            changed_groups.add(record.group_path)
            if status == "new":
                new_resources.append(Resource(group_id=group_pk(record.group_path), resource_type=record.resource_type,
                                              rid=record.rid, created_by=ctx.user, created_on=now,
                                              modified_by=ctx.user, modified_on=now, **fields))
            else:
                Resource.objects.filter(pk=existing[record.path]).update(modified_by=ctx.user, modified_on=now,
                                                                         **fields)
        # bulk_create returns primary keys on PostgreSQL and SQLite >= 3.35
        resource_ids = {(r.group_id, r.resource_type, r.rid): r.pk
                        for r in Resource.objects.bulk_create(new_resources, batch_size=2000)}

        def resource_pk(record):
            if record.resource_path in existing:
                return existing[record.resource_path]
            return resource_ids[(group_pk(record.group_path), record.resource_type, record.rid)]

        rows, touched = [], set()
        for status, record in (r for r in records if r[1].kind == "version"):
            fields = _split(record.attributes)
            pk = resource_pk(record)
            touched.add(pk)
            changed_groups.add(record.group_path)
            if status == "new":
                rows.append((fields["name"], fields["description"], fields["tags"], fields["docs"],
                             fields["extensions"], ctx.user, now, ctx.user, now, pk, record.vid, 1,
                             record.document, record.media_type, record.resource_uri))
            else:
                version = Version.objects.get(pk=existing[record.path])
                for key, value in fields.items():
                    setattr(version, key, value)
                version.content, version.media_type = record.document, record.media_type
                version.resource_uri = record.resource_uri
                version.epoch += 1
                version.modified_by, version.modified_on = ctx.user, now
                version.save()
        if rows and connection.vendor == "postgresql":
            _copy_versions(rows)
        elif rows:
            Version.objects.bulk_create([Version(**dict(zip(VERSION_COLUMNS, row, strict=True))) for row in rows],
                                        batch_size=2000)
        _refresh_latest(touched)
        for path in sorted(changed_groups):
            emit_updated(ctx, path, timezone.now())


def _refresh_latest(resource_ids: set[int]) -> None:
    """Point each touched resource at its greatest version and move its version counter past numeric ids."""
    versions = defaultdict(list)
    for pk, resource_id, vid in Version.objects.filter(resource_id__in=resource_ids).values_list("pk", "resource_id", "vid"):
        versions[resource_id].append((vid, pk))
    updates = []
    for resource in Resource.objects.filter(pk__in=resource_ids).only("pk", "latest", "version_counter"):
        entries = versions.get(resource.pk)
        if not entries:
            continue
        vid, pk = max(entries, key=lambda e: version_sort_key(e[0]))
        resource.latest_id = pk
        numeric = [int(v) for v, _ in entries if v.isdigit()]
        resource.version_counter = max([resource.version_counter, *numeric])
        updates.append(resource)
    Resource.objects.bulk_update(updates, ["latest", "version_counter"], batch_size=2000)
