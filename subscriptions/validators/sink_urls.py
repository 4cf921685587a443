"""A subscription's sink read once into what its client will dial: the (host, port) pairs, and the parts the
protocol uses (path, query, user info).

Every sender and the address check take the same `Sink`, so the hosts checked are the hosts dialled: a
client never re-reads the text (a Kafka producer reading the host after the last `@` while a URL parser
reads it before the `#` was a way around the address rule). What a protocol has no use for is refused
rather than ignored: a fragment always, user info for Kafka (its SASL login is in the settings; HTTP sends it
as Basic auth, MQTT, AMQP and NATS log in with it), a query except for HTTP, a path for MQTT over TCP, NATS over TCP and Kafka. Hosts are DNS names
of letters, digits, `-`, `_` and dots, dotted-quad IPv4 or bracketed IPv6 without a zone: numbers in other
forms (`127.1`, `0x7f.1`, `2130706433`) and percent-encoded hosts are refused, since clients read them
differently. Written by hand: `urllib.parse` accepts what this must refuse, and Kafka's server lists are not
URLs.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from urllib.parse import unquote

from ..masking import shown_sink

SCHEMES = {
    "HTTP": {"http", "https"},
    "MQTT3": {"mqtt", "mqtts", "tcp", "ssl", "ws", "wss"},
    "MQTT5": {"mqtt", "mqtts", "tcp", "ssl", "ws", "wss"},
    "AMQP": {"amqp", "amqps"},
    "KAFKA": {"kafka", "kafkas", "tcp", "plaintext", "ssl", "sasl_plaintext", "sasl_ssl"},
    "NATS": {"nats", "tls", "ws", "wss"},
}
DEFAULT_PORTS = {
    ("HTTP", "http"): 80,
    ("HTTP", "https"): 443,
    ("MQTT", "mqtt"): 1883,
    ("MQTT", "tcp"): 1883,
    ("MQTT", "mqtts"): 8883,
    ("MQTT", "ssl"): 8883,
    ("MQTT", "ws"): 80,
    ("MQTT", "wss"): 443,
    ("AMQP", "amqp"): 5672,
    ("AMQP", "amqps"): 5671,
    ("NATS", "nats"): 4222,
    ("NATS", "tls"): 4222,
    ("NATS", "ws"): 80,
    ("NATS", "wss"): 443,
}
USER_INFO = {"HTTP", "MQTT3", "MQTT5", "AMQP", "NATS"}  # protocols whose client logs in with user:password@
QUERY = {"HTTP"}
_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?")
_NUMERIC_LABEL = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)")
_USER_INFO = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:%]*")
_PATH = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*")
_QUERY = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:@%/?]*")


def _shown(sink: str) -> str:
    """The sink as errors name it: its secrets masked, as reads show it (an error must not tell them either)."""
    return shown_sink(sink)


class SinkError(ValueError):
    """The sink cannot be used; the message names what is wrong."""


@dataclass(frozen=True)
class Sink:
    """A parsed sink: what the protocol's client is given, and nothing else."""

    protocol: str
    scheme: str
    servers: tuple[tuple[str, int], ...]
    path: str = ""
    query: str = ""
    username: str | None = field(default=None, repr=False)
    password: str | None = field(default=None, repr=False)

    @property
    def host(self) -> str:
        return self.servers[0][0]

    @property
    def port(self) -> int:
        return self.servers[0][1]

    @staticmethod
    def hostport(host: str, port: int) -> str:
        """`host:port`, an IPv6 host in brackets."""
        return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"

    def origin(self, host: str | None = None, port: int | None = None) -> str:
        """`scheme://host:port` of the first server (or the one given), without user info."""
        return f"{self.scheme}://{self.hostport(host or self.host, port or self.port)}"


def _family(protocol: str) -> str:
    return "MQTT" if protocol in ("MQTT3", "MQTT5") else protocol


def _host(text: str, sink: str) -> str:
    if text.startswith("["):
        if not text.endswith("]"):
            raise SinkError(f"sink {_shown(sink)!r}: IPv6 host {text!r} lacks its closing ']'")
        try:
            address = ipaddress.IPv6Address(text[1:-1])
        except ValueError:
            raise SinkError(
                f"sink {_shown(sink)!r}: {text!r} is not an IPv6 address (zones are not accepted)"
            ) from None
        return address.compressed
    host = text.lower().removesuffix(".")
    if not host:
        raise SinkError(f"sink {_shown(sink)!r} has no host")
    labels = host.split(".")
    if _NUMERIC_LABEL.fullmatch(labels[-1]):
        try:
            return str(ipaddress.IPv4Address(host))
        except ValueError:
            raise SinkError(
                f"sink {_shown(sink)!r}: host {text!r} is not a dotted-quad IPv4 address nor a DNS name"
            ) from None
    if len(host) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        raise SinkError(
            f"sink {_shown(sink)!r}: host {text!r} is not a DNS name (letters, digits, '-', '_' and dots; "
            "write international names in their xn-- form)"
        )
    return host


def _server(text: str, sink: str, protocol: str, scheme: str) -> tuple[str, int]:
    if text.startswith("["):
        end = text.find("]")
        host_text, rest = (text, "") if end < 0 else (text[: end + 1], text[end + 1 :])
    else:
        host_text, colon, port_text = text.partition(":")
        rest = colon + port_text
    host = _host(host_text, sink)
    if rest and not rest.startswith(":"):
        raise SinkError(f"sink {_shown(sink)!r}: {text!r} is not host:port")
    port_text = rest[1:]
    if rest and not port_text.isdigit():
        raise SinkError(f"sink {_shown(sink)!r}: port {port_text!r} of {text!r} is not a number")
    if port_text:
        port = int(port_text)
        if not 0 < port < 65536:
            raise SinkError(f"sink {_shown(sink)!r}: port {port} is outside 1-65535")
        return host, port
    default = DEFAULT_PORTS.get((_family(protocol), scheme))
    if default is None:
        raise SinkError(f"sink {_shown(sink)!r}: bootstrap server {text!r} needs a port (host:port)")
    return host, default


def parse_sink(protocol: str | None, sink) -> Sink:
    """The sink of a subscription with this (canonical) protocol, or SinkError naming what is wrong (None: a
    protocol that is not one, refused like any protocol without sinks)."""
    if protocol not in SCHEMES:
        raise SinkError(f"protocol {protocol!r} has no sinks this server dials")
    if not isinstance(sink, str) or not sink:
        raise SinkError("sink is required (an absolute URI)")
    if any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in sink):
        raise SinkError(f"sink {_shown(sink)!r} contains whitespace or control characters (percent-encode them)")
    if not sink.isascii() or "\\" in sink:
        raise SinkError(f"sink {_shown(sink)!r} contains characters a URI does not (non-ASCII, backslash)")
    scheme, separator, rest = sink.partition("://")
    scheme = scheme.lower()
    if not separator or not scheme:
        raise SinkError(f"sink {_shown(sink)!r} is not an absolute URI (scheme://host...)")
    if scheme not in SCHEMES[protocol]:
        raise SinkError(
            f"sink scheme {scheme!r} is not valid for {protocol} (use {', '.join(sorted(SCHEMES[protocol]))})"
        )
    if "#" in rest:
        raise SinkError(f"sink {_shown(sink)!r} has a fragment (#...): no protocol sends one; remove it")
    end = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
    authority, tail = rest[:end], rest[end:]
    path, _, query = tail.partition("?")
    username = password = None
    if "@" in authority:
        if protocol not in USER_INFO:
            raise SinkError(
                f"sink {_shown(sink)!r} has user info (user@ or user:password@), which {protocol} does not use: "
                "give credentials in protocolsettings"
            )
        userinfo, _, authority = authority.rpartition("@")
        if "@" in userinfo or not _USER_INFO.fullmatch(userinfo):
            raise SinkError(f"sink {_shown(sink)!r}: its user info holds characters that must be percent-encoded")
        user, colon, secret = userinfo.partition(":")
        username, password = unquote(user), (unquote(secret) if colon else None)
    if "%" in authority:
        raise SinkError(f"sink {_shown(sink)!r}: a percent-encoded host is not accepted")
    if not authority:
        raise SinkError(f"sink {_shown(sink)!r} has no host")
    parts = authority.split(",")
    if len(parts) > 1 and protocol != "KAFKA":
        raise SinkError(f"sink {_shown(sink)!r} names several hosts: {protocol} takes one")
    servers = tuple(_server(part, sink, protocol, scheme) for part in parts)
    if not _PATH.fullmatch(path) or not _QUERY.fullmatch(query):
        raise SinkError(f"sink {_shown(sink)!r}: its path or query holds characters that must be percent-encoded")
    if "?" in tail and protocol not in QUERY:
        raise SinkError(f"sink {_shown(sink)!r} has a query (?...), which {protocol} does not use")
    path_used = protocol in ("HTTP", "AMQP") or scheme in ("ws", "wss")
    if path not in ("", "/") and not path_used:
        raise SinkError(f"sink {_shown(sink)!r} has a path, which {protocol} over {scheme} does not use")
    return Sink(protocol, scheme, servers, path, query, username, password)
