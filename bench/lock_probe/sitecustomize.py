"""Loaded by the servers of `bench/version_writes_one_schema.py --lock-times` (this directory on their PYTHONPATH):
each time a transaction that took a resource's row lock (`SELECT ... FOR UPDATE` on registry_resource) commits,
appends to the file $LOCK_PROBE one line: the time, the milliseconds from the lock's answer to the commit's end, and
the thread's CPU milliseconds in between. A lock sent in a pipeline (registry/sent_together.py) is answered when the
pipeline ends, with the statements sent after it: their time in the server under the lock is not counted then. A
COMMIT sent in a pipeline (`sent_together(then_commit=True)`) ends the lock when that pipeline ends (the transaction
is idle after it). A bench's instrument, never loaded otherwise."""

import os
import threading
import time

if os.environ.get("LOCK_PROBE"):
    from django.db.backends import utils
    from django.db.backends.base import base
    from psycopg import _pipeline
    from psycopg.pq import TransactionStatus

    _local = threading.local()
    _execute = utils.CursorWrapper._execute
    _commit = base.BaseDatabaseWrapper._commit
    _pipeline_exit = _pipeline.Pipeline.__exit__

    def _timed_execute(self, sql, params, *rest):
        result = _execute(self, sql, params, *rest)
        if "FOR UPDATE" in sql and "registry_resource" in sql:
            if getattr(self.db.connection, "_pipeline", None) is not None:
                _local.pending = True  # answered when the pipeline ends
            else:
                _local.locked = (time.perf_counter(), time.thread_time())
        return result

    def _released():
        locked = getattr(_local, "locked", None)
        if locked is not None:
            _local.locked = None
            wall, cpu = (time.perf_counter() - locked[0]) * 1000, (time.thread_time() - locked[1]) * 1000
            with open(os.environ["LOCK_PROBE"], "a") as out:
                out.write(f"{time.time():.3f} {wall:.3f} {cpu:.3f}\n")

    def _timed_pipeline_exit(self, *exc):
        result = _pipeline_exit(self, *exc)
        if getattr(_local, "pending", False):
            _local.pending = False
            _local.locked = (time.perf_counter(), time.thread_time())
        elif self._conn.info.transaction_status == TransactionStatus.IDLE:
            _released()  # the COMMIT went with this pipeline's statements
        return result

    def _timed_commit(self):
        result = _commit(self)
        _released()
        return result

    utils.CursorWrapper._execute = _timed_execute
    base.BaseDatabaseWrapper._commit = _timed_commit
    _pipeline.Pipeline.__exit__ = _timed_pipeline_exit
