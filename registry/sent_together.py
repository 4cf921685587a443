"""Statements sent to the database together, in one round trip, and the row inserts written for it (issue 29).

Every write of a schema's versions holds the schema's row lock until it commits, so the round trips it makes under
the lock bound how many versions of one schema can be written per second. Inside `sent_together()`, on PostgreSQL,
statements are queued (psycopg 3's pipeline mode) and sent with the block's end, which waits once for all their
answers; elsewhere (SQLite: in process, no network) each runs at once as usual, so code inside works the same on both.

What code inside must respect (psycopg learns a statement's outcome only from its answer):

- read a statement's rows (`fetchone`) after the block: a fetch inside waits for the answers so far (correct, but a
  round trip of its own);
- never read `cursor.rowcount` inside (it is -1 until the answer came): the ORM's `save()` of an existing row and
  `QuerySet.update()` read it, so they do not belong in a block; `insert` below and written-out statements do;
- a statement's error (a unique violation) is raised when the block ends, as Django's error (django.db.IntegrityError);
  the statements queued after it are not run, and the transaction is aborted, as it would be anyway.

Statements that read nothing back and that nothing in the block reads (a change's outbox and audit rows and the change
count: registry/services/events.py) can be given as parts (`send`): in a block on PostgreSQL they are sent at its end
as one statement (each but the last a data-modifying CTE of it), outside one they are sent at once (on PostgreSQL one
statement for the parts of one call). PostgreSQL's work per statement (its parse or bind, its snapshot, the executor's
start and end) and the client's (its Python) are paid once for all of them.
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import DateTimeField, Model
from django.db.models.sql import InsertQuery, Query
from django.utils import timezone

from .compiled_reads import loaded, prepared_cursor


@contextmanager
def sent_together(*, then_commit: bool = False) -> Iterator[None]:
    """The statements executed inside sent in one round trip when the block ends (module docstring). `then_commit`:
    the caller writes nothing after the block, so the transaction's COMMIT may go in the same round trip
    (`_commit_sent`)."""
    connection = _connection()
    if connection.vendor == "postgresql":
        connection.ensure_connection()
        pipeline = getattr(connection.connection, "pipeline", None)  # psycopg 3's (psycopg2 has none)
        if pipeline is not None and _pipelines_supported():
            with connection.wrap_database_errors, pipeline():
                outer = getattr(connection, "_sent_later", None)
                if outer is not None:  # (a block inside another: its parts go with the outer one's)
                    yield
                    return
                queued: list[Part] = []
                connection._sent_later = queued
                try:
                    yield
                finally:
                    connection._sent_later = None
                _execute(connection, queued)  # (not when the block raised: the write fails anyway)
                if then_commit:
                    _commit_sent(connection)
            return
    yield


def _commit_sent(connection) -> None:
    """The COMMIT of the transaction queued after a block's statements, when the block is in the outermost atomic
    block, which commits when it ends (Django's `atomic`): the statements' answers and the commit's come back together,
    and a lock taken in the transaction (a resource's, held by every new version of it) is released one round trip
    earlier, before the Python work that follows. When the atomic block ends, Django's commit finds the transaction
    ended (psycopg's `commit()` sends nothing then) and runs the on-commit callbacks as usual. Inside another atomic
    block (a savepoint's, a test's, a document import's) nothing is queued: the outer block commits. Should a statement
    fail, the server skips the COMMIT queued after it, and the error is raised when the block ends as without it (the
    atomic block rolls back)."""
    if len(connection.atomic_blocks) == 1 and not connection.savepoint_ids and connection.commit_on_exit:
        connection.connection.commit()
        # the rest of the atomic block must send nothing: psycopg would begin a new transaction for it, which Django's
        # commit at the block's end would commit outside the lock and the write's atomicity (a write added after the
        # block without `then_commit=False`). Until the transaction's end (Django then replaces `run_on_commit`,
        # before the on-commit callbacks, which may query), `refuse_after_commit` raises instead of sending.
        connection._committed_early = connection.run_on_commit
        if refuse_after_commit not in connection.execute_wrappers:
            connection.execute_wrappers.insert(0, refuse_after_commit)  # first: `execute_wrapper()` pops the last


class StatementAfterCommit(RuntimeError):
    """A statement sent in an atomic block whose COMMIT was already sent (`sent_together(then_commit=True)`)."""


def refuse_after_commit(execute, sql, params, many, context):
    """Django's execute wrapper (every cursor of the connection, kept ones too): a statement of a transaction whose
    COMMIT went with a `sent_together` block raises, unsent."""
    connection = context["connection"]
    if getattr(connection, "_committed_early", None) is connection.run_on_commit and connection.in_atomic_block:
        raise StatementAfterCommit(
            "a statement after a `sent_together(then_commit=True)` block would run after its COMMIT, outside the "
            f"transaction: give then_commit=False when the write sends more after the block ({sql[:80]!r})"
        )
    return execute(sql, params, many, context)


# A statement given in parts: (the name a later part refers to it by, or None; its SQL; its parameters)
Part = tuple[str | None, str, list]


def send(*parts: Part) -> None:
    """Statements that read nothing back, and that nothing reads before the transaction's end: inside a
    `sent_together()` block on PostgreSQL, sent with the block's end as one statement; otherwise at once (module
    docstring). A part may name an earlier one of the same call as a table (its RETURNING rows): PostgreSQL only."""
    connection = _connection()
    queued = getattr(connection, "_sent_later", None)
    if queued is not None:
        queued.extend(parts)
    else:
        _execute(connection, parts)


def _execute(connection, parts) -> None:
    if not parts:
        return
    if connection.vendor == "postgresql":
        sql, params = one_statement(parts)
        with prepared_cursor(connection) as cursor:
            cursor.execute(sql, params)
        return
    for _name, sql, params in parts:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)


def one_statement(parts) -> tuple[str, list]:
    """Parts as one statement (PostgreSQL): each but the last a data-modifying CTE, which PostgreSQL runs once and to
    its end whether or not the last reads it; the parameters in the order of the text."""
    if len(parts) == 1:
        ((_name, sql, params),) = parts
        return sql, params
    ctes = ", ".join(f"{name or f'sent_{n}'} AS ({sql})" for n, (name, sql, _params) in enumerate(parts[:-1]))
    return f"WITH {ctes} {parts[-1][1]}", [value for _name, _sql, params in parts for value in params]


def insert_part(model: type[Model], values: dict) -> Part:
    """The INSERT of one row of `model` as `send` takes it, from its fields' values by attribute name, as
    `insert(model(**values))` writes it but reading no generated key back (a value not given is the field's default, an `auto_now`
    or `auto_now_add` date is now; each value's database preparation), without building the model instance (about a
    third of the insert's Python). A generated primary key is left to the database."""
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


@functools.cache
def _pipelines_supported() -> bool:
    """psycopg 3 built on a libpq with pipeline mode (14 or later; psycopg[binary] brings its own)."""
    # here: psycopg loads only where PostgreSQL is the database
    import psycopg

    return psycopg.Pipeline.is_supported()


def statement_cursor():
    """A cursor for a hand-written statement of a write: on PostgreSQL with the connection pool, one with server-side
    parameters, so that psycopg prepares the statement after a few uses on its pooled connection and PostgreSQL no
    longer parses and plans it (registry/compiled_reads.prepared_cursor), for each of the
    statements of a new version, most of them under the schema's lock. Otherwise a plain cursor."""
    return prepared_cursor(_connection())


def _connection():
    """The database connection of this thread, looked up once per use: `django.db.connection` looks it up again at each
    attribute read, and Django's own functions given it read many (a row's insert, hundreds)."""
    return connections[DEFAULT_DB_ALIAS]


class Inserted:
    """A row's INSERT, sent; `done()` after the answer came reads its generated primary key back into the object."""

    def __init__(self, obj: Model, cursor):
        self.obj, self.cursor = obj, cursor

    def done(self) -> Model:
        obj = self.obj
        if self.cursor is not None:
            (obj.pk,) = self.cursor.fetchone()
            self.cursor.close()
            self.cursor = None
        obj._state.adding, obj._state.db = False, DEFAULT_DB_ALIAS  # as Model.save() leaves it
        return obj


def insert(obj: Model) -> Inserted:
    """Send `obj`'s row as `obj.save(force_insert=True)` writes it (each field's `pre_save` and database preparation,
    as Django's INSERT), without waiting for the answer, so that it can go in a `sent_together()` block. Call
    `done()` on the result once the answer came (after the block): a generated primary key is read back then. No
    model signals are sent (none of the models written so has receivers)."""
    meta = obj._meta
    generated = meta.auto_field is not None and obj.pk is None  # (then read back)
    connection = _connection()
    if generated and not connection.features.can_return_columns_from_insert:
        obj.save(force_insert=True)  # (a database that cannot say the new id in the INSERT's answer)
        return Inserted(obj, None)
    fields, sql = _insert_statement(type(obj), connection.vendor, generated, generated)
    cursor = prepared_cursor(connection)
    cursor.execute(sql, [field.get_db_prep_save(field.pre_save(obj, True), connection) for field in fields])
    if generated:
        return Inserted(obj, cursor)
    cursor.close()
    return Inserted(obj, None)


class Selected:
    """A query's rows, sent; `instances()` after the answer came: the rows as model instances."""

    def __init__(self, model: type[Model], cursor, names: tuple[str, ...] | None = None):
        self.model, self.cursor, self.names = model, cursor, names

    def instances(self) -> list:
        """The rows as `Model.objects.raw()` gives them (each column's database converters applied)."""
        try:
            names = self.names or tuple(column[0] for column in self.cursor.description)
            rows = self.cursor.fetchall()
        finally:
            self.cursor.close()
        connection = _connection()
        converters, order, attnames = _reading(self.model, names, connection.vendor)
        if converters:
            rows = [list(row) for row in rows]
            for row in rows:
                for at, expression, functions in converters:
                    value = row[at]
                    for convert in functions:
                        value = convert(value, expression, connection)
                    row[at] = value
        model, alias = self.model, connection.alias
        return [loaded(model, alias, attnames, tuple(row[i] for i in order)) for row in rows]

    def close(self) -> None:
        """The answer is not wanted (its rows are dropped)."""
        self.cursor.close()


@functools.cache
def _reading(model: type[Model], names: tuple[str, ...], vendor: str) -> tuple[list, list[int], list[str]]:
    """How `Selected.instances` reads rows of these columns: per column that has some, its place, expression and
    converters (the backend's, then the field's, as a queryset applies them); the places of the model's fields in
    its order (`from_db` takes the values so); their names. Worked out once (Django's compiler each time cost more
    than the query)."""
    meta = model._meta
    by_column = {f.column: f for f in meta.concrete_fields}
    fields = [by_column[name] for name in names]
    connection = _connection()
    compiler = connection.ops.compiler("SQLCompiler")(Query(model), connection, connection.alias)
    found = compiler.get_converters([f.get_col(meta.db_table) for f in fields])
    converters = [(at, expression, functions) for at, (functions, expression) in found.items()]
    at = {f.attname: i for i, f in enumerate(fields)}
    order = [at[f.attname] for f in meta.concrete_fields if f.attname in at]
    return converters, order, [f.attname for f in meta.concrete_fields if f.attname in at]


def select(model: type[Model], sql: str, params: list) -> Selected:
    """Send a query of `model`'s rows (every column a field's) without waiting for the answer, so that it can go in a
    `sent_together()` block; call `instances()` on the result after the block. A query that begins `SELECT * FROM`
    is sent naming the model's columns (`every_column`), so that their names need not be read from the answer."""
    names = None
    connection = _connection()
    if sql.startswith("SELECT * FROM "):
        listed, names = every_column(model, connection.vendor)
        sql = f"SELECT {listed} FROM {sql.removeprefix('SELECT * FROM ')}"
    cursor = prepared_cursor(connection)
    cursor.execute(sql, params)
    return Selected(model, cursor, names)


@functools.cache
def every_column(model: type[Model], vendor: str) -> tuple[str, tuple[str, ...]]:
    """The model's columns, in its fields' order: as a statement lists them, and their names."""
    names = tuple(f.column for f in model._meta.concrete_fields)
    qn = _connection().ops.quote_name
    return ", ".join(qn(name) for name in names), names


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
