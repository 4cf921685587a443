"""A local HTTP sink for delivery tests: records requests; answers as told (status sequence, handshake)."""

import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


class Sink:
    def __init__(self):
        self.requests: list[dict] = []
        self.statuses: list[int] = []
        # allow | refuse (2xx without WebHook-Allowed-Origin) | other (another origin allowed) | a status (no header)
        self.handshake: str | int = "allow"
        self.headers: dict[str, str] = {}
        self.delay = 0.0
        self.server = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}/hook"

    def next_status(self) -> int:
        return self.statuses.pop(0) if self.statuses else 200

    def events(self) -> list[dict]:
        return [json.loads(r["body"]) for r in self.requests if r["method"] != "OPTIONS"]


@contextmanager
def serve(state: Sink):
    """Serve `state` on a free loopback port while the block runs."""

    class Handler(BaseHTTPRequestHandler):
        def do_OPTIONS(self):  # noqa: N802
            state.requests.append(
                {"method": "OPTIONS", "headers": {k.lower(): v for k, v in self.headers.items()}, "body": b""}
            )
            self.send_response(state.handshake if isinstance(state.handshake, int) else 200)
            if state.handshake == "allow":
                self.send_header("WebHook-Allowed-Origin", self.headers.get("WebHook-Request-Origin", "*"))
            elif state.handshake == "other":
                self.send_header("WebHook-Allowed-Origin", "elsewhere.example")
            self.end_headers()

        def _receive(self):
            import time

            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            if state.delay:
                time.sleep(state.delay)
            state.requests.append(
                {"method": self.command, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
            )
            status = state.next_status()
            self.send_response(status)
            for name, value in state.headers.items():
                self.send_header(name, value)
            self.end_headers()

        do_POST = do_PUT = do_PATCH = _receive  # noqa: N815

        def log_message(self, *args):
            pass

    state.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=state.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.server.shutdown()
        state.server.server_close()


@pytest.fixture
def sink():
    with serve(Sink()) as state:
        yield state


@pytest.fixture
def private_sinks(settings):
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = True
    settings.REGISTRY_DELIVERY_BACKOFF_BASE = 0.01
    return settings
