"""Statements that read nothing back, written as one statement (issue 29; a plain sequence since issue 40).

A change writes its outbox row, its audit row and the change count (registry/services/events.py,
registry/store/audit.py, registry/store/change_marker.py), and a new version its row and its resource's state with them.
Their statements are given as parts (`send`): outside `parts_collected()` they are sent at once, on PostgreSQL one
statement for the parts of one call (each but the last a data-modifying CTE of it); inside, they are kept in the block's
list and the caller sends them with its own (`execute_parts`), on PostgreSQL as one statement, which PostgreSQL runs in
full whether or not the last part reads the others (elsewhere one after the other: SQLite runs in process). PostgreSQL's
work per statement (its parse or bind, its snapshot, the executor's start and end) and the client's are paid once for
all of them. Nothing is pipelined or queued: every statement has its answer before the next one is sent, and the
transaction ends with Django's own COMMIT.
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import DateTimeField, Model
from django.db.models.sql import InsertQuery
from django.utils import timezone

from .compiled_reads import prepared_cursor


@contextmanager
def parts_collected() -> Iterator[list]:
    """The parts `send` is given inside the block, kept in the list yielded instead of sent: the caller sends them
    (`execute_parts`), in the same transaction."""
    connection = _connection()
    outer = getattr(connection, "_sent_later", None)
    parts: list = []
    connection._sent_later = parts
    try:
        yield parts
    finally:
        connection._sent_later = outer


# A statement given in parts: (the name a later part refers to it by, or None; its SQL; its parameters)
Part = tuple[str | None, str, list]


def send(*parts: Part) -> None:
    """Statements that read nothing back, and that nothing reads before the transaction's end: inside
    `parts_collected()`, kept in its list; otherwise sent at once (module docstring). A part may name an earlier one
    of the same call as a table (its RETURNING rows): PostgreSQL only."""
    queued = getattr(_connection(), "_sent_later", None)
    if queued is None:
        execute_parts(parts)
    else:
        queued.extend(parts)


def execute_parts(parts) -> tuple | None:
    """Send the parts (PostgreSQL: as one statement; elsewhere one after the other); the first row the last one
    returns (None when it returns none)."""
    connection = _connection()
    if not parts:
        return None
    if connection.vendor == "postgresql" and len(parts) > 1:
        # each part but the last a data-modifying CTE, which PostgreSQL runs once and to its end whether or not the
        # last reads it; the parameters in the order of the text
        ctes = ", ".join(f"{name or f'sent_{n}'} AS ({sql})" for n, (name, sql, _params) in enumerate(parts[:-1]))
        parts = [(None, f"WITH {ctes} {parts[-1][1]}", [value for _name, _sql, params in parts for value in params])]
    row = None
    for _name, sql, params in parts:
        with prepared_cursor(connection) as cursor:
            cursor.execute(sql, params)
            row = cursor.fetchone() if cursor.description else None
    return row


def insert_part(model: type[Model], values: dict) -> Part:
    """The INSERT of one row of `model` as `send` takes it, from its fields' values by attribute name, as
    `model(**values).save()` writes it but reading no generated key back (a value not given is the field's default,
    an `auto_now` or `auto_now_add` date is now; each value's database preparation), without building the model
    instance (about a third of the insert's Python). A generated primary key is left to the database."""
    connection = _connection()
    preparing, sql = _insert_part_statement(model, connection.vendor)
    params = []
    for field, attname, now in preparing:
        if now:
            value = timezone.now() if isinstance(field, DateTimeField) else datetime.date.today()
        elif attname in values:
            value = values[attname]
        else:
            value = field.get_default()
        params.append(field.get_db_prep_save(value, connection))
    return None, sql, params


@functools.cache
def _insert_part_statement(model: type[Model], vendor: str) -> tuple[list[tuple], str]:
    meta = model._meta
    fields, sql = _insert_statement(model, vendor, meta.auto_field is not None, False)
    return [(f, f.attname, getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False)) for f in fields], sql


def insert_returning_part(obj: Model, name: str) -> Part:
    """The INSERT of `obj`'s row as `obj.save(force_insert=True)` writes it (each field's `pre_save` and database
    preparation), returning its generated primary key, as a part named `name` (a later part reads the key as
    `(SELECT id FROM name)` on PostgreSQL)."""
    connection = _connection()
    fields, sql = _insert_statement(type(obj), connection.vendor, True, True)
    return name, sql, [field.get_db_prep_save(field.pre_save(obj, True), connection) for field in fields]


def _connection():
    """The database connection of this thread, looked up once per use: `django.db.connection` looks it up again at each
    attribute read, and Django's own functions given it read many (a row's insert, hundreds)."""
    return connections[DEFAULT_DB_ALIAS]


@functools.cache
def _insert_statement(model: type[Model], vendor: str, generated: bool, returning: bool) -> tuple[list, str]:
    """The fields and the INSERT of a row of `model` (without its generated key), compiled once: Django's compiler
    builds the same statement for every row, at a cost near the statement's own on the database."""
    meta = model._meta
    fields = [f for f in meta.local_concrete_fields if not (generated and f is meta.auto_field)]
    query = InsertQuery(model)
    query.insert_values(fields, [model()])  # one row: the placeholders of its values
    compiler = query.get_compiler(connection=_connection())
    compiler.returning_fields = [meta.auto_field] if returning else None
    ((sql, _params),) = compiler.as_sql()
    return fields, sql
