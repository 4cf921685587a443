"""How the API writes a subject version and a schema (the shapes of Confluent's answers)."""

from __future__ import annotations

from .. import subjects
from ..models import SchemaId, SubjectVersion


def schema_text(row: SubjectVersion) -> str:
    return bytes(row.version.content or b"").decode("utf-8", "replace")


def formatted(schema_type: str, text: str, references: list[dict], fmt: str | None) -> str:
    """`?format=serialized` gives a PROTOBUF schema as the base64 FileDescriptorProto the serializers read."""
    if schema_type == "PROTOBUF" and fmt == "serialized":
        from ..protobuf import serialized

        return serialized(text, references)
    return text


def subject_version(row: SubjectVersion, subject_name: str, fmt: str | None = None) -> dict:
    schema_type = row.schema_id.schema_type
    out = {"subject": subject_name, "version": row.number, "id": row.schema_id_id}
    if schema_type != "AVRO":
        out["schemaType"] = schema_type
    if row.references:
        out["references"] = row.references
    if row.metadata:
        out["metadata"] = row.metadata
    if row.rule_set:
        out["ruleSet"] = row.rule_set
    out["schema"] = formatted(schema_type, schema_text(row), row.references, fmt)
    if row.deleted:
        out["deleted"] = True
    return out


def schema(found: SchemaId, fmt: str | None = None) -> dict:
    out = {}
    if found.schema_type != "AVRO":
        out["schemaType"] = found.schema_type
    if found.references:
        out["references"] = found.references
    out["schema"] = formatted(found.schema_type, found.schema, found.references, fmt)
    return out


def name_of_row(row: SubjectVersion) -> str | None:
    return subjects.name_of(row.resource.group.gid, row.resource.rid)
