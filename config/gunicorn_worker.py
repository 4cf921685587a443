"""A gunicorn worker (`gthread`) whose own error answers are problem documents (RFC 9457), not HTML.

gunicorn answers some requests before the application sees them: a malformed request line (400), a URI or
headers over its limits (414, 431), an unsupported transfer coding (501). It writes those with
`gunicorn.util.write_error`, which has no hook, so this module replaces that function (written by hand:
no library does this) when gunicorn loads the worker class named in gunicorn.conf.py.
"""

from __future__ import annotations

import json

import gunicorn.util
from gunicorn.workers.gthread import ThreadWorker

from registry.domain.errors import KINDS, PROBLEM_BASE

KIND_BY_STATUS = {status: kind for kind, (status, _title) in reversed(KINDS.items())}
KIND_BY_STATUS[400] = "bad-request"


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
    """gunicorn's threaded worker; importing this module installs `write_problem`."""
