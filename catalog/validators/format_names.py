"""Format identifiers (`NAME/VERSION`): parsing, case-insensitive matching and the aliases of real documents.

Formats are stored as written; these helpers only decide which validator applies.
"""

import re
from typing import TypeGuard

FORMAT_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*/[A-Za-z0-9][A-Za-z0-9._+-]*$")

# Canonical NAME (lower case key) for every spelling found in the spec and in real documents.
_SCHEMA_ALIASES = {
    "jsonschema": "JsonSchema",
    "json-schema": "JsonSchema",
    "avro": "Avro",
    "protobuf": "Protobuf",
    "proto": "Protobuf",
    "xsd": "XSD",
    "xmlschema": "XSD",
}
_MESSAGE_ALIASES = {
    "cloudevents": "CloudEvents",
    "http": "HTTP",
    "amqp": "AMQP",
    "mqtt": "MQTT",
    "kafka": "Kafka",
    "nats": "NATS",
}


def split_format(value: str) -> tuple[str, str | None]:
    """`"Avro/1.11"` -> `("Avro", "1.11")`; a value without `/` -> `(value, None)`."""
    name, sep, version = value.partition("/")
    return name, (version if sep else None)


def is_valid_format_identifier(value) -> TypeGuard[str]:
    """True for a `NAME/VERSION` string."""
    return isinstance(value, str) and bool(FORMAT_PATTERN.fullmatch(value))


def schema_format_family(value: str | None) -> tuple[str | None, str | None]:
    """Canonical schema format name and version: `("JsonSchema", "draft-07")`; `(None, v)` when unknown."""
    if not value or not isinstance(value, str):
        return None, None
    name, version = split_format(value)
    return _SCHEMA_ALIASES.get(name.lower()), version


def message_format_family(value: str | None) -> tuple[str | None, str | None]:
    """Canonical message format name and version: `("MQTT", "5.0")`; `(None, v)` when unknown."""
    if not value:
        return None, None
    name, version = split_format(value)
    return _MESSAGE_ALIASES.get(name.lower()), version


def format_family_key(value: str) -> str:
    """One key for every spelling of a format: `JSONSchema/Draft-07` and `JsonSchema/draft-07` give
    `jsonschema/draft-07` (aliases folded, case ignored); an unknown format is its own spelling in lower case."""
    family, version = schema_format_family(value)
    if family is None:
        family, version = message_format_family(value)
    if family is None:
        return value.lower()
    return f"{family}/{version}".lower() if version is not None else family.lower()


def format_family_label(value: str) -> str:
    """How a format family is shown: the canonical name and the version as written (`JsonSchema/Draft-07`)."""
    family, version = schema_format_family(value)
    if family is None:
        family, version = message_format_family(value)
    if family is None:
        return value
    return f"{family}/{version}" if version is not None else family


def same_format(a: str | None, b: str | None) -> bool:
    """Two format identifiers name the same format (case-insensitive, aliases folded)."""
    if a is None or b is None:
        return a is b
    fa, va = schema_format_family(a)
    if fa is None:
        fa, va = message_format_family(a)
    fb, vb = schema_format_family(b)
    if fb is None:
        fb, vb = message_format_family(b)
    if fa is None or fb is None:
        return a.lower() == b.lower()
    return fa == fb and (va or "").lower() == (vb or "").lower()
