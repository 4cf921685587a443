"""How the API writes a subject version and a schema (the shapes of Confluent's answers)."""

from __future__ import annotations

import base64
import json

from registry.store.bounded_cache import BoundedCache

from .. import subjects
from ..models import SchemaId, SubjectVersion
from ..numbering import contracts_of
from ..protobuf import descriptor_of_text, resolved
from ..references import resolve_stored_references


def schema_text(row: SubjectVersion) -> str:
    return bytes(row.version.content or b"").decode("utf-8", "replace")


def formatted(schema_type: str, text: str, references: list[dict], fmt: str | None) -> str:
    """`?format=serialized` gives a PROTOBUF schema as the base64 FileDescriptorProto the serializers read."""
    if schema_type == "PROTOBUF" and fmt == "serialized":
        return serialized(text, references)
    return text


def subject_version(row: SubjectVersion, subject_name: str, fmt: str | None = None) -> dict:
    """A subject version as Confluent's `Schema`: its metadata and rule set are its version's attributes."""
    out = {"subject": subject_name, "version": row.number, "id": row.schema_id_id, "guid": str(row.schema_id.guid)}
    out |= _as_stored(row)
    out["schema"] = formatted(row.schema_id.schema_type, schema_text(row), row.references, fmt)
    if row.deleted:
        out["deleted"] = True
    return out


def registered(row: SubjectVersion) -> dict:
    """A registration's answer (Confluent's `RegisterSchemaResponse`): the id and version, and the schema as stored
    (its type, references, metadata and rule set: what the registry merged)."""
    return {"id": row.schema_id_id, "version": row.number, "guid": str(row.schema_id.guid), **_as_stored(row)}


def _as_stored(row: SubjectVersion) -> dict:
    """What a subject version's answers show of it as stored, where present: its type (AVRO left out, as Confluent
    does), references, metadata and rule set (its version's attributes)."""
    out: dict = {}
    if row.schema_id.schema_type != "AVRO":
        out["schemaType"] = row.schema_id.schema_type
    if row.references:
        out["references"] = row.references
    metadata, rule_set = contracts_of(row.version.extensions)
    if metadata:
        out["metadata"] = metadata
    if rule_set:
        out["ruleSet"] = rule_set
    return out


def schema(found: SchemaId, fmt: str | None = None, *, with_id: bool = False) -> dict:
    """A schema by id or GUID (Confluent's `SchemaString`): with its `guid` (and its `id` when read by GUID)."""
    out: dict = {"id": found.id} if with_id else {}
    out["guid"] = str(found.guid)
    if found.schema_type != "AVRO":
        out["schemaType"] = found.schema_type
    if found.references:
        out["references"] = found.references
    if found.metadata:
        out["metadata"] = found.metadata
    if found.rule_set:
        out["ruleSet"] = found.rule_set
    out["schema"] = formatted(found.schema_type, found.schema, found.references, fmt)
    return out


def name_of_row(row: SubjectVersion) -> str | None:
    return subjects.name_of(row.resource.group.gid, row.resource.rid)


# serialized descriptors by (text, references): the key is what they are built from (the references' stored texts
# are read again at each miss)
_serialized = BoundedCache("confluent_serialized_schemas", max_entries=512)


def serialized(text: str, references: list[dict]) -> str:
    key = (text, json.dumps(references or [], sort_keys=True))
    found = _serialized.get(key)
    if found is None:
        fdp = descriptor_of_text(text)
        try:
            fdp = resolved(fdp, resolve_stored_references(references or []))
        except Exception:  # a stored text that no longer resolves: its descriptor as written
            pass
        fdp.name = ""
        found = base64.b64encode(fdp.SerializeToString()).decode("ascii")
        _serialized.put(key, found)
    return found
