"""PROTOBUF schemas: `.proto` text in, `.proto` text stored."""

from __future__ import annotations

from catalog.validators.schemas import parse_proto

from .errors import invalid_schema


def canonical_text(text: str) -> str:
    return "\n".join(line.strip() for line in text.strip().splitlines() if line.strip())


def prepare_protobuf(text: str, references):
    from .schema_types import Prepared

    try:
        tree = parse_proto(text)
    except ValueError as exc:
        raise invalid_schema(f"not a valid Protobuf schema: {exc}")
    syntax = "2" if tree.syntax == "proto2" else "3"
    return Prepared(
        "PROTOBUF", text.encode(), f"Protobuf/{syntax}", canonical_text(text), [r.as_json() for r in references]
    )
