"""Sink address safety and secrecy.

Safety: refuse sinks that resolve to any address that is not globally routable (Python's `is_global`:
loopback, private, link-local, carrier-grade NAT 100.64.0.0/10 with cloud metadata addresses, reserved,
documentation ranges...), also when an IPv4 address hides inside an IPv6 one (IPv4-mapped, 6to4 `2002::/16`,
Teredo `2001::/32`, NAT64 `64:ff9b::/96`), unless the deployment allows private sinks; checked at subscription
time and again before each delivery.

Secrecy: `masked` hides what a sink URL may carry as credentials (the password of its user info, every query
value) in everything the server shows of a subscription.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

DEFAULT_PORTS = {
    "http": 80,
    "https": 443,
    "mqtt": 1883,
    "mqtts": 8883,
    "tcp": 1883,
    "ssl": 8883,
    "ws": 80,
    "wss": 443,
    "nats": 4222,
    "tls": 4222,
    "amqp": 5672,
    "amqps": 5671,
    "kafka": 9092,
}


NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
MASK = "***"


def _embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries: mapped, 6to4, Teredo (server and client), NAT64."""
    out = []
    if address.ipv4_mapped:
        out.append(address.ipv4_mapped)
    if address.sixtofour:
        out.append(address.sixtofour)
    if address.teredo:
        out.extend(address.teredo)
    if address in NAT64:
        out.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return out


def _forbidden(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if address.is_multicast or not address.is_global:
        return True
    if isinstance(address, ipaddress.IPv6Address):
        return any(_forbidden(inner) for inner in _embedded_ipv4(address))
    return False


def resolve(sink: str) -> list[str]:
    """Every address the sink's host resolves to (raises OSError when it does not resolve)."""
    parts = urlsplit(sink)
    host = parts.hostname or ""
    try:
        port = parts.port or DEFAULT_PORTS.get(parts.scheme.lower(), 0)
    except ValueError:
        raise OSError(f"invalid port in {sink!r}")
    infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    return sorted({info[4][0] for info in infos})


def check_sink(sink: str, allow_private: bool) -> str | None:
    """None when the sink may be used, else the reason it may not."""
    if allow_private:
        return None
    if _kafka_listeners(sink):
        return next(
            filter(None, (check_sink(f"kafka://{server}", allow_private) for server in _kafka_listeners(sink))), None
        )
    try:
        addresses = resolve(sink)
    except (OSError, UnicodeError, ValueError) as exc:
        return f"sink host does not resolve: {exc}"
    for text in addresses:
        if _forbidden(ipaddress.ip_address(text.split("%")[0])):
            return (
                f"sink resolves to {text}, which is not a globally routable address (loopback, private, "
                "link-local, shared or reserved, also inside an IPv6 address); "
                "set REGISTRY_ALLOW_PRIVATE_SINKS=1 to allow it"
            )
    return None


def _kafka_listeners(sink: str) -> list[str]:
    """The bootstrap servers of a Kafka sink with several (`kafka://h1:p1,h2:p2`) or in one of Kafka's
    listener forms (`SASL_SSL://h:p`, not a URL scheme), each checked on its own; [] for other sinks."""
    from .protocols import SCHEMES, kafka_servers

    scheme, servers = kafka_servers(sink)
    return servers if scheme in SCHEMES["KAFKA"] and (len(servers) > 1 or "_" in scheme) else []


def masked(sink: str) -> str:
    """The sink as shown to clients and operators: user-info password and query values replaced by ***."""
    try:
        parts = urlsplit(sink)
    except ValueError:
        return sink
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, hostport = netloc.rsplit("@", 1)
        # user:password keeps the user's name; a user info without a password is often a token: all hidden
        netloc = f"{userinfo.split(':', 1)[0]}:{MASK}@{hostport}" if ":" in userinfo else f"{MASK}@{hostport}"
    query = (
        "&".join(f"{pair.split('=', 1)[0]}={MASK}" if pair else pair for pair in parts.query.split("&"))
        if parts.query
        else ""
    )
    return parts._replace(netloc=netloc, query=query).geturl()
