"""A sink's answer without the subscription's secrets in it (subscriptions/masking.py says what is secret): some sinks
echo the request they got, headers included, into their error answers, which the deliveries pages show."""

from __future__ import annotations

import base64

from .masking import CREDENTIALS, MASK
from .validators.protocols import canonical_protocol
from .validators.sink_urls import SinkError, parse_sink


def redacted_text(text: str, subscription) -> str:
    """`text` (an answer a sink sent back) without the subscription's secrets in it: some sinks echo the
    request they got, headers included, into their error answers, which the deliveries pages show."""
    secrets = [value for value in _secret_values(subscription) if len(value) >= 4]
    for value in sorted(secrets, key=len, reverse=True):
        text = text.replace(value, MASK)
    return text


def _secret_values(subscription) -> list[str]:
    values = []
    for key, value in (subscription.protocolsettings or {}).items():
        if isinstance(value, dict):
            values += [item for item in value.values() if isinstance(item, str)]
        elif key.lower() in CREDENTIALS and isinstance(value, str):
            values.append(value)
    try:
        sink = parse_sink(canonical_protocol(subscription.protocol), subscription.sink)
    except SinkError:
        return values
    values += [v for v in (sink.username, sink.password) if v]
    for part in sink.query.split("&"):
        name, _, value = part.partition("=")
        values.append(value or name)
    if sink.username is not None:
        values.append(base64.b64encode(f"{sink.username}:{sink.password or ''}".encode()).decode("ascii"))
    return values
