"""AMQP/1.0 metadata (spec: the "AMQP/1.0" message format): one member per section of the AMQP 1.0 message.

- `properties`: the fixed fields of the Properties section with the types of the spec's table (`message-id`
  string, `user-id` binary, `to` uritemplate, `subject` string, `reply-to` uritemplate, `correlation-id`
  string, `content-type` and `content-encoding` symbol, `absolute-expiry-time` timestamp, `group-id` string,
  `group-sequence` integer, `reply-to-group-id` uritemplate) plus `creation-time` (timestamp), which the
  table omits but AMQP 1.0 and the 0.5-wip schema define. No other names.
- `header`: the fixed fields `durable` and `first-acquirer` (boolean), `priority`, `ttl`, `delivery-count`
  (integer; AMQP ubyte for priority, uint for the others, so the ranges are checked).
- `application-properties`, `message-annotations`, `delivery-annotations`, `footer`: custom maps whose names
  MUST be symbols; their values may have any type of the spec.
All sections and fields are OPTIONAL.
"""

from .declarations import SYMBOL, check_declarations, check_range, unknown_keys

PROPERTIES = {
    "message-id": "string",
    "user-id": "binary",
    "to": "uritemplate",
    "subject": "string",
    "reply-to": "uritemplate",
    "correlation-id": "string",
    "content-type": "symbol",
    "content-encoding": "symbol",
    "absolute-expiry-time": "timestamp",
    "creation-time": "timestamp",
    "group-id": "string",
    "group-sequence": "integer",
    "reply-to-group-id": "uritemplate",
}
HEADER = {
    "durable": "boolean",
    "priority": "integer",
    "ttl": "integer",
    "first-acquirer": "boolean",
    "delivery-count": "integer",
}
UINT = (0, 2**32 - 1)
RANGES = {
    ("header", "priority"): (0, 255),
    ("header", "ttl"): UINT,
    ("header", "delivery-count"): UINT,
    ("properties", "group-sequence"): UINT,
}
CUSTOM_SECTIONS = ("application-properties", "message-annotations", "delivery-annotations", "footer")
SECTIONS = ("properties", "header", *CUSTOM_SECTIONS)


def _symbol_name(name: str) -> str | None:
    return None if SYMBOL.fullmatch(name) else "names in this section must be AMQP symbols (ASCII)"


def validate(metadata: dict) -> list[str]:
    errors = unknown_keys(metadata, SECTIONS, "an AMQP 1.0 message section")
    for section, fields in (("properties", PROPERTIES), ("header", HEADER)):
        if section in metadata:
            declarations = metadata[section]
            errors += check_declarations(f"metadata.{section}", declarations, types=fields, known_only=True)
            if isinstance(declarations, dict):
                for (where, name), (low, high) in RANGES.items():
                    if where == section and name in declarations:
                        errors += check_range(f"metadata.{section}.{name}", declarations[name], low, high)
    for section in CUSTOM_SECTIONS:
        if section in metadata:
            errors += check_declarations(f"metadata.{section}", metadata[section], name_error=_symbol_name)
    return errors
