"""A gunicorn worker (`gthread`) whose own error answers are problem documents (RFC 9457), not HTML, and that answers
on its main thread when it has one thread.

gunicorn answers some requests before the application sees them: a malformed request line (400), a URI or
headers over its limits (414, 431), an unsupported transfer coding (501). It writes those with
`gunicorn.util.write_error`, which has no hook, so this module replaces that function (written by hand:
no library does this) when gunicorn loads the worker class named in gunicorn.conf.py.

With one thread (GUNICORN_THREADS=1, behind a buffering proxy: deploy/), gunicorn's `gthread` worker still hands
every request from its main thread to a pool of one thread and the outcome back through a pipe, and takes a kept-alive
socket off its poller and puts it back around each request: a good part of gunicorn's CPU per request.
This worker answers on its main thread then and leaves a kept-alive socket on the poller (written by hand:
gunicorn's `sync` worker answers inline but closes every connection, and no other worker of gunicorn's keeps them
without threads or an event library). A connection waits on the poller until its first bytes arrive, so a client that
connects and sends nothing holds no worker; one that sends a request slowly holds it, as it holds gthread's only
thread, and when it stalls for longer than GUNICORN_TIMEOUT the arbiter restarts the worker (its main thread no longer
reports in), closing its other connections: hence the buffering proxy in front (deploy/).

Answering on the main thread, a worker takes a new connection off the shared listening socket in microseconds, so the
first of the idle workers to wake took a whole burst of connections (a load generator's, a proxy's pool of kept-alive
connections) and answered all of them on one core while the others idled: every connection of `wrk -c8` on one of
four workers. So after taking a connection, a one-thread worker of several stops taking more until that connection's
first request is answered, or ACCEPT_PAUSE has passed (a connection that sends nothing holds up no one for longer);
another worker takes the next one meanwhile.
"""

from __future__ import annotations

import json
import selectors
import time
from functools import partial

import gunicorn.util
from gunicorn.workers.gthread import TConn, ThreadWorker

from registry.domain.errors import KINDS, PROBLEM_BASE

KIND_BY_STATUS = {status: kind for kind, (status, _title) in reversed(KINDS.items())}
KIND_BY_STATUS[400] = "bad-request"

ACCEPT_PAUSE = 0.01  # seconds a one-thread worker waits for a new connection's first request before taking another


def write_problem(sock, status_int: int, reason: str, mesg: str) -> None:
    kind = KIND_BY_STATUS.get(status_int, "server-error" if status_int >= 500 else "bad-request")
    title = KINDS[kind][1] if KINDS[kind][0] == status_int else reason
    body = json.dumps(
        {"type": PROBLEM_BASE + kind, "title": title, "status": status_int, "detail": mesg or reason}
    ).encode("ascii")  # ensure_ascii: the head is latin-1
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/problem+json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode("latin-1")
    gunicorn.util.write_nonblock(sock, head + body)


gunicorn.util.write_error = write_problem


class ProblemThreadWorker(ThreadWorker):
    """gunicorn's threaded worker; importing this module installs `write_problem`. With one thread, it answers on its
    main thread (`answer_inline`) and takes turns with the other workers at new connections (`accept`)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.awaited: TConn | None = None  # the connection taken last, until its first request is answered
        self.accept_paused_until = 0.0

    def accept(self, listener) -> None:
        """Take one connection; a one-thread worker of several then stops taking more for a while (module doc)."""
        taken = self.nr_conns
        super().accept(listener)
        if self.cfg.threads == 1 and self.cfg.workers > 1 and self.nr_conns > taken and self.pending_conns:
            self.awaited = self.pending_conns[-1]
            self.accept_paused_until = time.monotonic() + ACCEPT_PAUSE * self.nr_conns
            super().set_accept_enabled(False)

    def accept_paused(self) -> float:
        """Seconds until this worker takes connections again (0: now)."""
        if not self.accept_paused_until:
            return 0.0
        remaining = self.accept_paused_until - time.monotonic()
        if self.awaited is None:  # answered: the pause lasts ACCEPT_PAUSE a connection held besides it
            remaining -= ACCEPT_PAUSE
        if remaining <= 0:
            self.awaited, self.accept_paused_until = None, 0.0
            return 0.0
        return remaining

    def set_accept_enabled(self, enabled: bool) -> None:
        """gthread's run loop enables accepting again on its next turn; not while a pause holds."""
        if not (enabled and self.accept_paused()):
            super().set_accept_enabled(enabled)

    def wait_for_and_dispatch_events(self, timeout: float) -> None:
        if paused := self.accept_paused():  # wake when the pause ends, to take connections again
            timeout = min(timeout, paused)
        super().wait_for_and_dispatch_events(timeout)

    def enqueue_req(self, conn: TConn) -> None:
        if self.cfg.threads > 1:
            super().enqueue_req(conn)
        elif not conn.initialized and not conn.data_ready:
            self.wait_for_first_bytes(conn)
        else:
            if conn is self.awaited:
                self.awaited = None  # answered: what is left of the pause is for the other connections held
            self.finish_request(conn, Finished(self.answer_inline(conn)))

    def on_client_socket_readable(self, conn: TConn, client) -> None:
        """A kept-alive connection's next request, answered at once; the socket stays on the poller after it."""
        if self.cfg.threads > 1:
            super().on_client_socket_readable(conn, client)
            return
        self.keepalived_conns.remove(conn)
        keep_alive = self.answer_inline(conn)
        if keep_alive and self.alive:
            conn.sock.setblocking(False)
            conn.set_timeout()
            self.keepalived_conns.append(conn)  # the latest timeout: the deque stays sorted
            return
        self.poller.unregister(client)
        self.finish_request(conn, Finished(keep_alive))  # a stopping worker: gthread's own way out

    def answer_inline(self, conn: TConn) -> bool:
        """Answer the connection's request, and any that the parser already read ahead; whether to keep it alive."""
        keep_alive = self.handle(conn)
        while keep_alive and conn.parser.unreader.buf.getvalue():
            keep_alive = self.handle(conn)
        return bool(keep_alive)

    def wait_for_first_bytes(self, conn: TConn) -> None:
        """A new connection waits on the poller (gthread's own pending connections), not on the only thread."""
        conn.sock.setblocking(False)
        conn.timeout = time.monotonic() + self.cfg.keepalive
        self.pending_conns.append(conn)
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self.on_pending_socket_readable, conn))


class Finished:
    """The outcome of a request answered inline, in the shape `ThreadWorker.finish_request` reads of a future."""

    def __init__(self, keep_alive: bool) -> None:
        self.keep_alive = keep_alive

    def result(self) -> bool:
        return self.keep_alive

    def cancelled(self) -> bool:
        return False
