"""Schema ids and subject version numbers (docs/confluent.md).

A schema id is given per distinct content (`SchemaId.key`, a hash of type, canonical text, references, metadata and
rule set), the
next integer above every id ever given (ids given by an IMPORT count too), and never deleted: the same content gets
the same id forever. A version number is given to each version of a subject in creation order (primary-key order):
its id when the version id is a positive integer above the subject's numbers (so `/registry/.../versions/3` is
Confluent version 3 wherever it can be), else the next number. Versions written through other doors are numbered
when their write commits (`number_written`, which the registry calls after every committed change with the paths it
wrote: registry.commit_listeners), derived from the stored versions, in batches (`number_resources`: a bulk import's
new contents get their ids together); a read numbers what that left out (`ensure_numbered`: a crash between the
commit and the numbering). A version updated in place elsewhere (its epoch moved) gets the schema id of its new
content. A version's references are its `references` attribute (confluent.references), copied into
`SubjectVersion.references`; its metadata and rule set its `confluentmetadata` and `confluentruleset` attributes
(confluent.contracts), read from there.
"""

from __future__ import annotations

import json
import uuid

from django.db import IntegrityError, connection, transaction
from django.db.models import F, Max, QuerySet
from django.utils import timezone

from registry.compiled_reads import prepared_cursor
from registry.models import Group, Resource, Version
from registry.sent_together import execute_parts, insert_part
from registry.store.bounded_cache import BoundedCache

from .attributes import VERSION_METADATA, VERSION_RULE_SET
from .contracts import metadata_problem, normal_metadata, normal_rule_set, rule_set_problem
from .errors import ID_MISMATCH, ConfluentError
from .models import MAX_SCHEMA_ID, SchemaId, SubjectVersion
from .schema_types import attribute_references, canonical_of_stored, content_key, type_of_format
from .subjects import GROUPS, SCHEMAS


def contracts_of(extensions: dict | None) -> tuple[dict | None, dict | None]:
    """A stored version's metadata and rule set (its attributes; None for a value of another shape, which a version of
    a format Confluent has no type for may hold)."""
    metadata, rule_set = (extensions or {}).get(VERSION_METADATA), (extensions or {}).get(VERSION_RULE_SET)
    metadata = normal_metadata(metadata) if metadata is not None and metadata_problem(metadata) is None else None
    rule_set = normal_rule_set(rule_set) if rule_set is not None and rule_set_problem(rule_set) is None else None
    return metadata, rule_set


def _insert_next(
    key: str,
    schema_type: str,
    text: str,
    references: list[dict],
    metadata: dict | None,
    rule_set: dict | None,
    guid: uuid.UUID,
) -> SchemaId | None:
    """The content inserted under the next id in one statement, or None when nothing was inserted: the content has an
    id already, a concurrent registration took that id, or every id is taken. ON CONFLICT DO NOTHING turns both
    conflicts into no row (no failed statement, so no savepoint); Django's ORM has no INSERT ... SELECT, hence the
    one written-out statement."""
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(*_next_id_insert(key, schema_type, text, references, metadata, rule_set, guid, now))
        row = cursor.fetchone()
    if row is None:
        return None
    return SchemaId(
        id=row[0],
        key=key,
        schema_type=schema_type,
        schema=text,
        references=references,
        metadata=metadata,
        rule_set=rule_set,
        guid=guid,
        created_on=now,
    )


def _next_id_insert(
    key: str,
    schema_type: str,
    text: str,
    references: list[dict],
    metadata: dict | None,
    rule_set: dict | None,
    guid: uuid.UUID,
    now,
) -> tuple[str, list]:
    """The statement of `_insert_next` and its parameters."""
    quote = connection.ops.quote_name
    table = quote(SchemaId._meta.db_table)
    columns = ", ".join(quote(c) for c in NEW_IDS)
    as_json = "%s::jsonb" if connection.vendor == "postgresql" else "%s"
    sql = (
        f"INSERT INTO {table} ({columns}) SELECT n.next, %s, %s, %s, {as_json}, {as_json}, {as_json}, %s, %s "
        f"FROM (SELECT COALESCE(MAX({quote('id')}), 0) + 1 AS next FROM {table}) n "
        f"WHERE n.next <= %s ON CONFLICT DO NOTHING RETURNING {quote('id')}"
    )
    return sql, [
        *(key, schema_type, text, json.dumps(references)),
        *(_json_or_null(metadata), _json_or_null(rule_set)),
        SchemaId._meta.get_field("guid").get_db_prep_value(guid, connection),
        *(connection.ops.adapt_datetimefield_value(now), MAX_SCHEMA_ID),
    ]


def _new_guid(given: uuid.UUID | None) -> uuid.UUID:
    """A new content's GUID: the one given (an import keeps the source's) when no other content has it, else random."""
    if given is not None and not SchemaId.objects.filter(guid=given).exists():
        return given
    return uuid.uuid4()


def _json_or_null(value) -> str | None:
    return None if value is None else json.dumps(value)


def schema_id_for(
    *,
    key: str,
    schema_type: str,
    text: str,
    references: list[dict],
    metadata: dict | None = None,
    rule_set: dict | None = None,
    given: int | None = None,
    guid: uuid.UUID | None = None,
) -> SchemaId:
    """The id of this content: the existing one, `given` (IMPORT) when free, else the next integer; a new one gets
    the GUID `guid` (an import's) when no other content has it, else a random one."""
    for _attempt in range(8):
        if given is None:
            # new content: one statement
            created = _insert_next(key, schema_type, text, references, metadata, rule_set, _new_guid(guid))
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
                    id=given,
                    key=key,
                    schema_type=schema_type,
                    schema=text,
                    references=references,
                    metadata=metadata,
                    rule_set=rule_set,
                    guid=_new_guid(guid),
                )
        except IntegrityError:  # another request took that id or registered that content meanwhile: look again
            continue
    raise ConfluentError(50002, "could not allocate a schema id: too many concurrent registrations", status=500)


def _stored_text(version: Version) -> str:
    return bytes(version.content or b"").decode("utf-8", "replace")


def _schema_id_of_stored(version: Version, schema_type: str, references: list[dict]) -> SchemaId:
    text = _stored_text(version)
    metadata, rule_set = contracts_of(version.extensions)
    key = content_key(schema_type, canonical_of_stored(schema_type, text), references, metadata, rule_set)
    return schema_id_for(
        key=key, schema_type=schema_type, text=text, references=references, metadata=metadata, rule_set=rule_set
    )


def version_type(version: Version, resource_format: str | None = None) -> str | None:
    """The Confluent schemaType of a version: of its format, the schema's (`resource_format`) when it names none."""
    if version.content is None or version.resource_uri:
        return None
    return type_of_format(version.extensions.get("format") or resource_format)


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
# The versions of the locked schemas (`%s`: their ids) without an up-to-date row, with the columns `_number_batch`
# reads: their number if they have one, their subject's highest number (which next_number reads: no query of its own)
# and their schema's extensions. Written out: its ORM form compiled in about as much CPU as the rest of a numbering.
_UNNUMBERED = (
    "SELECT v.id, v.resource_id, v.vid, v.epoch, v.content, v.resource_uri, v.extensions, s.number, "
    f"(SELECT t.number FROM {SubjectVersion._meta.db_table} t WHERE t.resource_id = v.resource_id "
    "ORDER BY t.number DESC LIMIT 1), r.extensions "
    f"FROM {Version._meta.db_table} v JOIN {Resource._meta.db_table} r ON r.id = v.resource_id "
    f"LEFT JOIN {SubjectVersion._meta.db_table} s ON s.version_id = v.id "
    "WHERE v.resource_id IN (%s) AND (s.epoch IS NULL OR s.epoch <> v.epoch) ORDER BY v.resource_id, v.id"
)
# The ids of the schemas named by (group id, schema id) pairs (`%s`: one condition per pair) whose rows no other
# transaction holds, locked (`%s`: the locking clause where the database has one). Written out, as above.
_LOCK_SCHEMAS = (
    f"SELECT r.id FROM {Resource._meta.db_table} r JOIN {Group._meta.db_table} g ON g.id = r.group_id "
    "WHERE g.group_type = %%s AND r.resource_type = %%s AND (%s) ORDER BY r.id%s"
)
# One locked schema's versions after a version id (the first `%s`) with the columns of `_UNNUMBERED` (the document,
# the attributes and the subject's highest number only in the rows of those without an up-to-date row), then the
# schema's versions digest (registry/migrations/0011, 0013), the hash it added for the version (when it has a
# document), whether it has one, and whether it lacks an up-to-date row; one row of NULL versions when none is after
# that id.
_OUT_OF_DATE = "(s.epoch IS NULL OR s.epoch <> v.epoch)"
_STALE_AFTER = (
    f"SELECT v.id, v.resource_id, v.vid, v.epoch, CASE WHEN {_OUT_OF_DATE} THEN v.content END, v.resource_uri, "
    f"CASE WHEN {_OUT_OF_DATE} THEN v.extensions END, s.number, CASE WHEN {_OUT_OF_DATE} THEN "
    f"(SELECT t.number FROM {SubjectVersion._meta.db_table} t WHERE t.resource_id = r.id "
    f"ORDER BY t.number DESC LIMIT 1) END, CASE WHEN {_OUT_OF_DATE} THEN r.extensions END, r.versions_digest::text, "
    f"hashint8extended(v.id, 0)::text, v.content IS NOT NULL, {_OUT_OF_DATE} "
    f"FROM {Resource._meta.db_table} r LEFT JOIN {Version._meta.db_table} v ON v.resource_id = r.id AND v.id > %s "
    f"LEFT JOIN {SubjectVersion._meta.db_table} s ON s.version_id = v.id WHERE r.id = %s ORDER BY v.id"
)
# Per process, a schema whose versions it last left all numbered (after a write): its versions digest then and its
# highest version id, so that the next write's numbering reads only the versions after it (`_stale_after_kept`).
_numbered = BoundedCache("numbered_schemas", max_entries=10_000)
RESOURCES_A_BATCH = 500  # subjects numbered in one transaction (the bulk import's batches hold thousands)
BULK_IDS = 50  # more new contents than this in one batch: ids given under a table lock, inserted together


def _stale(resource: Resource) -> bool:
    """Whether a version of a Confluent type has no number yet, or changed since its schema id was computed: one
    query for the versions without an up-to-date row (none, or those of formats Confluent has no type for). A version
    that names no format has the schema's."""
    resource_format = resource.extensions.get("format")
    return any(
        version.numbered  # type: ignore[attr-defined]  # a column of the raw query, not a field of Version
        or type_of_format((version.extensions or {}).get("format") or resource_format)
        for version in Version.objects.raw(_STALE, [resource.pk])
    )


def ensure_numbered(resource: Resource) -> None:
    """Number the subject's versions written since it was last numbered (the writes number what they write after
    they commit: `number_written`; this is what a read does when that did not happen, say after a crash between the
    two), and re-key the versions whose content changed in place. One query when nothing is new."""
    if _stale(resource):
        number_resources([resource.pk])


def stale_resources(resources: QuerySet) -> list[int]:
    """Which of these schemas have a version without an up-to-date row (see `_stale`): one query."""
    rows = (
        Version.objects.filter(resource__in=resources.values("pk"), content__isnull=False)
        .exclude(confluent__epoch=F("epoch"))
        .values_list("resource_id", "extensions", "confluent__version_id", "resource__extensions")
    )
    return sorted({rid for rid, ext, numbered, own in rows if numbered or type_of_format(_format_of(ext, own))})


def _format_of(extensions: dict | None, resource_extensions: dict | None) -> str | None:
    """A version's format: its own, else its schema's (a document may name the format once, on the schema)."""
    return (extensions or {}).get("format") or (resource_extensions or {}).get("format")


def number_resources(resource_ids: list[int], *, skip_locked: bool = False) -> None:
    """Number the versions of these schemas that have no row yet and re-key those whose epoch moved, in batches of
    RESOURCES_A_BATCH schemas, each under its rows' locks (so concurrent numberings of one subject give each version
    one number, in creation order). `skip_locked`: a schema whose row another transaction holds (a write to it) is
    left to that write, which numbers what it finds when it commits (`number_written`)."""
    ids = sorted(set(resource_ids))
    for start in range(0, len(ids), RESOURCES_A_BATCH):
        with transaction.atomic():
            locked = Resource.objects.select_for_update(skip_locked=skip_locked, of=("self",)).filter(
                pk__in=ids[start : start + RESOURCES_A_BATCH]
            )
            _number_batch(list(locked.order_by("pk").values_list("pk", flat=True)))


def _stale_after_kept(resource_id: int) -> tuple[list[tuple], tuple[int, int]]:
    """The rows of `_UNNUMBERED` of one schema this transaction locked, and (its versions digest, its highest version
    id) to keep once they are numbered. On PostgreSQL, with the schema kept (`_numbered`), only the versions after the
    kept id are read: when the digest is the kept one plus their hashes, no version up to that id changed, went or
    appeared (registry/store/earlier_documents.py reads the same digest so), and those were all numbered; otherwise
    every version is read (so is a schema not kept), without the documents of those numbered."""
    kept = _numbered.get(resource_id, counted=False)
    after = kept[1] if kept is not None else 0
    for _attempt in range(2):
        with prepared_cursor(connection) as cursor:
            cursor.execute(_STALE_AFTER, [after, resource_id])
            rows = cursor.fetchall()
        later = [row for row in rows if row[0] is not None]
        digest = int(rows[0][10])
        if kept is None or digest == kept[0] + sum(int(row[11]) for row in later if row[12]):
            break
        kept, after = None, 0  # a version up to the kept id changed or went, or one appeared: read them all
    _numbered.count(hit=kept is not None)
    stale = [(*row[:6], _json(row[6]), *row[7:9], _json(row[9])) for row in later if row[13]]
    return stale, (digest, max((after, *(row[0] for row in later))))


def _number_batch(locked: list[int], versions: list[tuple] | None = None) -> bool:
    """Number one batch of schemas whose rows this transaction locked (`versions`: their rows of `_UNNUMBERED`, read
    when not given); whether it left none of their versions without an up-to-date row (those of formats Confluent has
    no type for). The rows are read and written as tuples, not models (model instances cost most of a bulk import's
    numbering: 30,000 for 10,000 versions)."""
    if not locked:
        return True
    if versions is None:
        with prepared_cursor(connection) as cursor:
            cursor.execute(_UNNUMBERED % ", ".join(["%s"] * len(locked)), locked)
            versions = [(*row[:6], _json(row[6]), *row[7:9], _json(row[9])) for row in cursor.fetchall()]
    if not versions:
        return True
    renumbered = [row[0] for row in versions if row[7] is not None]
    rows: dict[int, SubjectVersion] = (
        {row.version_id: row for row in SubjectVersion.objects.filter(version_id__in=renumbered)} if renumbered else {}
    )
    taken: dict[int, set[int]] = {row[1]: {row[8] or 0} for row in versions}
    new: list[list] = []  # the columns of NEW_ROWS, the schema id filled in below
    changed: list[SubjectVersion] = []
    contents: list[tuple] = []  # (key, type, text, references, metadata, rule set)
    keyed: list[tuple[SubjectVersion | list, str]] = []  # a row and the key of its content
    left = False  # a version left without a row
    for pk, resource_id, vid, epoch, content, resource_uri, extensions, _number, _top, own in versions:
        row = rows.get(pk)
        extensions = extensions or {}
        schema_type = None if content is None or resource_uri else type_of_format(_format_of(extensions, own))
        if content is None or schema_type is None:
            if row is not None:  # its content became something Confluent has no type for: keep the number
                row.epoch = epoch
                changed.append(row)
            else:
                left = True
            continue
        references = attribute_references(extensions)  # what every binding shows (confluent.references)
        text = bytes(content).decode("utf-8", "replace")
        metadata, rule_set = contracts_of(extensions)
        key = content_key(schema_type, canonical_of_stored(schema_type, text), references, metadata, rule_set)
        contents.append((key, schema_type, text, references, metadata, rule_set))
        if row is not None:
            row.epoch, row.references = epoch, references
            changed.append(row)
            keyed.append((row, key))
            continue
        numbers = taken.setdefault(resource_id, set())
        number = next_number(numbers, vid)
        numbers.add(number)
        new.append([pk, resource_id, number, None, epoch, False, references])
        keyed.append((new[-1], key))
    if len(new) == 1 and not changed and _inserted_with_its_id(new[0], contents[0]):
        return not left
    ids = schema_ids_for(contents)
    for kept, key in keyed:
        if isinstance(kept, list):
            kept[3] = ids[key]
        else:
            kept.schema_id_id = ids[key]
    if changed:
        SubjectVersion.objects.bulk_update(changed, ["schema_id", "epoch", "references"], batch_size=1000)
    if new:
        _insert(SubjectVersion, NEW_ROWS, new)
    return not left


NEW_ROWS = ("version_id", "resource_id", "number", "schema_id_id", "epoch", "deleted", "references")


def _inserted_with_its_id(row: list, content: tuple) -> bool:
    """A write's one new subject version (the columns of NEW_ROWS) inserted with its content's schema id in one
    statement on PostgreSQL, instead of one for the id and one for the row (`schema_ids_for`, `_insert`): the content
    inserted under the next id (`_insert_next`), else the id it already has. False when nothing was written: not
    PostgreSQL (no data-modifying CTE), or a concurrent registration took the next id or registered the content after
    this statement's snapshot (its row is not in it): then the caller gives the id as before."""
    if connection.vendor != "postgresql":
        return False
    key, schema_type, text, references, metadata, rule_set = content
    given, params = _next_id_insert(
        key, schema_type, text, references, metadata, rule_set, uuid.uuid4(), timezone.now()
    )
    quote = connection.ops.quote_name
    fields = [next(f for f in SubjectVersion._meta.concrete_fields if f.attname == name) for name in NEW_ROWS]
    values = ", ".join("found.id" if field.name == "schema_id" else "%s" for field in fields)
    sql = (
        f"WITH given AS ({given}), found AS (SELECT id FROM given UNION ALL "
        f"SELECT {quote('id')} FROM {quote(SchemaId._meta.db_table)} WHERE {quote('key')} = %s) "
        f"INSERT INTO {quote(SubjectVersion._meta.db_table)} ({', '.join(quote(f.column) for f in fields)}) "
        f"SELECT {values} FROM found LIMIT 1 RETURNING 1"
    )
    prepared = [f.get_db_prep_save(v, connection) for f, v in zip(fields, row, strict=True) if f.name != "schema_id"]
    with prepared_cursor(connection) as cursor:
        cursor.execute(sql, [*params, key, *prepared])
        return cursor.fetchone() is not None


NEW_IDS = ("id", "key", "schema_type", "schema", "references", "metadata", "rule_set", "guid", "created_on")
JSON_COLUMNS = ("references", "metadata", "rule_set")


def _insert(model, attributes: tuple[str, ...], rows: list) -> None:
    """New rows (values in the order of `attributes`): with COPY on PostgreSQL (a bulk import's: several times
    faster than INSERTs of many rows; Django has no COPY, psycopg's is used directly), with bulk_create elsewhere; a
    few (a write's) as one statement of INSERTs compiled once (registry.sent_together: bulk_create's compilation cost
    about as much as the rest of a write's numbering)."""
    if len(rows) < 10:  # COPY's own round trips cost more for a few
        execute_parts([insert_part(model, dict(zip(attributes, row, strict=True))) for row in rows])
        return
    if connection.vendor != "postgresql" or len(rows) < 100:
        model.objects.bulk_create([model(**dict(zip(attributes, row, strict=True))) for row in rows], batch_size=1000)
        return
    columns = ", ".join(connection.ops.quote_name(model._meta.get_field(name).column) for name in attributes)
    json_at = [index for index, name in enumerate(attributes) if name in JSON_COLUMNS]
    with connection.cursor() as cursor:
        raw = cursor.cursor if hasattr(cursor, "cursor") else cursor
        with raw.copy(f"COPY {connection.ops.quote_name(model._meta.db_table)} ({columns}) FROM STDIN") as copy:
            for row in rows:
                values = list(row)
                for index in json_at:
                    values[index] = _json_or_null(values[index])
                copy.write_row(values)


def schema_ids_for(contents: list[tuple]) -> dict[str, int]:
    """The schema id of each content (key, type, text, references, metadata, rule set): the existing one, else a new
    one (with a random GUID). A few new
    ones are given one by one (`schema_id_for`, no lock); many (a bulk import) under a lock on the ids' table
    (PostgreSQL's EXCLUSIVE mode, which lets reads through; SQLite's write transactions are one at a time anyway), the
    next integers above the highest, inserted together."""
    found: dict[str, int] = {}
    missing = {key: rest for key, *rest in contents}
    if len(missing) <= BULK_IDS:  # a write's few: each in one statement when new (schema_id_for)
        for key, (schema_type, text, references, metadata, rule_set) in missing.items():
            found[key] = schema_id_for(
                key=key,
                schema_type=schema_type,
                text=text,
                references=references,
                metadata=metadata,
                rule_set=rule_set,
            ).id
        return found
    keys = list(missing)
    for start in range(0, len(keys), 1000):
        found.update(SchemaId.objects.filter(key__in=keys[start : start + 1000]).values_list("key", "id"))
    missing = {key: rest for key, rest in missing.items() if key not in found}
    if not missing:
        return found
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(f"LOCK TABLE {connection.ops.quote_name(SchemaId._meta.db_table)} IN EXCLUSIVE MODE")
        keys = list(missing)
        for start in range(0, len(keys), 1000):  # given meanwhile, before the lock
            for key, number in SchemaId.objects.filter(key__in=keys[start : start + 1000]).values_list("key", "id"):
                found[key] = number
                del missing[key]
        top = SchemaId.objects.aggregate(top=Max("id"))["top"] or 0
        if top + len(missing) > MAX_SCHEMA_ID:
            raise ConfluentError(50001, "every schema id up to 2147483647 is taken", status=500)
        now = timezone.now()
        created = [
            (top + n, key, schema_type, text, references, metadata, rule_set, uuid.uuid4(), now)
            for n, (key, (schema_type, text, references, metadata, rule_set)) in enumerate(missing.items(), start=1)
        ]
        _insert(SchemaId, NEW_IDS, created)
        found.update((key, number) for number, key, *_rest in created)
    return found


def number_written(paths: list[str]) -> None:
    """After a write committed (registry.commit_listeners): number the versions it wrote to schemas, so that the
    API's reads find every subject numbered. `paths` are the entity paths it wrote events for: a schema or its
    version, or a whole schema group (the bulk import's events stand for its groups). A schema another write holds
    is skipped: that write numbers it when it commits."""
    groups: set[str] = set()
    schemas: set[tuple[str, str]] = set()
    for path in paths:
        parts = path.split("/")
        if len(parts) < 3 or parts[1] != GROUPS:
            continue
        if len(parts) >= 5 and parts[3] == SCHEMAS:
            schemas.add((parts[2], parts[4]))
        elif len(parts) == 3:
            groups.add(parts[2])
    if groups:  # a group's write may have changed none of its schemas (its attributes): only the stale ones
        resources = Resource.objects.filter(group__group_type=GROUPS, resource_type=SCHEMAS, group__gid__in=groups)
        stale = stale_resources(resources)
        if stale:
            number_resources(stale, skip_locked=True)
    if schemas:  # a schema's write wrote a version: no query to find that out first
        kept: tuple[int, int] | None = None
        with transaction.atomic():
            locked = _locked_schemas(sorted(schemas))
            if len(locked) == 1 and connection.vendor == "postgresql":  # (the digest is PostgreSQL's)
                versions, to_keep = _stale_after_kept(locked[0])
                if _number_batch(locked, versions):
                    kept = to_keep
            else:
                _number_batch(locked)
        if kept is not None:  # (committed)
            _numbered.put(locked[0], kept)
        elif len(locked) == 1:
            _numbered.pop(locked[0])


def _locked_schemas(schemas: list[tuple[str, str]]) -> list[int]:
    """The ids of these schemas ((group id, schema id) pairs) that no other transaction holds, their rows locked for
    this transaction (SKIP LOCKED; on SQLite, whose write transactions are one at a time, all of them)."""
    lock = " FOR UPDATE OF r SKIP LOCKED" if connection.features.has_select_for_update_skip_locked else ""
    sql = _LOCK_SCHEMAS % (" OR ".join(["(g.gid = %s AND r.rid = %s)"] * len(schemas)), lock)
    with prepared_cursor(connection) as cursor:
        cursor.execute(sql, [GROUPS, SCHEMAS, *(value for pair in schemas for value in pair)])
        return [row[0] for row in cursor.fetchall()]


def _json(text: str | dict | None) -> dict | None:
    """A JSON column read through a cursor: text (Django has the drivers load it so; JSONField decodes it)."""
    return json.loads(text) if isinstance(text, str) else text
