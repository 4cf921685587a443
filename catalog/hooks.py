"""The catalog's validation hooks: what the engine calls before writing a definition group, definition,
schema group or schema version. They adapt the pure validators in `catalog.validators` to the engine's
`GroupCheck` / `VersionCheck` and raise `Invalid` with every problem found."""

from __future__ import annotations

import json

from django.conf import settings

from registry.domain.compared_versions import compared
from registry.domain.model import effective_compatibility
from registry.domain.validation import GroupCheck, Invalid, VersionCheck, at

from .validators.compatibility import LEVELS as COMPATIBILITY_LEVELS
from .validators.compatibility import check_compatibility, offered_levels
from .validators.definitions import validate_definition, validate_definition_group
from .validators.format_names import same_format, schema_format_family
from .validators.schemas import DEFAULT_MAX_BYTES, validate_schema


def check_definition_group(check: GroupCheck) -> None:
    errors = validate_definition_group(check.attributes, format_required=check.seed_binding)
    stored = check.stored_attributes
    if stored is not None and not errors:
        old, new = stored.get("format"), check.attributes.get("format")
        if old != new and check.resource_counts().get("definitions", 0):  # the group's state: 409, not 400
            raise Invalid(
                f"format cannot change from {old!r} to {new!r} while the group has definitions",
                status=409,
                kind="conflict",
            )
    if errors:
        raise Invalid(errors)


def _definition_document(check: VersionCheck) -> dict | None:
    if check.resource_uri:
        return None
    try:
        doc = json.loads(check.document or b"")
    except ValueError as exc:
        raise Invalid(f"the definition is not valid JSON: {exc}")
    if not isinstance(doc, dict):
        raise Invalid("the definition must be a JSON object")
    return doc


def check_definition_version(check: VersionCheck) -> None:
    doc = _definition_document(check)
    if doc is None:
        return
    for key in ("id", "name", "description", "tags", "docs"):
        if key in check.attributes:
            doc[key] = check.attributes[key]
    doc["id"] = check.resource_id
    group_format = check.group_attributes.get("format")
    errors = validate_definition(doc, group_format=group_format)
    if not errors and isinstance(doc.get("uri"), str):
        errors += _borrowed(check, doc["uri"], group_format)
    if not errors:
        errors += _schema_reference(check, doc.get("schemaurl"))
    if errors:
        raise Invalid(errors)


def _schema_reference(check: VersionCheck, reference) -> list[str]:
    """A `schemaurl` into this registry must name a schema (or version) that exists; one already stored is kept as
    it is (a forced delete may have left it dangling), and a document import reports dangling ones as warnings."""
    if not isinstance(reference, str) or check.dangling_references or check.resolves(reference):
        return []
    try:
        stored = json.loads(check.stored_document or b"null")
    except ValueError:
        stored = None
    if isinstance(stored, dict) and stored.get("schemaurl") == reference:
        return []
    return [at("schemaurl", f" {reference!r} names no schema of this registry", reference)]


def _borrowed(check: VersionCheck, uri: str, group_format: str | None) -> list[str]:
    """A definition borrowed by reference must resolve to a definition with the group's format."""
    own = check.base_url.rstrip("/") + "/" if check.base_url else None
    if uri.startswith("#/"):
        path = "/" + uri[2:]
    elif own and uri.startswith(own):
        path = "/" + uri[len(own) :]
    else:
        return []  # another registry's definition: not checked here
    target = check.lookup(path.split(":", 1)[0])
    if target is None:
        return [] if check.dangling_references else [f"uri {uri!r} does not resolve to a definition"]
    if group_format and not same_format(target.get("format"), group_format):
        return [
            f"uri: the borrowed definition has format {target.get('format')!r}, the group's format is {group_format!r}"
        ]
    return []


MEDIA_TYPES = {
    "JsonSchema": "application/json",
    "Avro": "application/json",
    "Protobuf": "text/plain; charset=utf-8",
    "XSD": "application/xml",
}


def schema_media_type(attributes: dict, content: bytes) -> str:
    """Media type of a schema given as text in a registry document, by its format."""
    family, _version = schema_format_family(attributes.get("format"))
    if family in MEDIA_TYPES:
        return MEDIA_TYPES[family]
    try:
        json.loads(content)
        return "application/json"
    except ValueError:
        return "text/plain; charset=utf-8"


def check_schema_group(check: GroupCheck) -> None:
    """A schema group's `compatibility` level and optional `format` (the older Schema Registry binding's group
    format): a non-empty string, and it cannot change while the group holds schemas (409), whichever binding
    or door the change comes through."""
    level = check.attributes.get("compatibility")
    if level is not None and level not in COMPATIBILITY_LEVELS:
        raise Invalid(f"compatibility must be one of {', '.join(COMPATIBILITY_LEVELS)}, not {level!r}")
    fmt = check.attributes.get("format")
    if "format" in check.attributes and (not isinstance(fmt, str) or not fmt):
        raise Invalid("format must be a non-empty string when present")
    stored = check.stored_attributes
    if stored is not None and stored.get("format") != fmt and check.resource_counts().get("schemas", 0):
        raise Invalid(
            f"format cannot change from {stored.get('format')!r} to {fmt!r} while the group has schemas",
            status=409,
            kind="conflict",
        )


def schema_size_limit() -> int:
    try:
        return settings.REGISTRY_MAX_SCHEMA_BYTES
    except Exception:  # no Django settings (Spark executors): the validator's default
        return DEFAULT_MAX_BYTES


def validates_schema_format(fmt: str | None) -> bool:
    """Whether a schema of this format is validated (`validate_schema`): the formats this server knows."""
    return schema_format_family(fmt)[0] is not None


def schema_compatibility_levels(fmt: str | None) -> tuple[str, ...]:
    """The compatibility levels a schema of this format offers (ResourceType.compatibility_levels)."""
    return offered_levels(fmt)


def check_schema_version(check: VersionCheck) -> None:
    """A schema version: its format, its document valid in that format, the same format family as the schema's other
    versions, and compatible with them at the level that applies (`check.checked_level` tells which one it met when
    it compared them). An import's history (`check.history`) is checked
    alone (CONTRACT 18)."""
    errors = []
    fmt = check.attributes.get("format")
    if fmt is not None and not isinstance(fmt, str):
        raise Invalid([f"format must be a string NAME/VERSION (e.g. JsonSchema/draft-07), not {type(fmt).__name__}"])
    level = check.attributes.get("compatibility")
    if level is not None and level not in COMPATIBILITY_LEVELS:
        errors.append(f"compatibility must be one of {', '.join(COMPATIBILITY_LEVELS)}, not {level!r}")
    elif fmt and level not in (None, "none") and level not in offered_levels(fmt):  # a level its format offers
        # (a version without a format is not checked, whatever the level: rc4 core `format`)
        errors.append(at("compatibility", f" {level!r}: the format {fmt!r} offers no compatibility level", level))
    if check.resource_uri:
        if check.resource_uri.startswith(check.base_url + "/"):
            errors.append(f"schemaURI {check.resource_uri!r} points into this registry; store the schema instead")
        if errors:
            raise Invalid(errors)
        return
    level = effective_compatibility(level, check.group_attributes.get("compatibility")) if not errors else None
    if level not in offered_levels(fmt):  # (a group's or the registry's level applies to the formats offering it)
        level = "none"
    if check.history:  # an import's history: stored as given, not compared with the other versions (CONTRACT 18)
        previous, listed = None, []
    elif level == "none" and check.previous_formats is not None:
        previous = None  # nothing to compare: the earlier versions' documents are not read, their formats are
        listed = check.previous_formats()
    else:
        previous = check.previous_documents()
        listed = [fmt for fmt, _document in previous]
    for prev_format in _each_once(listed):
        if prev_format and fmt and not same_format(prev_format, fmt):
            family, _ = schema_format_family(prev_format)
            if family is None or family != schema_format_family(fmt)[0]:
                errors.append(f"format {fmt!r} differs from the format {prev_format!r} of the schema's other versions")
                break
    references = check.referenced_documents  # resolved by the writer (the Confluent API's Avro references)
    errors += validate_schema(fmt, check.document or b"", max_bytes=schema_size_limit(), references=references)
    if errors:
        raise Invalid(errors)
    if level == "none" or check.history or previous is None:  # (previous is None only then)
        return
    scope = compared(check) if previous else None  # versions an app leaves out (registry/domain/compared_versions.py)
    if scope is not None and len(scope) == len(previous):
        previous = [pair for pair, keep in zip(previous, scope, strict=True) if keep]
    if not previous:  # (nothing to compare)
        check.checked_level = level
        return
    found = check_compatibility(
        fmt,
        level,
        [document for _fmt, document in previous],
        check.document or b"",
        references,
    )
    if found:
        details = [i.as_dict() for i in found]
        raise Invalid(
            [f"{i.path}: {i.change} ({i.reason})" for i in found],
            status=409,
            kind="incompatible-version",
            details=details,
        )
    check.checked_level = level


def schema_part_problem(attributes: dict, document: bytes, name: str) -> str | None:
    """Why the `:Name` after a reference to a schema (version) names nothing in its document
    (registry/documents/references.py): an Avro named type (by full or simple name) or a Protobuf message (as a
    message check finds it: catalog.validators.message_data), the names the seed's schema formats section gives the
    suffix. None when it names something, or nothing can tell: another format (what follows `:` in a JSON Schema
    reference is this registry's own reading, a JSON pointer that a message check follows), a document that does not
    parse."""
    family, _version = schema_format_family(attributes.get("format"))
    if family == "Avro":
        # here: message_json loads jsonschema, referencing and fastavro, which a process needs only with its first check
        from .validators.message_json import _avro_parsed

        try:
            names = _avro_parsed(document)[1]
        except ValueError:
            return None
        bare = name.lstrip(".")
        if bare in names or bare in {full.rsplit(".", 1)[-1] for full in names}:
            return None
        return f"the Avro schema defines no named type {name!r}"
    if family == "Protobuf":
        # here: the Protobuf parser loads with the first Protobuf schema, not at the start-up of every process
        from .validators.message_data import proto_schema

        try:
            found, why = proto_schema(document).find(name)
        except Exception:  # noqa: BLE001 - a .proto the parser cannot read: nothing to tell
            return None
        return None if found else why
    return None


def _each_once(listed) -> list:
    """The formats listed, each once, in the versions' order."""
    try:
        return list(dict.fromkeys(listed))
    except TypeError:  # a stored value need not be hashable
        formats: list = []
        for prev_format in listed:
            if prev_format not in formats:
                formats.append(prev_format)
        return formats
