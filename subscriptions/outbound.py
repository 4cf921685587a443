"""Outbound HTTP to addresses that users give (webhook sinks, the webhook handshake, sync sources), with the
sink rule applied where nothing can talk it round: when dialling, on the address dialled.

One httpcore connection pool per process. Its network backend resolves the host, refuses the connection when
any address is not globally reachable (`validators.addresses`, unless `REGISTRY_ALLOW_PRIVATE_SINKS`), and
connects to the checked address itself: a name that resolves differently between the subscription's check and
the connection (DNS rebinding), or a URL that another parser reads differently, changes nothing. Inside
`deadline(seconds)`, every connect, TLS handshake, read and write of the thread's request is bounded by what is
left of it, so a peer that answers a byte at a time cannot hold a thread past the deadline. httpx clients
(sync) use the same pool through `CheckedTransport`. Written by hand on httpcore's documented extension points
(NetworkBackend, NetworkStream): neither httpx nor httpcore checks the addresses they dial or bounds a whole
request.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from contextlib import contextmanager

import httpcore
import httpx
from django.conf import settings

from .validators.addresses import unreachable_reason

_local = threading.local()
_pool: httpcore.ConnectionPool | None = None
_pool_lock = threading.Lock()


@contextmanager
def deadline(seconds: float):
    """Bound every network operation of this thread's requests, inside the block, to `seconds` in all."""
    previous = getattr(_local, "deadline", None)
    _local.deadline = time.monotonic() + seconds
    try:
        yield
    finally:
        _local.deadline = previous


def _clip(timeout: float | None, error: type[Exception]) -> float | None:
    end = getattr(_local, "deadline", None)
    if end is None:
        return timeout
    left = end - time.monotonic()
    if left <= 0:
        raise error("the peer did not finish within the delivery timeout")
    return left if timeout is None else min(timeout, left)


class _BoundedStream(httpcore.NetworkStream):
    """A stream whose every operation ends by the thread's deadline."""

    def __init__(self, inner: httpcore.NetworkStream):
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _clip(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _clip(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context, server_hostname: str | None = None, timeout: float | None = None):
        return _BoundedStream(
            self._inner.start_tls(ssl_context, server_hostname, _clip(timeout, httpcore.ConnectTimeout))
        )

    def get_extra_info(self, info: str):
        return self._inner.get_extra_info(info)


def checked_addresses(host: str, port: int) -> list[str]:
    """The addresses to dial for host:port, in the resolver's order, when every one of them is globally
    reachable; raises httpcore.ConnectError naming the first that is not."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise httpcore.ConnectError(f"{host} does not resolve: {exc}") from None
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    for text in addresses:
        reason = unreachable_reason(ipaddress.ip_address(text.split("%")[0]))
        if reason:
            raise httpcore.ConnectError(
                f"refused: {host} resolves to {text}, which is not a globally routable address ({reason})"
            )
    return addresses


class CheckedBackend(httpcore.NetworkBackend):
    """TCP connections only to globally reachable addresses (all of the host's), each bounded by the deadline."""

    def __init__(self):
        self._inner = httpcore.SyncBackend()

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        timeout = _clip(timeout, httpcore.ConnectTimeout)
        if settings.REGISTRY_ALLOW_PRIVATE_SINKS:
            return _BoundedStream(self._inner.connect_tcp(host, port, timeout, local_address, socket_options))
        failure: Exception | None = None
        for address in checked_addresses(host, port):
            try:
                stream = self._inner.connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
                continue
            return _BoundedStream(stream)
        raise failure or httpcore.ConnectError(f"{host} has no address")

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        raise httpcore.ConnectError("unix sockets are never dialled")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


def pool() -> httpcore.ConnectionPool:
    """One pool of keep-alive connections per process (thread-safe): opening a connection, and loading the CA
    bundle for TLS, per delivery would cost more than the delivery itself."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = httpcore.ConnectionPool(
                max_connections=100, max_keepalive_connections=20, network_backend=CheckedBackend()
            )
    return _pool


def read_at_most(response, limit: int) -> bytes:
    """Up to `limit` bytes of a streamed response's body (the rest is not read: the connection is dropped)."""
    body = b""
    for chunk in response.iter_stream():
        body += chunk
        if len(body) >= limit:
            break
    return body[:limit]


class CheckedTransport(httpx.BaseTransport):
    """An httpx transport over the checked pool (create clients with `trust_env=False`: an environment proxy
    would dial for us, unchecked)."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        try:
            response = pool().handle_request(core_request)
            try:
                content = b"".join(response.iter_stream())
            finally:
                response.close()
        except (
            httpcore.TimeoutException,
            httpcore.NetworkError,
            httpcore.ProtocolError,
            httpcore.UnsupportedProtocol,
        ) as exc:
            # httpx names its errors as httpcore does (ConnectError, ReadTimeout, ...)
            raise getattr(httpx, type(exc).__name__, httpx.TransportError)(str(exc), request=request) from exc
        return httpx.Response(status_code=response.status, headers=response.headers, content=content)


def client(**options) -> httpx.Client:
    """An httpx client that dials only what the sink rule allows."""
    return httpx.Client(transport=CheckedTransport(), trust_env=False, **options)
