"""Django's SQLite backend, with writers that take turns (issue 37 item 11).

Every write transaction begins with `BEGIN IMMEDIATE` (`transaction_mode`, config/settings.py), so no statement upgrades
a read to a write and fails at once: a transaction waits for SQLite's write lock from its first statement. But SQLite
makes a waiting writer sleep and retry (longer and longer between tries), so a writer that has waited long
sleeps long, and writers arriving meanwhile, which try at once, take the lock before it. Under a steady stream of
writes (creates racing a delete and re-create of their group: the lock busy nearly all the time) some `BEGIN
IMMEDIATE`s waited past `SQLITE_TIMEOUT`: 503 "database is
locked", while a turn in order would have come within a second.

So a write transaction first takes its turn, then begins: within a process a lock that wakes the next waiting thread
when released (no sleeping), across processes (gunicorn's workers, Celery, commands) an exclusive `flock` on a file
beside the database (`<database>-writers`), held until the transaction commits, rolls back or its connection closes.
Waiting processes try for it every few milliseconds, one thread each, far below the time a transaction holds it, so
whichever waits gets the lock at one of the next few releases. A turn not given within `SQLITE_TIMEOUT` (the same
bound SQLite's own wait has) is the same 503 as SQLite's lock (registry/http/database_errors.py). SQLite's own lock still
guards everything else (autocommit statements, other programs on the file). In-memory databases (the tests') have one
connection per process and take no turn.

Written here: Django has no hook around a transaction's begin and end but its backend's methods, and no installed
library queues writers of one SQLite file across processes and threads with a bound on the wait.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from typing import TYPE_CHECKING

from django.db.backends.sqlite3 import base
from django.db.utils import OperationalError

SQLITE_DEFAULT_TIMEOUT = 5.0  # sqlite3.connect's, when OPTIONS give none
LONGEST_TRY_INTERVAL = 0.005  # seconds between two tries for another process's turn, at most

_process_locks: dict[str, threading.Lock] = {}
_process_locks_guard = threading.Lock()


def _process_lock(path: str) -> threading.Lock:
    with _process_locks_guard:
        return _process_locks.setdefault(path, threading.Lock())


def _forked() -> None:
    """A forked child starts with no turn taken: its copy of a lock another thread of the parent held would never be
    released (the flock is the parent's: `_end_turn` leaves it to the parent)."""
    global _process_locks_guard
    _process_locks.clear()
    _process_locks_guard = threading.Lock()


os.register_at_fork(after_in_child=_forked)


if TYPE_CHECKING:

    class _Backend(base.DatabaseWrapper):
        """Django's private transaction methods this backend wraps, which django-stubs does not declare."""

        def _start_transaction_under_autocommit(self) -> None: ...
        def _commit(self) -> None: ...
        def _rollback(self) -> None: ...
        def _close(self) -> None: ...

else:
    _Backend = base.DatabaseWrapper


class DatabaseWrapper(_Backend):
    _turn_file: int | None = None  # this connection's descriptor of the turn file (a flock is per descriptor)
    _turn: threading.Lock | None = None  # this process's lock of the file, while this connection holds its turn
    _turn_pid = 0  # the process that took it

    def _turn_path(self) -> str:
        return f"{os.path.abspath(self.settings_dict['NAME'])}-writers"

    def _take_turn(self) -> None:
        timeout = float(self.settings_dict.get("OPTIONS", {}).get("timeout", SQLITE_DEFAULT_TIMEOUT))
        deadline = time.monotonic() + timeout
        path = self._turn_path()
        turn = _process_lock(path)
        if not turn.acquire(timeout=timeout):
            raise OperationalError(f"database is locked: no turn to write within {timeout:g} s (SQLITE_TIMEOUT)")
        try:
            if self._turn_file is None:
                self._turn_file = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            interval = 0.0005
            while True:
                try:
                    fcntl.flock(self._turn_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise OperationalError(
                            f"database is locked: no turn to write within {timeout:g} s (SQLITE_TIMEOUT)"
                        ) from None
                    time.sleep(interval)
                    interval = min(interval * 2, LONGEST_TRY_INTERVAL)
        except BaseException:
            turn.release()
            raise
        self._turn, self._turn_pid = turn, os.getpid()

    def _end_turn(self) -> None:
        turn, self._turn = self._turn, None
        if turn is None or self._turn_pid != os.getpid():  # (a copy in a forked child: the turn is the parent's)
            return
        try:
            if self._turn_file is not None:
                fcntl.flock(self._turn_file, fcntl.LOCK_UN)
        finally:
            turn.release()

    def _start_transaction_under_autocommit(self):
        if self.is_in_memory_db() or self._turn is not None:
            return super()._start_transaction_under_autocommit()
        self._take_turn()
        try:
            super()._start_transaction_under_autocommit()
        except BaseException:
            self._end_turn()
            raise

    def _commit(self):
        # a COMMIT that fails leaves the transaction open: Django rolls it back (or closes the connection) next
        result = super()._commit()
        self._end_turn()
        return result

    def _rollback(self):
        try:
            return super()._rollback()
        finally:
            self._end_turn()

    def _close(self):
        try:
            return super()._close()
        finally:
            self._end_turn()
            if self._turn_file is not None:
                os.close(self._turn_file)
                self._turn_file = None
