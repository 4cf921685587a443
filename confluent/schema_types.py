"""`schemaType` AVRO, JSON and PROTOBUF: the stored format of each, the document stored, and the canonical text
whose hash keys a schema id (docs/confluent.md).

- AVRO (the default): the JSON text of an Avro schema, stored as sent, format `Avro/1.11.0`; its canonical text is
  the same JSON without insignificant whitespace. Named types of referenced subjects are known while parsing.
- JSON: a JSON Schema, stored as sent, format `JsonSchema/<draft>` (the draft its `$schema` names, else
  draft-07); canonical text as for Avro.
- PROTOBUF: `.proto` text, or the base64 `FileDescriptorProto` the Confluent serializers send
  (`confluent.protobuf`); stored as `.proto` text, format `Protobuf/3` (or 2). Its canonical text is the `.proto`
  rendering of its descriptor, so the same file sent either way gets one id.

The registry's own schema validators (catalog's hook) check every stored document again when it is written; this
module refuses what the Confluent API cannot serve before that (42201).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from catalog.validators.format_names import schema_format_family
from catalog.validators.schemas import validate_schema
from registry.domain.json_text import MAX_DEPTH, nesting_exceeds, strict_loads

from .contracts import key_part
from .errors import invalid_schema
from .protobuf import canonical_text, prepare_protobuf

TYPES = ("AVRO", "JSON", "PROTOBUF")
FAMILIES = {"Avro": "AVRO", "JsonSchema": "JSON", "Protobuf": "PROTOBUF"}
MEDIA_TYPES = {"AVRO": "application/json", "JSON": "application/json", "PROTOBUF": "text/plain; charset=utf-8"}
JSON_DRAFTS = {
    "http://json-schema.org/draft-04/schema": "draft-04",
    "http://json-schema.org/draft-06/schema": "draft-06",
    "http://json-schema.org/draft-07/schema": "draft-07",
    "https://json-schema.org/draft/2019-09/schema": "2019-09",
    "https://json-schema.org/draft/2020-12/schema": "2020-12",
}


REFERENCES = "references"  # the version attribute holding its Confluent references (confluent.references)
REFERENCE_KEYS = ("name", "subject", "version")
MAX_VERSION = 2**31 - 1


def references_problem(value) -> str | None:
    """What is wrong with a value of the `references` attribute, None when it is a list of {name, subject,
    version} (non-empty strings, a version number)."""
    if not isinstance(value, list):
        return "must be an array of {name, subject, version}"
    for index, ref in enumerate(value):
        if not isinstance(ref, dict) or set(ref) != set(REFERENCE_KEYS):
            return f"[{index}] must be an object with exactly name, subject and version"
        for key in ("name", "subject"):
            if not isinstance(ref[key], str) or not ref[key]:
                return f"[{index}].{key} must be a non-empty string"
        version = ref["version"]
        if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= MAX_VERSION:
            return f"[{index}].version must be a version number (1 to {MAX_VERSION}), not {version!r}"
    return None


def attribute_references(attributes: dict | None) -> list[dict]:
    """The references a stored version's `references` attribute holds, in their order ([] without one, or with one
    of another shape: a schema of a format Confluent has no type for keeps whatever it was given)."""
    value = (attributes or {}).get(REFERENCES)
    if value is None or references_problem(value) is not None:
        return []
    return [{key: ref[key] for key in REFERENCE_KEYS} for ref in value]


def type_of_format(fmt) -> str | None:
    """The schemaType of a stored format, None for formats Confluent has no type for (XSD, unknown)."""
    if not isinstance(fmt, str):
        return None
    family = schema_format_family(fmt)[0]
    return FAMILIES.get(family) if family is not None else None


@dataclass
class Referenced:
    """A reference of a registration, resolved: its `name`, the subject and version it names, and that version's
    type, text and own references (resolved in turn)."""

    name: str
    subject: str
    version: int
    schema_type: str
    text: str
    references: list[Referenced] = field(default_factory=list)

    def as_json(self) -> dict:
        return {"name": self.name, "subject": self.subject, "version": self.version}


def referenced_documents(references: list[Referenced]) -> tuple[bytes, ...]:
    """The texts of the references and of theirs, deepest first, each subject version once: what the registry's own
    check of the registered document (catalog's hook) reads named types from (`VersionInput.referenced_documents`).
    A JSON Schema is named by its reference's `name`, which its `$ref`s use (Confluent's clients resolve them so):
    its document comes with that name as its `$id` (once per name), which the JSON Schema compatibility check reads
    (catalog.validators.compatibility.jsonschema.load)."""
    out: list[bytes] = []
    seen: set[tuple] = set()

    def walk(refs: list[Referenced]) -> None:
        for ref in refs:
            key = (ref.subject, ref.version, ref.name if ref.schema_type == "JSON" else None)
            if key in seen:
                continue
            seen.add(key)
            walk(ref.references)
            out.append(_named(ref) if ref.schema_type == "JSON" else ref.text.encode())

    walk(references)
    return tuple(out)


def _named(ref: Referenced) -> bytes:
    """A referenced JSON Schema with its reference's name as its `$id` (the text as it is when it is no object)."""
    try:
        value = strict_loads(ref.text)
    except ValueError:
        return ref.text.encode()
    if not isinstance(value, dict):
        return ref.text.encode()
    return compact({**value, "$id": ref.name}).encode()


@dataclass
class Prepared:
    schema_type: str
    document: bytes  # what the registry stores
    format: str
    canonical: str
    references: list[dict]
    referenced: tuple[bytes, ...] = ()  # the referenced documents, deepest first (referenced_documents)

    @property
    def media_type(self) -> str:
        return MEDIA_TYPES[self.schema_type]

    @property
    def key(self) -> str:
        """The key of the content alone (without metadata and rule set)."""
        return content_key(self.schema_type, self.canonical, self.references)

    def key_with(self, metadata: dict | None, rule_set: dict | None) -> str:
        return extended_key(self.key, metadata, rule_set)


def content_key(
    schema_type: str, canonical: str, references: list[dict], metadata: dict | None = None, rule_set: dict | None = None
) -> str:
    """The key of a schema id: the type, canonical text and references, and the version's metadata and rule set (as
    Confluent's ids: the same text with another rule set is another schema), added to the key of the rest
    (`extended_key`) so that a content without them keeps the key it had before they were part of it."""
    refs = json.dumps(references, sort_keys=True, ensure_ascii=False)
    base = hashlib.sha256(f"{schema_type}\n{canonical}\n{refs}".encode("utf-8", "surrogatepass")).hexdigest()
    return extended_key(base, metadata, rule_set)


def extended_key(base: str, metadata: dict | None, rule_set: dict | None) -> str:
    part = key_part(metadata, rule_set)
    if not part:
        return base
    return hashlib.sha256(f"{base}\n{part}".encode("utf-8", "surrogatepass")).hexdigest()


def _json(text: str, what: str):
    if nesting_exceeds(text, MAX_DEPTH):
        raise invalid_schema(f"the {what} is nested deeper than {MAX_DEPTH} levels")
    try:
        return strict_loads(text)
    except RecursionError:
        raise invalid_schema(f"the {what} is nested too deeply")
    except ValueError as exc:
        raise invalid_schema(f"the {what} is not valid JSON: {exc}")


def compact(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _avro_named(references: list[Referenced], named: dict, seen: set) -> None:
    """Parse the Avro schemas of `references` (their own references first) into fastavro's `named` types."""
    # here: fastavro loads with the first Avro schema, not at the start-up of every process
    import fastavro

    for ref in references:
        if ref.schema_type != "AVRO":
            raise invalid_schema(f"reference {ref.name!r} is a {ref.schema_type} schema, not AVRO")
        key = (ref.subject, ref.version)
        if key in seen:
            continue
        seen.add(key)
        _avro_named(ref.references, named, seen)
        try:
            fastavro.parse_schema(_json(ref.text, f"referenced schema {ref.name!r}"), named, _write_hint=False)
        except Exception as exc:  # fastavro raises several types for an invalid schema
            raise invalid_schema(f"referenced schema {ref.name!r}: {exc}")


def _avro(text: str, references: list[Referenced]) -> Prepared:
    # here: fastavro loads with the first Avro schema, not at the start-up of every process
    import fastavro

    value = _json(text, "Avro schema")
    named: dict = {}
    _avro_named(references, named, set())
    try:
        fastavro.parse_schema(value, named, _write_hint=False)
    except (RecursionError, MemoryError):
        raise invalid_schema("the Avro schema is nested too deeply")
    except Exception as exc:  # SchemaParseException, UnknownType, TypeError, ...
        raise invalid_schema(f"not a valid Avro schema: {type(exc).__name__}: {str(exc)[:300]}")
    refs = [r.as_json() for r in references]
    return Prepared("AVRO", text.encode(), "Avro/1.11.0", compact(value), refs, referenced_documents(references))


def _json_schema(text: str, references: list[Referenced]) -> Prepared:
    value = _json(text, "JSON Schema")
    draft = "draft-07"
    if isinstance(value, dict) and isinstance(value.get("$schema"), str):
        draft = JSON_DRAFTS.get(value["$schema"].rstrip("#"), draft)
    fmt = f"JsonSchema/{draft}"
    errors = validate_schema(fmt, text.encode())
    if errors:
        raise invalid_schema("; ".join(errors))
    for ref in references:
        if ref.schema_type != "JSON":
            raise invalid_schema(f"reference {ref.name!r} is a {ref.schema_type} schema, not JSON")
    return Prepared("JSON", text.encode(), fmt, compact(value), [r.as_json() for r in references])


def prepare(schema_type: str, text: str, references: list[Referenced]) -> Prepared:
    """What a registration stores and keys its id by; 42201 naming the problem when the schema is invalid."""
    if schema_type == "AVRO":
        return _avro(text, references)
    if schema_type == "JSON":
        return _json_schema(text, references)
    stored, fmt, canonical = prepare_protobuf(text, references)
    return Prepared("PROTOBUF", stored.encode(), fmt, canonical, [r.as_json() for r in references])


def canonical_of_stored(schema_type: str, text: str) -> str:
    """The canonical text of a document stored through another door (for its schema id): compact JSON for AVRO
    and JSON, the descriptor's rendering for PROTOBUF; the text itself when it does not parse."""
    try:
        if schema_type in ("AVRO", "JSON"):
            return compact(strict_loads(text))
        return canonical_text(text)
    except Exception:  # a stored document another validator accepted but this one cannot read: keyed as it is
        return text
