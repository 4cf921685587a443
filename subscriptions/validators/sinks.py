"""Sink address safety: refuse sinks that resolve to loopback, private, link-local, reserved or metadata
addresses unless the deployment allows them; checked at subscription time and again before each delivery."""
from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443, "mqtt": 1883, "mqtts": 8883, "tcp": 1883, "ssl": 8883, "ws": 80,
                 "wss": 443, "nats": 4222, "tls": 4222, "amqp": 5672, "amqps": 5671, "kafka": 9092}


def _forbidden(address: ipaddress._BaseAddress) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    return (address.is_private or address.is_loopback or address.is_link_local or address.is_reserved
            or address.is_multicast or address.is_unspecified)


def resolve(sink: str) -> list[str]:
    """Every address the sink's host resolves to (raises OSError when it does not resolve)."""
    parts = urlsplit(sink)
    host = parts.hostname or ""
    port = parts.port or DEFAULT_PORTS.get(parts.scheme.lower(), 0)
    infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    return sorted({info[4][0] for info in infos})


def check_sink(sink: str, allow_private: bool) -> str | None:
    """None when the sink may be used, else the reason it may not."""
    if allow_private:
        return None
    try:
        addresses = resolve(sink)
    except (OSError, UnicodeError) as exc:
        return f"sink host does not resolve: {exc}"
    for text in addresses:
        if _forbidden(ipaddress.ip_address(text.split("%")[0])):
            return (f"sink resolves to {text}, a loopback, private, link-local or reserved address; "
                    "set REGISTRY_ALLOW_PRIVATE_SINKS=1 to allow it")
    return None
