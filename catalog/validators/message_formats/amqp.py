"""AMQP/1.0 metadata: the message sections `properties`, `application-properties`, `message-annotations`,
`delivery-annotations`, `header` and `footer`, with the fixed names and types of the spec's tables."""
import re

from .properties import check_map

PROPERTIES = {"message-id": "string", "user-id": "binary", "to": "uritemplate", "subject": "string",
              "reply-to": "uritemplate", "correlation-id": "string", "content-type": "symbol",
              "content-encoding": "symbol", "absolute-expiry-time": "timestamp", "group-id": "string",
              "group-sequence": "integer", "reply-to-group-id": "uritemplate"}
HEADER = {"durable": "boolean", "priority": "integer", "ttl": "integer", "first-acquirer": "boolean",
          "delivery-count": "integer"}
SYMBOL_NAME = re.compile(r"^[A-Za-z0-9_.:\-]+$")
CUSTOM_SECTIONS = ("application-properties", "message-annotations", "delivery-annotations", "footer")


def _symbol(name: str) -> str | None:
    return None if SYMBOL_NAME.match(name) else "names in this section must be AMQP symbols"


def validate(metadata) -> list[str]:
    if not isinstance(metadata, dict):
        return ["metadata must be an object"]
    known = {"properties", "header", *CUSTOM_SECTIONS}
    errors = [f"metadata.{k} is not an AMQP 1.0 message section (known: {', '.join(sorted(known))})"
              for k in metadata if k not in known]
    if "properties" in metadata:
        errors += check_map("metadata.properties", metadata["properties"], types=PROPERTIES, known_only=True)
    if "header" in metadata:
        errors += check_map("metadata.header", metadata["header"], types=HEADER, known_only=True)
    for section in CUSTOM_SECTIONS:
        if section in metadata:
            errors += check_map(f"metadata.{section}", metadata[section], name_check=_symbol)
    return errors
