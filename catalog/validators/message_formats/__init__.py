"""Message formats: the dispatcher to each format's validator (the property declaration every format shares, and its
checks, are declarations.py's).

Spec ("Message Formats"): every header/property/attribute of a message is constrained by a declaration
`{"type": T, "value": V, "required": bool, "description": str, "specurl": URI-reference}`. The types are the
CloudEvents type system plus `var`, `symbol`, `duration`, `uritemplate`, `number`. The values of string-like
properties MAY carry RFC 6570 level 1 placeholders (`{name}`); `uritemplate` values MUST be level 1 templates.

The level 1 checker is hand-written (`catalog.validators.uritemplate`): the uritemplate libraries parse levels
1 to 4 and accept operators (`{+x}`, `{?x}`) and modifiers (`{x*}`, `{x:3}`) that level 1 forbids.

Nothing here recurses into values: a declaration is checked at a fixed depth and values are shown in messages
only as short scalars, so no JSON shape or nesting depth can make a validator raise.
"""

from __future__ import annotations

from ..format_names import message_format_family
from . import amqp, cloudevents, http, kafka, mqtt, nats
from .declarations import show

VERSIONS = {
    "CloudEvents": ("1.0",),
    "AMQP": ("1.0",),
    "MQTT": ("3.1.1", "5.0", "5"),
    "HTTP": None,
    "Kafka": None,
    "NATS": None,
}


def format_error(format: str) -> str | None:
    """Why a NAME/VERSION format of a known message format names a version the spec does not define."""
    family, version = message_format_family(format)
    allowed = VERSIONS.get(family) if family else None
    if allowed is None or version in allowed:
        return None
    return f"format {show(format)}: {family} is defined in version {' and '.join(a for a in allowed if '.' in a)}"


def validate_metadata(format: str | None, metadata) -> list[str]:
    """Errors of a definition's `metadata` under its message format; unknown formats: an object, no more."""
    family, version = message_format_family(format)
    validators = {
        "CloudEvents": cloudevents.validate,
        "HTTP": http.validate,
        "AMQP": amqp.validate,
        "Kafka": kafka.validate,
        "NATS": nats.validate,
    }
    if not isinstance(metadata, dict):
        return ["metadata must be an object"]
    if family == "MQTT":
        return mqtt.validate(metadata, version)
    if family in validators:
        return validators[family](metadata)
    return []
