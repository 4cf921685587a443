"""Schema ids and subject version numbers (docs/confluent.md).

A schema id is given per distinct content (`SchemaId.key`, a hash of type, canonical text and references), the
next integer above every id ever given (ids given by an IMPORT count too), and never deleted: the same content gets
the same id forever. A version number is given to each version of a subject in creation order (primary-key order):
its id when the version id is a positive integer above the subject's numbers (so `/registry/.../versions/3` is
Confluent version 3 wherever it can be), else the next number. Versions written through other doors are numbered
when the API first reads their subject (`ensure_numbered`), derived from the stored versions, so the registry needs
no hook; a version updated in place elsewhere (its epoch moved) gets the schema id of its new content. A version's
references are its `references` attribute (confluent.references), copied into `SubjectVersion.references`.
"""

from __future__ import annotations

import json

from django.db import IntegrityError, connection, transaction
from django.db.models import Max
from django.utils import timezone

from registry.models import Resource, Version

from .errors import ID_MISMATCH, ConfluentError
from .models import MAX_SCHEMA_ID, SchemaId, SubjectVersion
from .schema_types import attribute_references, canonical_of_stored, content_key, type_of_format


def _insert_next(key: str, schema_type: str, text: str, references: list[dict]) -> SchemaId | None:
    """The content inserted under the next id in one statement, or None when nothing was inserted: the content has an
    id already, a concurrent registration took that id, or every id is taken. ON CONFLICT DO NOTHING turns both
    conflicts into no row (no failed statement, so no savepoint); Django's ORM has no INSERT ... SELECT, hence the
    one written-out statement."""
    quote = connection.ops.quote_name
    table = quote(SchemaId._meta.db_table)
    columns = ", ".join(quote(c) for c in ("id", "key", "schema_type", "schema", "references", "created_on"))
    as_json = "%s::jsonb" if connection.vendor == "postgresql" else "%s"
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} ({columns}) SELECT n.next, %s, %s, %s, {as_json}, %s "
            f"FROM (SELECT COALESCE(MAX({quote('id')}), 0) + 1 AS next FROM {table}) n "
            f"WHERE n.next <= %s ON CONFLICT DO NOTHING RETURNING {quote('id')}",
            [
                *(key, schema_type, text, json.dumps(references)),
                *(connection.ops.adapt_datetimefield_value(now), MAX_SCHEMA_ID),
            ],
        )
        row = cursor.fetchone()
    if row is None:
        return None
    return SchemaId(id=row[0], key=key, schema_type=schema_type, schema=text, references=references, created_on=now)


def schema_id_for(
    *, key: str, schema_type: str, text: str, references: list[dict], given: int | None = None
) -> SchemaId:
    """The id of this content: the existing one, `given` (IMPORT) when free, else the next integer."""
    for _attempt in range(8):
        if given is None:
            created = _insert_next(key, schema_type, text, references)  # new content: one statement
            if created is not None:
                return created
        existing = SchemaId.objects.filter(key=key).first()
        if existing is not None:
            if given is not None and given != existing.id:
                raise ConfluentError(
                    ID_MISMATCH, f"Schema already registered with id {existing.id} instead of input id {given}"
                )
            return existing
        if given is None:
            if (SchemaId.objects.aggregate(top=Max("id"))["top"] or 0) >= MAX_SCHEMA_ID:
                raise ConfluentError(50001, "every schema id up to 2147483647 is taken", status=500)
            continue  # a concurrent registration took the next id: again
        if SchemaId.objects.filter(pk=given).exists():
            raise ConfluentError(
                ID_MISMATCH, f"Overwrite new schema with id {given} is not permitted: the id holds another schema"
            )
        try:
            with transaction.atomic():
                return SchemaId.objects.create(
                    id=given, key=key, schema_type=schema_type, schema=text, references=references
                )
        except IntegrityError:  # another request took that id or registered that content meanwhile: look again
            continue
    raise ConfluentError(50002, "could not allocate a schema id: too many concurrent registrations", status=500)


def _stored_text(version: Version) -> str:
    return bytes(version.content or b"").decode("utf-8", "replace")


def _schema_id_of_stored(version: Version, schema_type: str, references: list[dict]) -> SchemaId:
    text = _stored_text(version)
    key = content_key(schema_type, canonical_of_stored(schema_type, text), references)
    return schema_id_for(key=key, schema_type=schema_type, text=text, references=references)


def version_type(version: Version) -> str | None:
    if version.content is None or version.resource_uri:
        return None
    return type_of_format(version.extensions.get("format"))


def next_number(taken: set[int], vid: str) -> int:
    top = max(taken, default=0)
    if vid.isascii() and vid.isdigit() and str(int(vid)) == vid and top < int(vid) <= MAX_SCHEMA_ID:
        return int(vid)
    return top + 1


_STALE = (  # written out: its ORM form (EXISTS, OuterRef, an annotation) compiled in ten times the query's own time
    f"SELECT v.id, v.extensions, EXISTS (SELECT 1 FROM {SubjectVersion._meta.db_table} s WHERE s.version_id = v.id) "
    f"AS numbered FROM {Version._meta.db_table} v WHERE v.resource_id = %s AND v.content IS NOT NULL AND NOT EXISTS "
    f"(SELECT 1 FROM {SubjectVersion._meta.db_table} s WHERE s.version_id = v.id AND s.epoch = v.epoch)"
)


def _stale(resource: Resource) -> bool:
    """Whether a version of a Confluent type has no number yet, or changed since its schema id was computed: one
    query for the versions without an up-to-date row (none, or those of formats Confluent has no type for)."""
    return any(
        version.numbered or type_of_format((version.extensions or {}).get("format"))
        for version in Version.objects.raw(_STALE, [resource.pk])
    )


def ensure_numbered(resource: Resource) -> None:
    """Number the subject's versions written elsewhere since the API last read it, and re-key the versions whose
    content changed in place. One query when nothing is new; a row lock on the resource otherwise."""
    if not _stale(resource):
        return
    with transaction.atomic():
        locked = Resource.objects.select_for_update().filter(pk=resource.pk).first()
        if locked is None:
            return
        rows = {row.version_id: row for row in SubjectVersion.objects.filter(resource=resource)}
        taken = {row.number for row in rows.values()}
        for version in Version.objects.filter(resource=resource).order_by("pk"):
            row = rows.get(version.pk)
            if row is not None and row.epoch == version.epoch:
                continue
            schema_type = version_type(version)
            if schema_type is None:
                if row is not None:  # its content became something Confluent has no type for: keep the number
                    row.epoch = version.epoch
                    row.save(update_fields=["epoch"])
                continue
            references = attribute_references(version.extensions)  # what every binding shows (confluent.references)
            if row is not None:
                row.schema_id = _schema_id_of_stored(version, schema_type, references)
                row.epoch = version.epoch
                row.references = references
                row.save(update_fields=["schema_id", "epoch", "references"])
                continue
            number = next_number(taken, version.vid)
            taken.add(number)
            SubjectVersion.objects.create(
                version=version,
                resource=resource,
                number=number,
                schema_id=_schema_id_of_stored(version, schema_type, references),
                epoch=version.epoch,
                references=references,
            )
