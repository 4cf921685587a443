"""NATS metadata: the NATS format is not in the 0.5-wip text; the Message Catalog API defines it ("CNCF NATS":
the PUB message's `subject` and `replyto`, both strings). In the 0.5-wip shape the members are
- `subject` (string) and `reply-to` (string; hyphenated like AMQP's `reply-to`): NATS subjects, tokens
  separated by `.`, none empty, no whitespace;
- `headers`: a map of header name -> declaration (NATS 2.2 message headers, like Kafka's `headers`).
String values MAY contain level 1 placeholders.
"""

import re

from ..http_fields import TOKEN
from .declarations import check_declaration, check_declarations, show, unknown_keys, value_of

SUBJECTS = ("subject", "reply-to")
KNOWN = (*SUBJECTS, "headers")
WHITESPACE = re.compile(r"\s")


def _header_name(name: str) -> str | None:
    return None if TOKEN.fullmatch(name) else "NATS header names are tokens (no spaces, ':' or control characters)"


def _subject(path: str, declaration) -> list[str]:
    value = value_of(declaration, "string")
    if value is None:
        return []
    if not value or WHITESPACE.search(value) or value.startswith(".") or value.endswith(".") or ".." in value:
        return [f"{path}.value {show(value)} is not a NATS subject (non-empty tokens separated by '.', no spaces)"]
    return []


def validate(metadata: dict) -> list[str]:
    errors = unknown_keys(metadata, KNOWN, "a NATS message property")
    for name in SUBJECTS:
        if name in metadata:
            errors += check_declaration(f"metadata.{name}", metadata[name], "string", fixed=True)
            errors += _subject(f"metadata.{name}", metadata[name])
    if "headers" in metadata:
        errors += check_declarations("metadata.headers", metadata["headers"], name_error=_header_name)
    return errors
