"""Kafka metadata (spec: the "Kafka" message format, e.g. `Kafka/0.11`): the common elements of producer and
consumer records.

- `topic` (string): a Kafka topic name, literal characters `A-Z a-z 0-9 . _ -`, at most 249 of them;
- `partition` (integer, not negative);
- `key` (binary; written as text in documents, like the spec's example `"thisdevice"`);
- `headers`: a map of header name -> declaration (the text's name, not the 0.5-wip schema's `recordHeaders`);
- `timestamp` (integer, not negative; 0, the default, lets the producer assign it).
String values and headers MAY contain level 1 placeholders.
"""

import re

from .declarations import (
    check_declaration,
    check_declarations,
    check_range,
    literal_parts,
    show,
    unknown_keys,
    value_of,
)

FIELDS = {"topic": "string", "partition": "integer", "key": "binary", "timestamp": "integer"}
KNOWN = (*FIELDS, "headers")
TOPIC = re.compile(r"^[A-Za-z0-9._\-]*$")
RANGES = {"partition": (0, 2**31 - 1), "timestamp": (0, 2**63 - 1)}  # int32 partition, int64 milliseconds


def _topic(declaration) -> list[str]:
    value = value_of(declaration, "string")
    if value is None:
        return []
    literal = literal_parts(value)
    if not value or len(literal) > 249 or not TOPIC.fullmatch(literal) or value in (".", ".."):
        return [f"metadata.topic.value {show(value)} is not a Kafka topic name (1-249 of A-Z a-z 0-9 . _ -)"]
    return []


def validate(metadata: dict) -> list[str]:
    errors = unknown_keys(metadata, KNOWN, "a Kafka record property")
    if "headers" in metadata:
        errors += check_declarations("metadata.headers", metadata["headers"])
    for name, kind in FIELDS.items():
        if name in metadata:
            errors += check_declaration(f"metadata.{name}", metadata[name], kind, fixed=True)
            if name in RANGES:
                errors += check_range(f"metadata.{name}", metadata[name], *RANGES[name])
    if "topic" in metadata:
        errors += _topic(metadata["topic"])
    return errors
