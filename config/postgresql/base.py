"""Django's PostgreSQL backend, whose connection pool does not hand out a connection PostgreSQL has ended
(`DATABASES["default"]["ENGINE"] = "config.postgresql"`, config/settings.py).

After PostgreSQL restarts, every connection a pool kept is dead. A gunicorn worker that had not met one yet handed it
to a request, which answered 503: 3-6 of 90 reads after `/readyz` (answered by another worker) was already 200
(issue 37). psycopg's pool checks a connection before handing it out when given a `check` callback, but Django builds
the pool itself and passes only psycopg_pool's own check (`ConnectionPool.check_connection`, with
CONN_HEALTH_CHECKS): an empty query, a round trip at every checkout, as much as a whole read on the fast path
(docs/performance.md), which takes a connection for its one query; with PostgreSQL on another host, twice the round
trips of such a read.

The check here costs no round trip. A server that ends a connection says so on its socket (its termination notice,
then the end of the stream), so a dead connection's socket has something to read, and an idle live one's has
nothing: the check polls the socket without waiting (a few microseconds) and sends psycopg_pool's query only when
something is there (a live connection's notice passes it). When a connection fails it, the pool's other idle
connections are checked at once (`ConnectionPool.check`): psycopg_pool waits 1 s, then 2 s, ... between the failed
checks of one request, which must not meet the dead connections one by one. Not seen this way: a server gone without a
word (its host lost, a firewall dropping idle connections); a request then answers 503 as before, and the connection
it had is dropped.

The check is put in the pool Django built (psycopg_pool keeps it as `_check`), in place of psycopg_pool's own or of
none; should psycopg_pool keep it otherwise, the pool keeps Django's choice (CONN_HEALTH_CHECKS is on in
config/settings.py: the round-trip check, still correct).
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base


def check_connection(conn) -> None:
    """Return when `conn` may be handed out; raise (psycopg_pool then drops it and makes another) when not."""
    if conn.closed:
        raise ConnectionError("the connection is closed")
    poller = select.poll()  # not select.select: a descriptor above 1023 is fine
    poller.register(conn.fileno(), select.POLLIN | select.POLLPRI)
    if not poller.poll(0):
        return
    # here: psycopg_pool loads only when a pool checks a connection (DATABASE_POOL_SIZE=0 runs without one)
    from psycopg_pool import ConnectionPool

    try:
        ConnectionPool.check_connection(conn)
    except Exception:
        check = getattr(getattr(conn, "_pool", None), "check", None)  # the pool sets `_pool` while it hands out
        if check is not None:
            check()
        raise


class DatabaseWrapper(base.DatabaseWrapper):
    @property
    def pool(self):
        pool = super().pool
        if pool is not None and getattr(pool, "_check", check_connection) is not check_connection:
            pool._check = check_connection
        return pool
