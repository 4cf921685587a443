"""A document's key: one small row that changes whenever anything a document GET reads changes, for the fast path of
document reads (registry/http/fast_reads.py), which keeps each answer until its key changes.

A document GET reads three rows (the version, its resource, the resource's group: `compiled_reads.document_row`)
and, in xRegistry 1.0, the resource's version count and the version before this one (its `ancestorid`). On PostgreSQL the key
holds each row's id and `xmin`, the id of the transaction that wrote that version of the row: every UPDATE writes a
new row version with the writing transaction's id, so a committed change to any column (the document's bytes too)
changes it, without sending the columns themselves (no wide row to send and parse,
no document read from its TOAST table). Two committed states of one row could carry the same `xmin` only after
4 billion transactions (the counter wraps around), long after a worker's kept answers are gone. On SQLite, in
process with no network, the key is the whole row as `document_row` reads it.

The same query says whether the caller's API token is a key of an active user (`caller_active`), so a token read
costs no query of its own; an anonymous read's query leaves the token table out. With PostgreSQL's connection pool it runs on a connection taken from the pool for that
query alone (prepared on it, answered in binary), not through Django's connection of the request: taking it and
giving it back costs a few microseconds where opening Django's connection and closing it at the end of the request
cost far more, and a request answered here needs no other query. Inside a transaction (a test's) it
runs on Django's connection, which sees that transaction's writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from django.db import connections, router

from .. import compiled_reads
from ..models import Group, Resource, Version


@dataclass(frozen=True)
class DocumentKey:
    row: tuple  # compared, never read
    version_id: str | None  # the version read (None: the resource has no version)
    caller_active: bool | None  # the token's user is active (None: no such token, or none given)


def _postgresql_columns(qn) -> str:
    """Ids and row versions of the three rows, and the version's id."""
    return f"r.{qn('id')}, r.xmin::text, g.{qn('id')}, g.xmin::text, v.{qn('id')}, v.xmin::text, v.{qn('vid')}"


@cache
def _statement(vendor: str, by_version: bool, history: bool, caller: bool) -> str:
    """The key's statement; with `caller` (only when the caller gives a token: the sub-query costs PostgreSQL work
    even for no token, docs/performance.md), whether the token, its first parameter, is a key of an active user."""
    if vendor != "postgresql":
        return compiled_reads._statement(vendor, by_version, history, caller=caller)
    qn = connections[router.db_for_read(Resource)].ops.quote_name
    history_sql = f", {compiled_reads.history_columns(vendor)}" if history else ""
    caller_sql = f", {compiled_reads.caller_column(vendor)}" if caller else ""
    return f"SELECT {_postgresql_columns(qn)}{history_sql}{caller_sql} {compiled_reads.from_where(vendor, by_version)}"


@cache
def _whole_row_vid() -> int:
    """The version id's position in a whole row (`compiled_reads._statement`)."""
    before = len(Resource._meta.concrete_fields) + len(Group._meta.concrete_fields)
    return before + [f.name for f in Version._meta.concrete_fields].index("vid")


@cache
def _alias() -> str:
    return router.db_for_read(Resource)


def reads_keys_apart() -> bool:
    """Whether the key's query runs on a connection of its own from the pool (PostgreSQL with the pool, outside a
    transaction), not on Django's connection of the request."""
    connection = connections[_alias()]
    # (`pool`: PostgreSQL's wrapper has it since Django 5.1, django-stubs does not declare it)
    return (
        connection.vendor == "postgresql"
        and getattr(connection, "pool", None) is not None
        and not connection.in_atomic_block
    )


def fetch_apart(statement: str, params: list):
    """The one row `statement` answers, on a connection of its own from the pool (`reads_keys_apart`), else on
    Django's connection (prepared)."""
    connection = connections[_alias()]
    if (
        connection.vendor != "postgresql"
        or connection.in_atomic_block
        or (pool := getattr(connection, "pool", None)) is None
    ):  # (`reads_keys_apart`, written out: a call and a look-up less in every key's query)
        return compiled_reads.fetch_one(statement, params)[2]
    # here: psycopg loads only where PostgreSQL is the database
    import psycopg

    with connection.wrap_database_errors:  # psycopg's errors (the pool's timeout too) as Django's
        pool.open()  # as Django opens it for its first connection (nothing when it is open)
        # getconn/putconn rather than the pool's `connection()`: the same without its context managers (a tenth of
        # the query's Python); in autocommit mode there is no transaction to end
        raw = pool.getconn()
        try:
            cursor = raw.__dict__.get("_registry_key_cursor")
            if cursor is None:
                cursor = raw._registry_key_cursor = psycopg.Cursor(raw)
            cursor.execute(statement, params, prepare=True, binary=True)
            return cursor.fetchone()
        finally:
            pool.putconn(raw)


# one cursor per pool connection (its `_registry_key_cursor`), used again by each key's query on it (a connection
# serves one thread at a time): a new cursor each time, with its own adapters and loaders, cost about as much of the
# client's CPU as the rest of the query's Python. An attribute of the connection, so it goes when the connection goes
# (a weak dictionary keyed by the connection kept both: the cursor refers to its connection).


def document_key(
    group_type: str,
    gid: str,
    resource_type: str,
    rid: str,
    vid: str | None = None,
    *,
    history: bool = False,
    token: str | None = None,
) -> DocumentKey | None:
    """The key of the document at the path (latest, or version `vid`; `history`: with the 1.0 columns), and whether
    `token` is valid; None when the path matches nothing."""
    vendor = connections[_alias()].vendor
    caller = token is not None
    # the token first (the SELECT list's), then FROM's and WHERE's
    params = ([token] if caller else []) + [group_type, gid, resource_type, rid] + ([vid] if vid is not None else [])
    found = fetch_apart(_statement(vendor, vid is not None, history, caller), params)
    if found is None:
        return None
    row, active = (tuple(found[:-1]), found[-1]) if caller else (tuple(found), None)
    return DocumentKey(row, row[6] if vendor == "postgresql" else row[_whole_row_vid()], active)
