"""Sink address safety and secrecy.

Safety: a sink is parsed once (`sink_urls.parse_sink`) into the (host, port) pairs its client will dial;
each host must resolve to globally reachable addresses only (`addresses.unreachable_reason`: IANA's
special-purpose registries, multicast, IPv6 outside global unicast, NAT64 of a refused IPv4 address),
unless the deployment allows private sinks. Checked when a subscription is written and again before each
delivery, on the same parse that the sender then uses (`deliverable`).

What reads show of a sink is `subscriptions.masking`'s business.
"""

from __future__ import annotations

import ipaddress
import socket

from django.conf import settings

from .addresses import unreachable_reason
from .protocols import canonical_protocol
from .sink_urls import Sink, SinkError, parse_sink


def resolve(host: str, port: int) -> list[str]:
    """Every address `host` resolves to for TCP (raises OSError when it does not resolve)."""
    infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    return sorted({str(info[4][0]) for info in infos})


def address_refusal(host: str, port: int) -> str | None:
    """None when every address of `host` is globally reachable, else why it may not be dialled."""
    try:
        addresses = resolve(host, port)
    except (OSError, UnicodeError) as exc:
        return f"sink host {host} does not resolve: {exc}"
    for text in addresses:
        reason = unreachable_reason(ipaddress.ip_address(text.split("%")[0]))
        if reason:
            return (
                f"sink host {host} resolves to {text}, which is not a globally routable address ({reason}); "
                "set REGISTRY_ALLOW_PRIVATE_SINKS=1 to allow it"
            )
    return None


def refusal(sink: Sink, allow_private: bool) -> str | None:
    """None when every server of the parsed sink may be dialled, else the reason."""
    if allow_private:
        return None
    for host, port in sink.servers:
        reason = address_refusal(host, port)
        if reason:
            return reason
    return None


def check_sink(protocol: str | None, sink: object, allow_private: bool) -> str | None:
    """None when the sink may be used by a subscription of this (canonical) protocol, else the reason."""
    try:
        parsed = parse_sink(protocol, sink)
    except SinkError as exc:
        return str(exc)
    return refusal(parsed, allow_private)


def deliverable(subscription) -> Sink:
    """The subscription's sink as its sender dials it, checked now (the deployment's setting, today's DNS);
    raises SinkError with the reason it may not be used."""
    parsed = parse_sink(canonical_protocol(subscription.protocol), subscription.sink)
    reason = refusal(parsed, settings.REGISTRY_ALLOW_PRIVATE_SINKS)
    if reason:
        raise SinkError(reason)
    return parsed
