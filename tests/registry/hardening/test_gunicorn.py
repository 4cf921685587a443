"""The production server as the README runs it (gunicorn with gunicorn.conf.py): issue 11 items 9 and 14,
issue 14's freshness rule.

gunicorn's own answers (a malformed request line, a URI or headers over its limits) are problem documents;
slow uploads do not stall a worker's other requests (threads); a chunked body is read; a write is visible in
the next read on every worker. Each test starts gunicorn on a free loopback port over a migrated SQLite file.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time

import httpx
import pytest

from tests.harness.gunicorn import ROOT, start_gunicorn
from tests.harness.services import free_port, port_open, start_process, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.own_sqlite_server]


@pytest.fixture
def server(tmp_path):
    process, base, token = start_gunicorn(tmp_path)
    yield base, token
    process.stop()


def raw_request(base: str, data: bytes, timeout: float = 10) -> tuple[int, dict, bytes]:
    """Send bytes as they are (httpx would refuse to send what is malformed) and parse the answer."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(data)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
            if b"\r\n\r\n" in answer:
                head, _, body = answer.partition(b"\r\n\r\n")
                headers = dict(line.split(": ", 1) for line in head.decode("latin-1").split("\r\n")[1:])
                length = int(headers.get("Content-Length", -1))
                if length >= 0 and len(body) >= length:
                    break
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v for k, v in (line.split(": ", 1) for line in lines[1:])}
    return int(lines[0].split()[1]), headers, body


@pytest.mark.parametrize(
    "request_bytes, status, kind",
    [
        (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri-too-long"),
        (
            b"GET / HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-H%d: v\r\n" % i for i in range(120)) + b"\r\n",
            431,
            "header-fields-too-large",
        ),
        (b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"v" * 9000 + b"\r\n\r\n", 431, "header-fields-too-large"),
        (b"BR@KEN / HTTP/1.1\r\nHost: x\r\n\r\n", 400, "bad-request"),
        (b"GET / HTTP/9.9\r\nHost: x\r\n\r\n", 400, "bad-request"),
    ],
)
def test_gunicorns_own_errors_are_problem_documents(server, request_bytes, status, kind):
    base, _token = server
    code, headers, body = raw_request(base, request_bytes)
    assert code == status
    assert headers["content-type"] == "application/problem+json"
    problem = json.loads(body)
    assert problem["type"].endswith(":" + kind) and problem["status"] == status and problem["detail"]


def test_slow_uploads_do_not_stall_the_worker(server):
    """one worker, four threads: three clients trickling a body keep three threads; reads still answer"""
    base, token = server
    host, port = base.removeprefix("http://").split(":")
    stop = threading.Event()

    open_uploads = []

    def trickle():
        with socket.create_connection((host, int(port)), timeout=30) as sock:
            sock.sendall(
                b"POST /schemaGroups HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Authorization: Token " + token.encode() + b"\r\nContent-Length: 100000\r\n\r\n"
            )
            open_uploads.append(sock)
            while not stop.is_set():
                sock.sendall(b" ")
                time.sleep(0.2)

    uploads = [threading.Thread(target=trickle, daemon=True) for _ in range(3)]
    for thread in uploads:
        thread.start()
    time.sleep(1.5)
    try:
        started = time.monotonic()
        for _ in range(5):
            assert httpx.get(base + "/", timeout=5).status_code == 200
        assert time.monotonic() - started < 5
        assert len(open_uploads) == 3 and all(thread.is_alive() for thread in uploads)  # still uploading
    finally:
        stop.set()
        for thread in uploads:
            thread.join(timeout=5)


def test_chunked_body_is_read_and_still_size_limited(tmp_path):
    process, base, token = start_gunicorn(tmp_path, REGISTRY_MAX_BODY_BYTES="2000")
    try:
        auth = {"Authorization": f"Token {token}", "Content-Type": "application/json"}

        def chunks(data: bytes):
            for start in range(0, len(data), 7):
                yield data[start : start + 7]

        response = httpx.post(
            base + "/schemaGroups",
            headers=auth,
            timeout=10,
            content=chunks(json.dumps({"id": "chunky", "description": "sent in chunks"}).encode()),
        )
        assert response.status_code == 201, response.text
        assert httpx.get(base + "/schemaGroups/chunky").json()["description"] == "sent in chunks"
        big = json.dumps({"id": "big", "description": "x" * 5000}).encode()
        response = httpx.post(base + "/schemaGroups", headers=auth, content=chunks(big), timeout=10)
        assert response.status_code == 413 and response.headers["content-type"].startswith("application/problem+json")
        assert httpx.get(base + "/schemaGroups/big").status_code == 404
    finally:
        process.stop()


def test_a_write_is_visible_in_the_next_read_on_every_worker(tmp_path):
    """issue 14: no stale answer after a committed change, whichever of three workers answers"""
    process, base, token = start_gunicorn(tmp_path, workers=3, threads=2)
    try:
        auth = {"Authorization": f"Token {token}"}
        assert httpx.put(
            base + "/schemaGroups/g", json={"description": "v0"}, headers=auth, timeout=30
        ).status_code in (200, 201)
        for round_ in range(1, 16):
            with httpx.Client(base_url=base, headers=auth, timeout=30) as writer:
                assert writer.put("/schemaGroups/g", json={"description": f"v{round_}"}).status_code == 200
            for _ in range(4):  # new connections: spread over the workers (one may still be loading Django)
                with httpx.Client(base_url=base, timeout=30) as reader:
                    etag_read = reader.get("/schemaGroups/g")
                    assert etag_read.json()["description"] == f"v{round_}"
                    assert reader.get("/").status_code == 200
                    whole = reader.get("/?inline").json()  # kept rendered per worker until a change
                    assert whole["schemaGroups"]["g"]["description"] == f"v{round_}"
    finally:
        process.stop()


def read_answers(sock: socket.socket, count: int) -> list[tuple[int, dict, bytes]]:
    """`count` answers with a Content-Length each, read off one connection in order."""
    data, answers = b"", []
    while len(answers) < count:
        if b"\r\n\r\n" in data:
            head, _, rest = data.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            headers = {k.lower(): v for k, v in (line.split(": ", 1) for line in lines[1:])}
            length = int(headers["content-length"])
            if len(rest) >= length:
                answers.append((int(lines[0].split()[1]), headers, rest[:length]))
                data = rest[length:]
                continue
        chunk = sock.recv(65536)
        assert chunk, f"the connection closed after {len(answers)} answers"
        data += chunk
    return answers


@pytest.fixture
def one_thread(tmp_path):
    """the deployment's shape (deploy/: GUNICORN_THREADS=1), one worker"""
    process, base, token = start_gunicorn(tmp_path, workers=1, threads=1, demo=True)
    yield process, base, token
    process.stop()


GROUP = "/schemaGroups/Contoso.CRM.Events"


def test_one_thread_keeps_connections_alive_and_answers_pipelined_requests(one_thread):
    _process, base, _token = one_thread
    host, port = base.removeprefix("http://").split(":")
    expected = httpx.get(base + GROUP, timeout=10)
    assert expected.status_code == 200
    request = f"GET {GROUP} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request * 3)  # three requests in one write: the parser reads ahead past the first
        answers = read_answers(sock, 3)
        for _round in range(3):  # the same connection, kept alive, request after request
            time.sleep(0.2)
            sock.sendall(request)
            answers += read_answers(sock, 1)
        sock.sendall(b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")  # gunicorn's own error, then closed
        [(status, headers, body)] = read_answers(sock, 1)
        assert sock.recv(1) == b""
    assert [answer[0] for answer in answers] == [200] * 6
    assert all(body == expected.content for _status, _headers, body in answers)
    assert all(headers["etag"] == expected.headers["etag"] for _status, headers, _body in answers)
    assert status == 414 and headers["content-type"] == "application/problem+json"
    assert json.loads(body)["type"].endswith(":uri-too-long")


def test_one_thread_stops_promptly_with_a_connection_kept_alive(one_thread):
    process, base, _token = one_thread
    with httpx.Client(base_url=base, timeout=10) as client:
        assert client.get(GROUP).status_code == 200  # the connection stays open, idle
        started = time.monotonic()
        process.stop()
        assert process.process.returncode == 0
        assert time.monotonic() - started < 10  # not the graceful timeout (30 s) nor the keep-alive's


def test_gunicorn_refuses_the_development_secret_key_unless_debug(tmp_path):
    """Without DJANGO_SECRET_KEY, config/settings.py falls back to a key published in the code; gunicorn started with
    it without a word (issue 37). Now it refuses, naming the setting, unless DJANGO_DEBUG=1 (then it warns)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SECRET_KEY", "DATABASE_URL", "DJANGO_DEBUG")}
    env.update(SQLITE_PATH=str(tmp_path / "db.sqlite3"), GUNICORN_BIND=f"127.0.0.1:{free_port()}", WEB_CONCURRENCY="1")
    gunicorn = [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py")]
    for key in (None, "insecure-development-key-set-DJANGO_SECRET_KEY", "django-insecure-" + "x" * 50):
        refused = subprocess.run(
            gunicorn,
            env={**env, **({"DJANGO_SECRET_KEY": key} if key else {})},
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert refused.returncode == 1, refused.stderr[-2000:]
        assert "DJANGO_SECRET_KEY" in refused.stderr and "gunicorn did not start" in refused.stderr
        assert "Booting worker" not in refused.stderr

    port = free_port()
    debugging = start_process(
        gunicorn,
        env={**env, "DJANGO_DEBUG": "1", "GUNICORN_BIND": f"127.0.0.1:{port}"},
        cwd=str(ROOT),
        ready_check=lambda: port_open(port),
        timeout=90,
    )
    try:
        wait_for(lambda: "Booting worker" in debugging.output(), 60, "a worker")
        assert "WARNING: DJANGO_SECRET_KEY is not set" in debugging.output()
    finally:
        debugging.stop()
