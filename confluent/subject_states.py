"""The subjects list (`GET /subjects`) from a row per schema (`SubjectState`), so that the list and each of its pages
walk an index in name order (issue 40 B: before, every page decided for every schema whether it is a subject, which
PostgreSQL did by reading every subject version).

A schema of a schema group is listed when its id is a subject's (`subjects.name_of`) and it has a live numbered
version, or no numbered version yet and a version with a document of a Confluent type (written through another door,
not numbered yet: the numbering runs after the write commits); with `?deleted` also when it has soft-deleted versions,
with `?deleted_only` only then. Its row keeps its name (UTF-8 bytes, which sort as Python sorts the names) and those two
flags (`live`, `soft`).

Triggers in the database (confluent migration 0010) mark a schema's row `dirty`, adding it if needed, in the
transaction of every change that may move it, whatever door wrote it (the services, the numbering, an import's COPY,
raw SQL): a version of a Confluent type added or deleted (no other can move the list), a version changed, a subject
version added, soft-deleted or deleted, the schema's attributes changed (its format names the type of versions that
name none); deleting the schema deletes its row. Each change also moves the row's `generation`. The numbering that
runs after every write commits (confluent.numbering `number_written`; the soft deletes, which emit no event, in their
own transaction) brings the dirty rows up to date (`refresh_dirty`: the rules above, the flags in SQL, the name in
Python) and saves each one only if its generation has not moved and no other write holds it (PostgreSQL's `SKIP
LOCKED`: it never waits for another write). A read only reads: the rows still dirty (a crash between a commit and its
numbering, a row another write held) it computes the same way and places in the page (`_merged`), so a page is the
index's rows after `?offset` but for those few.

The names depend on the default context (REGISTRY_CONFLUENT_GROUP: its subjects are not qualified): `SubjectNames`
keeps the one they were given for; under another, a write marks the rows of both groups dirty and a read computes
them until then.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.db.models import F, Q

from catalog.validators.format_names import _SCHEMA_ALIASES
from registry.models import Group, Resource, Version

from . import subjects
from .models import SubjectNames, SubjectState, SubjectVersion
from .schema_types import type_of_format
from .subjects import GROUPS, SCHEMAS

CHUNK = 500  # ids per query (SQLite's limit on parameters)
FURTHEST = 2**61  # an offset or limit past any list (the databases' are 64-bit: their sum stays within)


@dataclass(frozen=True)
class State:
    """What a schema's row should hold (`name` None: not a subject)."""

    name: str | None
    live: bool
    soft: bool
    group_id: int | None = None


def listed(
    *,
    prefix: str = "",
    deleted: bool = False,
    deleted_only: bool = False,
    hidden_groups: Iterable[int] = (),
    offset: int = 0,
    limit: int = -1,
) -> list[str]:
    """The subject names, sorted, that `?subjectPrefix`, `?deleted`, `?deleted_only`, `?offset` and `?limit` (-1:
    all) name, of the groups not in `hidden_groups` (primary keys). Reads only: the rows still dirty (a write's
    numbering has not run yet, or could not save them) are computed and placed in the page."""
    computed = {pk: state for pk, (_generation, state) in _dirty_states(*_renamed()).items()}
    hidden = set(hidden_groups)
    rows = SubjectState.objects.filter(_shown(deleted, deleted_only))
    key = prefix.encode("utf-8", "surrogatepass")
    if key:
        # every name that starts with the prefix and no other: UTF-8 holds no byte 0xFF
        rows = rows.filter(name__gte=key, name__lt=key + b"\xff")
    if hidden:
        rows = rows.exclude(group_id__in=sorted(hidden))
    offset, limit = min(max(offset, 0), FURTHEST), FURTHEST if limit < 0 else min(limit, FURTHEST)
    if computed:
        rows = rows.exclude(resource_id__in=sorted(computed))
        extra = sorted(
            state.name
            for state in computed.values()
            if state.name is not None
            and state.name.startswith(prefix)
            and state.group_id not in hidden
            and (state.soft if deleted_only else (state.live or state.soft) if deleted else state.live)
        )
        if extra:
            return _merged(rows, extra, offset, limit)
    names = rows.order_by("name").values_list("name", flat=True)
    return [_text(name) for name in names[offset : offset + limit]]


def _shown(deleted: bool, deleted_only: bool) -> Q:
    if deleted_only:
        return Q(soft=True)
    return Q(live=True) | Q(soft=True) if deleted else Q(live=True)


def _text(name) -> str:
    """A stored name (bytes; memoryview from psycopg): never NULL on a listed row."""
    return bytes(name).decode("utf-8")


def _merged(rows, extra: list[str], offset: int, limit: int) -> list[str]:
    """The page of the stored rows (`rows`) and the names of the rows still dirty (`extra`, sorted, computed by the
    read) together: each extra name's place is the number of rows before it plus the extra names before it."""
    places = [rows.filter(name__lt=name.encode("utf-8")).count() + n for n, name in enumerate(extra)]
    before = sum(1 for place in places if place < offset)
    names = rows.order_by("name").values_list("name", flat=True)
    stored = [_text(name) for name in names[offset - before : offset - before + limit]]
    later = [name for name, place in zip(extra, places, strict=True) if place >= offset]
    return sorted(stored + later)[:limit]


def refresh_dirty() -> None:
    """Bring the dirty rows up to date (the writes' numbering calls it after they commit: confluent.numbering), and
    the names given for another default context; a row a write changed or holds meanwhile stays dirty."""
    check_default_context()
    computed = _dirty_states()
    if computed:
        _save(computed)


def typed_version(vendor: str, version: str = "v") -> str:
    """The condition, on the version `version` of the schema `r`, that it has a document of a Confluent type
    (`schema_types.type_of_format` of its format, or of its schema's when it names none), in the database's SQL: the
    format's name (before any `/`), in lower case, one of those type_of_format knows (confluent migration 0010's
    triggers use it too)."""
    if vendor == "postgresql":
        fmt = f"COALESCE(NULLIF({version}.extensions ->> 'format', ''), r.extensions ->> 'format')"
        name = f"split_part({fmt}, '/', 1)"
    else:
        own = f"json_extract({version}.extensions, '$.format')"
        fmt = f"COALESCE(NULLIF({own}, ''), json_extract(r.extensions, '$.format'))"
        name = f"CASE WHEN instr({fmt}, '/') > 0 THEN substr({fmt}, 1, instr({fmt}, '/') - 1) ELSE {fmt} END"
    names = ", ".join(f"'{alias}'" for alias in sorted(_SCHEMA_ALIASES) if type_of_format(alias))  # no quote in them
    return f"{version}.content IS NOT NULL AND {version}.resource_uri IS NULL AND lower({name}) IN ({names})"


# The dirty rows (and those the condition `{also}` on `s` names) with the schema's group and ids (NULL: gone, or not
# a schema group's), and whether it has live and soft-deleted numbered versions. Written out: the ORM has no EXISTS in
# a select list but through annotations, nor a condition given as SQL.
_DIRTY = (
    "SELECT s.resource_id, s.generation, r.group_id, g.gid, r.rid, "
    f"EXISTS (SELECT 1 FROM {SubjectVersion._meta.db_table} n WHERE n.resource_id = r.id AND NOT n.deleted), "
    f"EXISTS (SELECT 1 FROM {SubjectVersion._meta.db_table} n WHERE n.resource_id = r.id AND n.deleted) "
    f"FROM {SubjectState._meta.db_table} s LEFT JOIN {Resource._meta.db_table} r ON r.id = s.resource_id "
    f"AND r.resource_type = %s LEFT JOIN {Group._meta.db_table} g ON g.id = r.group_id AND g.group_type = %s "
    "WHERE s.dirty OR {also}"
)
# Which of the schemas `{ids}` have a version of a Confluent type.
_TYPED = (
    f"SELECT r.id FROM {Resource._meta.db_table} r WHERE r.id IN ({{ids}}) AND EXISTS "
    f"(SELECT 1 FROM {Version._meta.db_table} v WHERE v.resource_id = r.id AND {{typed}})"
)


def _dirty_states(also: str = "false", params: Iterable = ()) -> dict[int, tuple[int, State]]:
    """What the dirty rows (and those the condition `also` on `s` names) should hold, by schema, with the generation
    each was read at: one query, and one more when some have no numbered version (a schema not numbered yet)."""
    with connection.cursor() as cursor:
        cursor.execute(_DIRTY.format(also=also), [SCHEMAS, GROUPS, *params])
        rows = cursor.fetchall()
        unnumbered = [row[0] for row in rows if row[3] is not None and not row[5] and not row[6]]
        typed: set[int] = set()
        for start in range(0, len(unnumbered), CHUNK):
            chunk = unnumbered[start : start + CHUNK]
            ids = ", ".join(["%s"] * len(chunk))
            cursor.execute(_TYPED.format(ids=ids, typed=typed_version(connection.vendor)), chunk)
            typed.update(row[0] for row in cursor.fetchall())
    found: dict[int, tuple[int, State]] = {}
    for pk, generation, group_id, gid, rid, live, soft in rows:
        name = None if gid is None else subjects.name_of(gid, rid)
        if name is None:
            found[pk] = (generation, State(None, False, False, group_id))
        else:
            found[pk] = (generation, State(name, bool(live) or pk in typed, bool(soft), group_id))
    return found


def _save(computed: dict[int, tuple[int, State]]) -> set[int]:
    """Store the states computed for these rows (schema -> (the generation they were computed at, state)) where the
    generation has not moved and no other transaction holds the row; the schemas saved."""
    saved: set[int] = set()
    items = list(computed.items())
    for start in range(0, len(items), CHUNK):
        chunk = items[start : start + CHUNK]
        if connection.vendor == "postgresql":
            saved.update(_save_postgresql(chunk))  # one statement
        else:  # SQLite: one writer at a time, nothing to skip
            with transaction.atomic():
                saved.update(pk for pk, (generation, state) in chunk if _save_one(pk, generation, state))
    return saved


def _values(state: State) -> tuple[bytes | None, bool, bool]:
    name = None if state.name is None else state.name.encode("utf-8", "surrogatepass")
    return name, state.live, state.soft


def _save_one(pk: int, generation: int, state: State) -> bool:
    name, live, soft = _values(state)
    return bool(
        SubjectState.objects.filter(resource_id=pk, generation=generation).update(
            name=name, live=live, soft=soft, dirty=False
        )
    )


def _save_postgresql(chunk: list[tuple[int, tuple[int, State]]]) -> list[int]:
    """One statement for the chunk: Django's ORM has no UPDATE ... FROM (VALUES ...) nor a locking subquery."""
    values: list[str] = []
    params: list[Any] = []
    for pk, (generation, state) in chunk:
        values.append("(%s::bigint, %s::bigint, %s::bytea, %s::boolean, %s::boolean)")
        params.extend((pk, generation, *_values(state)))
    table = connection.ops.quote_name(SubjectState._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} s SET name = v.name, live = v.live, soft = v.soft, dirty = false "
            f"FROM (VALUES {', '.join(values)}) v (id, generation, name, live, soft) "
            "WHERE s.resource_id = v.id AND s.generation = v.generation AND s.resource_id IN "
            f"(SELECT resource_id FROM {table} WHERE resource_id IN ({', '.join(['%s'] * len(chunk))}) "
            "FOR UPDATE SKIP LOCKED) RETURNING s.resource_id",
            [*params, *(pk for pk, _rest in chunk)],
        )
        return [row[0] for row in cursor.fetchall()]


def _renamed() -> tuple[str, list[int]]:
    """The rows whose names were given for another default context than REGISTRY_CONFLUENT_GROUP, as a condition on
    `s` and its parameters: none, those of the old and the new default context's groups, every row when unknown."""
    default = subjects.default_group()
    if _checked.get("default") == default:  # (see check_default_context)
        return "false", []
    given = SubjectNames.objects.values_list("default_group", flat=True).first()
    if given == default:
        return "false", []
    if given is None:
        return "true", []
    pks = list(Group.objects.filter(group_type=GROUPS, gid__in=[given, default]).values_list("pk", flat=True))
    return (f"s.group_id IN ({', '.join(['%s'] * len(pks))})", pks) if pks else ("false", [])


_checked: dict[str, str] = {}  # "default": the default context this process last found the names given for


def check_default_context() -> None:
    """Mark the rows of the old and the new default context's groups dirty when REGISTRY_CONFLUENT_GROUP is not the
    one the names were given for (their subjects are named without and with a context): once per process and
    setting (a read that finds the names given for another computes their rows: `_renamed`)."""
    default = subjects.default_group()
    if _checked.get("default") == default:
        return
    given = SubjectNames.objects.values_list("default_group", flat=True).first()
    _checked.pop("default", None)
    if given == default:
        _checked["default"] = default
        return
    with transaction.atomic():
        rows = SubjectState.objects.all()
        if given is not None:
            groups = Group.objects.filter(group_type=GROUPS, gid__in=[given, default]).values("pk")
            rows = rows.filter(group_id__in=groups)
        rows.update(dirty=True, generation=F("generation") + 1)
        SubjectNames.objects.update_or_create(pk=1, defaults={"default_group": default})
