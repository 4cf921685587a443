"""Reading a registration or compatibility-test body: `schema`, `schemaType`, `references`, `metadata`, `ruleSet`
and, in IMPORT mode, `id` and `version`. Wrong types are 42201 (Confluent's invalid schema) naming the member."""

from __future__ import annotations

from ..errors import INVALID_SCHEMA, ConfluentError
from ..models import MAX_SCHEMA_ID
from ..schema_types import TYPES
from ..services import Registration

KNOWN = {"schema", "schemaType", "references", "metadata", "ruleSet", "id", "version", "schemaTagsToAdd"}


def _invalid(message: str) -> ConfluentError:
    return ConfluentError(INVALID_SCHEMA, f"Invalid schema: {message}")


def _positive(body: dict, name: str) -> int | None:
    value = body.get(name)
    if value is None or (name == "version" and value == -1) or (name == "id" and value == -1):
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_SCHEMA_ID:
        code = 42202 if name == "version" else INVALID_SCHEMA
        raise ConfluentError(code, f"{name} must be an integer between 1 and {MAX_SCHEMA_ID}, not {value!r}")
    return value


def _references(value) -> list[dict]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _invalid("references must be an array of {name, subject, version}")
    out = []
    for index, ref in enumerate(value):
        if not isinstance(ref, dict):
            raise _invalid(f"references[{index}] must be an object")
        name, subject, version = ref.get("name"), ref.get("subject"), ref.get("version")
        if not isinstance(name, str) or not name:
            raise _invalid(f"references[{index}].name must be a non-empty string")
        if not isinstance(subject, str) or not subject:
            raise _invalid(f"references[{index}].subject must be a non-empty string")
        if (
            isinstance(version, bool)
            or not isinstance(version, int)
            or not (version == -1 or 1 <= version <= MAX_SCHEMA_ID)
        ):
            raise _invalid(f"references[{index}].version must be a version number, not {version!r}")
        out.append({"name": name, "subject": subject, "version": version})
    return out


def registration(body: dict) -> Registration:
    schema = body.get("schema")
    if not isinstance(schema, str) or not schema.strip():
        raise _invalid("the body needs a schema, a non-empty string")
    schema_type = body.get("schemaType")
    if schema_type is None:
        schema_type = "AVRO"
    if not isinstance(schema_type, str) or schema_type.upper() not in TYPES:
        raise ConfluentError(
            INVALID_SCHEMA,
            f"Invalid schema: unknown schemaType {schema_type!r}; this registry serves {', '.join(TYPES)}",
        )
    for name in ("metadata", "ruleSet"):
        if body.get(name) is not None and not isinstance(body[name], dict):
            raise _invalid(f"{name} must be an object")
    return Registration(
        schema=schema,
        schema_type=schema_type.upper(),
        references=_references(body.get("references")),
        metadata=body.get("metadata"),
        rule_set=body.get("ruleSet"),
        id=_positive(body, "id"),
        version=_positive(body, "version"),
    )
