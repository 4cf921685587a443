"""Endpoint protocols (spec: "Endpoint Registry", `config.protocol` and the protocol options).

Names match case-insensitively and are stored as written: HTTP[/1.1|/2|/3], AMQP[/1.0], MQTT[/3.1.1|/5.0],
KAFKA[/x], NATS[/x]. Each protocol has its URI schemes and its option list with types. Unknown option
names are reported only when `config.strict` is true (a strict endpoint promises exactly the spec's
options); unknown protocols are not checked.
"""
from __future__ import annotations

import re

from catalog.validators.uritemplate import level1_error

SCHEMES = {
    "HTTP": {"http", "https"},
    "AMQP": {"amqp", "amqps"},
    "MQTT": {"mqtt", "mqtts", "tcp", "ssl", "ws", "wss"},
    # Kafka bootstrap addresses follow Kafka's listener names (PLAINTEXT://, SSL://, SASL_SSL://, ...)
    "KAFKA": {"kafka", "kafkas", "plaintext", "ssl", "sasl_plaintext", "sasl_ssl", "tcp"},
    "NATS": {"nats", "tls", "ws", "wss"},
}
TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")


def canonical_protocol(name) -> str | None:
    if not isinstance(name, str) or not name:
        return None
    family = name.split("/", 1)[0].upper()
    return family if family in SCHEMES else None


def protocol_version(name: str) -> str | None:
    return name.split("/", 1)[1] if isinstance(name, str) and "/" in name else None


def _string(value) -> str | None:
    return None if isinstance(value, str) and value else "must be a non-empty string"


def _template(value) -> str | None:
    if not isinstance(value, str) or not value:
        return "must be a non-empty string"
    error = level1_error(value)
    return f"{value!r} is not an RFC 6570 level 1 template: {error}" if error else None


def _bool(value) -> str | None:
    return None if isinstance(value, bool) else "must be a boolean"


def _int_range(low: int, high: int):
    def check(value) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            return f"must be an integer from {low} to {high}"
        return None
    return check


def _int(value) -> str | None:
    return None if isinstance(value, int) and not isinstance(value, bool) else "must be an integer"


def _string_map(value) -> str | None:
    if not isinstance(value, dict):
        return "must be a map of non-empty strings"
    bad = [k for k, v in value.items() if not k or not isinstance(v, str) or not v]
    return f"entries {', '.join(map(repr, bad))} must map non-empty strings to non-empty strings" if bad else None


def _http_method(value) -> str | None:
    return None if isinstance(value, str) and TOKEN.match(value) else "must be an HTTP method name"


def _headers(value) -> str | None:
    if not isinstance(value, list):
        return "must be an array of {name, value} objects"
    for index, header in enumerate(value):
        if not isinstance(header, dict) or not isinstance(header.get("name"), str) or not TOKEN.match(header["name"]) \
                or not isinstance(header.get("value"), str) or not header["value"]:
            return f"[{index}] must be an object with a header name and a non-empty value"
        if level1_error(header["value"]):
            return f"[{index}].value: placeholders must be RFC 6570 level 1"
    return None


def _choice(*values):
    def check(value) -> str | None:
        return None if value in values else f"must be one of {', '.join(values)}"
    return check


OPTIONS = {
    "HTTP": {"method": _http_method, "headers": _headers, "query": _string_map},
    "AMQP": {"node": _string, "durable": _bool, "link-properties": _string_map,
             "connection-properties": _string_map, "distribution-mode": _choice("move", "copy")},
    "MQTT": {"topic": _template, "qos": _int_range(0, 2), "retain": _bool, "clean-session": _bool,
             "will-topic": _template, "will-message": _string},
    "KAFKA": {"topic": _template, "acks": _int_range(-1, 1), "key": _template, "partition": _int,
              "consumer-group": _template},
    "NATS": {"subject": _template},
}


def validate_options(protocol: str, options, strict: bool) -> list[str]:
    family = canonical_protocol(protocol)
    if not isinstance(options, dict):
        return ["config.options must be an object"]
    if family is None:
        return []
    errors = []
    known = OPTIONS[family]
    for name, value in options.items():
        check = known.get(name)
        if check is None:
            if strict:
                errors.append(f"config.options.{name} is not an option of {family} "
                              f"(known: {', '.join(sorted(known))}; config.strict is true)")
            continue
        problem = check(value)
        if problem:
            errors.append(f"config.options.{name} {problem}")
    return errors
