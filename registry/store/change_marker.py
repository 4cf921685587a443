"""The change marker: a value that moves with every committed change to the registry, read in constant time.

Whole-registry answers are kept rendered until the next committed change (registry/http/rendered_answers.py),
their tags are the marker's (registry/http/conditional.py), and the Spark import skips an input the registry is
already consistent with while no change has been committed since (pipeline/services.py). All of them read the
marker once per request, so it must cost the same whatever the registry's history.

How: every transaction that writes change events (every write, registry/services/events.py) adds one to a row of
`ChangeCount`, once (not per event: an import writes thousands), and the marker is the sum of the rows with the time of the newest addition
(`SUM:NEWEST`): one query over a handful of rows.

- Commit order: the sum counts committed additions only, whatever order transactions started or stamped their rows
  in; a transaction that began earlier and commits later still adds one when it commits. (The newest outbox time,
  or the largest id, would not: a transaction can stamp an earlier time and commit after a later one.)
- No serialised writers: on PostgreSQL a transaction takes the first row no other transaction holds
  (`FOR UPDATE SKIP LOCKED`) and inserts a new row when every row is held, so a writer never waits for another
  (one row bumped by every transaction would queue them all behind each other until commit); the rows are as many
  as the most transactions that ever wrote at once. SQLite has one writer at a time anyway: one row.
- Only registry changes move it: not sessions, tokens, delivery statuses or relays (PostgreSQL's
  `pg_current_snapshot()` moves with each of those: never a stale answer, but a re-render of the whole registry
  after every delivery, and it does not exist on SQLite).
- A rolled-back transaction or savepoint adds nothing (its addition rolls back with it); the time guards against a
  count that comes back to an earlier value with other contents (a restored backup, a test's rolled-back data).

`WriteContext.changes` counts the context's own committed additions, so that the Spark import can tell that nobody
else committed a change while it ran.
"""

from __future__ import annotations

import datetime
from functools import cache

from django.db import connection, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from ..compiled_reads import caller_column
from ..models import ChangeCount
from ..sent_together import Part, send
from .document_keys import fetch_apart


class _Counted:
    """The on-commit callback of an addition: it marks "counted here" in Django's list of the transaction's
    callbacks (dropped with a savepoint that rolls back, as the addition itself is) and, after the commit, counts
    the addition for the writing context."""

    def __init__(self, ctx):
        self.ctx = ctx

    def __call__(self):
        self.ctx.changes += 1


def _counted_here() -> bool:
    """Whether the current transaction already added one that still stands, and this connection has not read the
    marker since (a test's or a command's long transaction that writes, reads, writes again must see it move, as
    every other connection will after the commit). Constant time, whatever the transaction wrote: Django replaces its
    list of on-commit callbacks at each commit and rollback, savepoints' included, so while the list is the one the
    addition was registered in, the addition stands; after a savepoint's rollback, one look tells whether it was
    rolled back too."""
    conn = transaction.get_connection()
    state = getattr(conn, "_change_marker_counted", None)  # (the callbacks' list, our callback)
    if not conn.in_atomic_block or state is None or getattr(conn, "_change_marker_read", False):
        return False
    callbacks, counted = state
    if conn.run_on_commit is callbacks:
        return True
    if any(callback is counted for _sids, callback, _robust in conn.run_on_commit):
        conn._change_marker_counted = (conn.run_on_commit, counted)
        return True
    return False


def count_change(ctx, with_parts: tuple[Part, ...] = ()) -> None:
    """Add one to a `ChangeCount` row in the current transaction, unless it already did (called per event).
    `with_parts`: statements sent with the addition (`sent_together.send`: on PostgreSQL one statement)."""
    if _counted_here():
        send(*with_parts)
        return
    now = timezone.now()
    table = connection.ops.quote_name(ChangeCount._meta.db_table)
    value = connection.ops.adapt_datetimefield_value(now)
    with transaction.atomic(savepoint=False):
        if connection.features.has_select_for_update_skip_locked:
            # PostgreSQL: a row no other transaction holds, else (every row held, or none yet) a row of its own;
            # statements that read nothing back, so that they can be sent with the change's others
            # (registry/sent_together.py)
            send(
                *with_parts,
                (
                    "change_bumped",
                    f"UPDATE {table} SET changes = changes + 1, changed_at = %s WHERE id = "
                    f"(SELECT id FROM {table} ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id",
                    [value],
                ),
                (
                    None,
                    f"INSERT INTO {table} (changes, changed_at) SELECT 1, %s "
                    "WHERE NOT EXISTS (SELECT 1 FROM change_bumped)",
                    [value],
                ),
            )
        else:  # SQLite: one writer at a time, one row
            send(*with_parts)
            with connection.cursor() as cursor:
                cursor.execute(
                    f"UPDATE {table} SET changes = changes + 1, changed_at = %s "
                    f"WHERE id = (SELECT id FROM {table} ORDER BY id LIMIT 1)",
                    [value],
                )
                missing = cursor.rowcount == 0
            if missing:  # none yet
                ChangeCount.objects.create(changes=1, changed_at=now)
        counted = _Counted(ctx)
        transaction.on_commit(counted)
        conn = transaction.get_connection()
        conn._change_marker_counted, conn._change_marker_read = (conn.run_on_commit, counted), False


def change_marker() -> str:
    """`SUM:NEWEST` of the committed additions (module docstring)."""
    _note_read()
    with connection.cursor() as cursor:  # written out: compiling the ORM's aggregate() cost more than the query
        cursor.execute(_MARKER_SQL)
        return _marker_text(*cursor.fetchone())


def change_marker_and_caller(token: str | None) -> tuple[str, bool | None]:
    """The marker and whether `token` is an API token of an active user (None: no such token, or none given), in
    one query on a connection of its own from the pool when there is one (`document_keys.fetch_apart`): the fast
    path's look-up of a whole-registry answer (registry/http/fast_reads.py)."""
    _note_read()
    if token is None:  # the token's sub-query costs PostgreSQL work even for no token (docs/performance.md)
        caller, (total, newest) = None, fetch_apart(_MARKER_SQL, [])
    else:
        caller, total, newest = fetch_apart(_marker_and_caller_sql(connection.vendor), [token])
    return _marker_text(total, newest), caller


def _note_read() -> None:
    if connection.in_atomic_block:
        # the transaction's next write adds one again (`_counted_here`); the marker's state per connection rides on
        # Django's connection object, whose type declares no such attribute
        connection._change_marker_read = True  # type: ignore[attr-defined]


def _marker_text(total, newest) -> str:
    if isinstance(newest, str):  # SQLite answers the largest of a date column as its text, UTC without a zone
        newest = parse_datetime(newest)
    if newest is not None:
        # in UTC whatever the connection's time zone (a pool connection read apart may have another)
        newest = (
            timezone.make_aware(newest, datetime.UTC) if timezone.is_naive(newest) else newest.astimezone(datetime.UTC)
        )
    return f"{total or 0}:{newest.isoformat() if newest else '-'}"


_MARKER_SQL = f"SELECT SUM(changes), MAX(changed_at) FROM {ChangeCount._meta.db_table}"


@cache
def _marker_and_caller_sql(vendor: str) -> str:
    return f"SELECT {caller_column(vendor)}, SUM(changes), MAX(changed_at) FROM {ChangeCount._meta.db_table}"
