"""The documents of a resource's versions as the check of a new version reads them (a transitive compatibility check
compares it with every earlier one), kept per process so that a write to a long history does not read every
document again (issue 29): on PostgreSQL a long history's documents (sent as hex text and sorted) cost several
times the query below to read.

Each process keeps, per resource, the rows it last read (id, created_on, format, document, oldest first) with the
highest id among them and the resource's `versions_digest` read with them; and their (format, document) pairs as one
tuple, which readers get as it is (not to be changed). PostgreSQL keeps that digest itself, whatever
changes the versions (registry/migrations/0011_versions_digest.py): each insert of a row with a document adds a hash
of its id, each update or delete a random value, and a resource's row starts at a random value. A read asks in one
statement for the resource's digest and for the rows after the highest id kept: when the digest is the kept one
plus the hashes of those rows, no kept row changed or went and none with a lower id appeared (a transaction that
commits after a later one), so the rows after it are added to the kept ones; otherwise all are read again. Its cost
does not grow with the versions (the sum of a hash over every row it replaced did,
under the schema's lock). Two different histories give the same digest by chance about once in 2^64. A transaction
sees its own uncommitted rows and digest; when it rolls back, the committed digest no longer matches and the next
read reads all again.

Memory: at most DOCUMENT_BYTES of documents (and their rows) per process, the resources read least recently
dropped first; a resource whose documents alone exceed it is read whole each time and not kept (a
registry/store/bounded_cache.py cache, `earlier_documents` in the metrics: an entry carries the digest it was read
with, its freshness key; a hit is a kept entry used, with or without rows after it). SQLite (in process, no network)
reads every document each time, as before.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import connection
from django.db.models.fields.json import KT

from ..compiled_reads import prepared_cursor
from ..models import Resource, Version
from .bounded_cache import BoundedCache

DOCUMENT_BYTES = 32 * 1024 * 1024  # per process
ROW_OVERHEAD = 200  # bytes a kept row takes besides its document (its tuple, date, id, format)


@dataclass(frozen=True)
class _Kept:
    rows: tuple  # (created_on, id, format, document), oldest first (created_on, id)
    documents: tuple  # (format, document) of each row
    last_id: int
    digest: int  # the resource's versions_digest when these rows were read
    size: int  # bytes of documents and rows


_kept = BoundedCache("earlier_documents", max_bytes=DOCUMENT_BYTES)


Documents = Sequence[tuple[str | None, bytes]]


def earlier_documents(resource_id: int, exclude_id: int | None) -> Documents:
    """(format, document) of every version of the resource that has a document, oldest first (created_on, id),
    but version `exclude_id`; the format as stored in the version's attributes (None when it has none). Not to be
    changed (a kept one is shared)."""
    if connection.vendor == "postgresql":
        return _documents(_postgresql(resource_id), exclude_id)
    return _documents(_read_all(resource_id), exclude_id)


def _documents(found: _Kept | tuple | list, exclude_id: int | None) -> Documents:
    """(format, document) of the rows found (a kept entry's own tuple when none is left out)."""
    if isinstance(found, _Kept):
        if exclude_id is None:
            return found.documents
        found = found.rows
    return [(fmt, document) for _created, pk, fmt, document in found if pk != exclude_id]


def _read_all(resource_id: int) -> list[tuple]:
    rows = (
        Version.objects.filter(resource_id=resource_id, content__isnull=False)
        .order_by("created_on", "pk")
        .values_list("pk", KT("extensions__format"), "content")
    )
    return [(None, pk, fmt, bytes(content)) for pk, fmt, content in rows]


def _order(row: tuple) -> tuple:
    return row[0], row[1]  # created_on, id: `registry.domain.attributes.version_order`


@functools.cache
def _statement(vendor: str) -> str:
    """One row: the resource's digest (registry/migrations/0011_versions_digest.py); then every row with a document
    after the id given (all of them for -1), each with the hash of its id that the digest added for it."""
    qn = connection.ops.quote_name
    table, fk, pk = qn(Version._meta.db_table), qn(Version._meta.get_field("resource").column), qn("id")
    resources = qn(Resource._meta.db_table)
    return (
        f"SELECT NULL, NULL, NULL, NULL, "
        f"COALESCE((SELECT versions_digest FROM {resources} WHERE {pk} = %s), 0)::text "
        "UNION ALL "
        f"SELECT * FROM (SELECT v.{qn('created_on')}, v.{pk}, v.{qn('extensions')} ->> 'format', v.{qn('content')}, "
        f"hashint8extended(v.{pk}, 0)::text FROM {table} v "
        f"WHERE v.{fk} = %s AND v.{qn('content')} IS NOT NULL AND v.{pk} > %s) AS later"
    )


def _read(resource_id: int, after: int) -> tuple[int, list[tuple]]:
    """The resource's digest, and its rows after the id `after` (`_statement`)."""
    with prepared_cursor(connection) as cursor:
        cursor.execute(_statement(connection.vendor), [resource_id, resource_id, after])
        result = cursor.fetchall()
    (digest,) = [int(row[4]) for row in result if row[1] is None]  # the one row of the digest (a row has an id)
    return digest, [row for row in result if row[1] is not None]


def _postgresql(resource_id: int) -> _Kept:
    """The rows (as an entry to keep), from the kept ones and the rows after them when the kept ones are as they
    were."""
    kept = _kept.get(resource_id, counted=False)
    digest, later = _read(resource_id, kept.last_id if kept is not None else -1)
    if kept is not None and digest != kept.digest + sum(int(row[4]) for row in later):
        kept = None  # a kept row changed or went, or a lower id appeared: read them all
        digest, later = _read(resource_id, -1)
    _kept.count(hit=kept is not None)
    new_rows = [(created, pk_, fmt, bytes(document)) for created, pk_, fmt, document, _h in later]
    if kept is not None and not new_rows:
        return kept
    new_rows.sort(key=_order)
    if kept is not None and kept.rows and _order(new_rows[0]) < _order(kept.rows[-1]):
        rows = tuple(sorted((*kept.rows, *new_rows), key=_order))  # a new row older than a kept one: merged
        documents = tuple((fmt, document) for _created, _pk, fmt, document in rows)
    else:
        rows = (*(kept.rows if kept is not None else ()), *new_rows)  # the usual case: the new rows come last
        pairs = [(fmt, document) for _created, _pk, fmt, document in new_rows]
        documents = (*(kept.documents if kept is not None else ()), *pairs)
    size = (kept.size if kept is not None else 0) + sum(len(row[3]) + ROW_OVERHEAD for row in new_rows)
    entry = _Kept(
        rows=rows,
        documents=documents,
        last_id=max((kept.last_id if kept is not None else -1, *(row[1] for row in new_rows))),
        digest=digest,
        size=size,
    )
    _kept.put(resource_id, entry, size=size)  # (not kept when larger than DOCUMENT_BYTES alone)
    return entry
