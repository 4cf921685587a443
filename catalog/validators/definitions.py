"""Message definitions and definition groups (spec: "Message Definitions Registry").

A definition is a JSON object:
- `format` (REQUIRED, NAME/VERSION, the same format as its group's, matched case-insensitively with aliases);
- `metadata` (an object, checked by the format's validator in `message_formats`; unknown formats: an object);
- `schemaformat` (NAME/VERSION), and `schema` (a string or an object) or `schemaurl` (a URI-reference, http or
  https when it has a scheme): mutually exclusive, `schemaformat` REQUIRED with either;
- the shared attributes `id`, `name`, `description`, `tags` (string -> string; names 1-63 of letters,
  digits, `-`, `_`, `.`, starting with a letter or digit), `docs` (URI-reference, http/https with a scheme);
- `uri`: a definition borrowed from another group (the referenced one holds the rest; `format` optional here);
- extension attributes, whose names must differ from every sibling attribute irrespective of case.

Every error starts with the attribute's path in the document. The checks run at a fixed depth, so no JSON
shape (None, arrays, numbers where objects belong, deep nesting) makes them raise.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from registry.domain.attributes import V10_NAMES
from registry.domain.errors import at

from .format_names import is_valid_format_identifier, message_format_family, same_format
from .message_formats import format_error, validate_metadata
from .message_formats.declarations import key, show, uri_reference_error

KNOWN = (
    "id",
    "name",
    "description",
    "tags",
    "docs",
    "format",
    "metadata",
    "schemaformat",
    "schema",
    "schemaurl",
    "uri",
)
# the core spec's common attributes (server-owned on a definition): not checked here, but extension attributes
# must not differ from them only by case either
COMMON = ("version", "epoch", "self", "createdBy", "createdOn", "modifiedBy", "modifiedOn")
TAG_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9\-_.]{0,62}$")
# a 1.0 message's own attribute names -> a 0.5 definition's (docs/xregistry-1.0.md)
V10_DEFINITION_NAMES = {
    "envelope": "format (with metadata)",
    "dataschemaformat": "schemaformat",
    "dataschema": "schema",
    "dataschemauri": "schemaurl",
}


def _docs(value) -> list[str]:
    error = uri_reference_error(value)
    if error:
        return [f"docs {error}"]
    scheme = urlsplit(value).scheme.lower()
    return [] if scheme in ("", "http", "https") else [f"docs must use http or https, not {show(scheme)}"]


def _tags(tags) -> list[str]:
    if not isinstance(tags, dict):
        return ["tags must be an object (a map of string -> string)"]
    errors = []
    for name, value in tags.items():
        if not isinstance(name, str) or not TAG_NAME.fullmatch(name):
            errors.append(
                f"tags.{key(name)}: tag names are 1-63 letters, digits, '-', '_' or '.', "
                "starting with a letter or digit"
            )
        if not isinstance(value, str):
            errors.append(f"tags.{key(name)} must be a string")
    return errors


def _case_clashes(document: dict) -> list[str]:
    seen = {name.lower(): name for name in (*KNOWN, *COMMON)}
    errors = []
    for name in document:
        if not isinstance(name, str):
            errors.append(f"{key(name)}: attribute names must be strings")
            continue
        other = seen.setdefault(name.lower(), name)
        if other != name:
            errors.append(f"{key(name)} differs from the attribute {key(other)} only by case")
    return errors


def _v10_names(document: dict) -> list[str]:
    """The xRegistry 1.0 names of what a 0.5 definition calls otherwise: refused, not stored as extensions that the
    1.0 binding would show in place of the real attributes."""
    errors = []
    for name in document:
        if name in V10_NAMES or name in V10_DEFINITION_NAMES:
            instead = V10_NAMES.get(name) or V10_DEFINITION_NAMES.get(name)
            errors.append(
                f"{name} is an attribute of xRegistry 1.0 (the /registry binding), not of the 0.5-wip "
                f"binding" + (f"; here it is {instead}" if instead else "")
            )
    return errors


def _shared(document: dict) -> list[str]:
    errors = _case_clashes(document) + _v10_names(document)
    if "id" in document and (not isinstance(document["id"], str) or not document["id"]):
        errors.append("id must be a non-empty string")
    if "name" in document and (not isinstance(document["name"], str) or not document["name"]):
        errors.append("name must be a non-empty string")
    if "description" in document and not isinstance(document["description"], str):
        errors.append("description must be a string")
    if "tags" in document:
        errors += _tags(document["tags"])
    if "docs" in document:
        errors += _docs(document["docs"])
    return errors


def _format(fmt, group_format) -> list[str]:
    if fmt is None:
        return []
    if not is_valid_format_identifier(fmt):
        return [at("format", f" {show(fmt)} must be NAME/VERSION (e.g. CloudEvents/1.0)", fmt)]
    error = format_error(fmt)
    if error:
        return [at("format", error.removeprefix("format"), fmt)]
    if isinstance(group_format, str) and not same_format(fmt, group_format):
        return [at("format", f" {show(fmt)} differs from the group's format {show(group_format)}", fmt)]
    return []


def _schema(document: dict) -> list[str]:
    errors: list[str] = []
    has_schema, has_url = "schema" in document, "schemaurl" in document
    if has_schema and has_url:
        errors.append(at("schema", " and schemaurl are mutually exclusive"))
    if (has_schema or has_url) and "schemaformat" not in document:
        errors.append(at("schemaformat", f" is required with {'schema' if has_schema else 'schemaurl'}"))
    if "schemaformat" in document and not is_valid_format_identifier(document["schemaformat"]):
        errors.append(
            at("schemaformat", f" {show(document['schemaformat'])} must be NAME/VERSION (e.g. JsonSchema/draft-07)")
        )
    if has_schema and not isinstance(document["schema"], str | dict):
        errors.append(at("schema", " must be a string or an object (the schema in its schema format)"))
    if has_url:
        error = uri_reference_error(document["schemaurl"])
        if error:
            errors.append(at("schemaurl", f" {error}"))
        elif urlsplit(document["schemaurl"]).scheme.lower() not in ("", "http", "https"):
            # a link in every page that shows it: http(s) or a reference into this registry, as docs
            scheme = urlsplit(document["schemaurl"]).scheme
            errors.append(at("schemaurl", f" must use http or https or be a relative reference, not {show(scheme)}"))
    return errors


def validate_definition(document, *, group_format: str | None = None) -> list[str]:
    """Every error of a definition document, each starting with the attribute path (empty list: valid).
    `group_format`: the format of the definition group or endpoint holding it, if any. `format` is optional,
    through every door: an xRegistry 1.0 message may have neither an envelope nor a protocol, and what one
    binding accepts every binding exports and imports again (docs/xregistry-1.0.md)."""
    if not isinstance(document, dict):
        return [f"a definition must be a JSON object, not {show(document)}"]
    borrowed = "uri" in document
    errors = _shared(document)
    if borrowed:
        error = uri_reference_error(document["uri"])
        if error:
            errors.append(f"uri {error}")
    fmt = document.get("format")
    errors += _format(fmt, group_format)
    if "metadata" in document:
        known = is_valid_format_identifier(fmt) and format_error(fmt) is None
        # every error of validate_metadata starts with the path it was given: `metadata`
        errors += [
            at("metadata", e.removeprefix("metadata"), fmt) if e.startswith("metadata") else e
            for e in validate_metadata(fmt if known else None, document["metadata"])
        ]
    elif not borrowed and isinstance(fmt, str) and message_format_family(fmt)[0] == "CloudEvents":
        # the 0.5-wip schema of CloudEvents definitions requires metadata (and format)
        errors.append(
            at(
                "metadata",
                " is required for a CloudEvents definition (metadata.attributes declares at least its type)",
                fmt,
            )
        )
    return errors + _schema(document)


def validate_definition_group(attributes, *, format_required: bool = False) -> list[str]:
    """A definition group's own attributes: `format`, when given, is NAME/VERSION. `format_required`: the group is
    created or replaced through the 0.5 binding or the Message Catalog API, where the seed makes `format` REQUIRED
    (CONTRACT 18); a 1.0 message group may declare no envelope, and a document import takes such a group as it is, so
    that what one binding accepts every binding exports and imports again."""
    if not isinstance(attributes, dict):
        return [f"a definition group must be a JSON object, not {show(attributes)}"]
    fmt = attributes.get("format")
    if fmt is None:
        return [at("format", " is REQUIRED for a definition group (e.g. CloudEvents/1.0)")] if format_required else []
    if not is_valid_format_identifier(fmt):
        return [at("format", f" {show(fmt)} must be NAME/VERSION (e.g. CloudEvents/1.0)", fmt)]
    error = format_error(fmt)
    return [at("format", error.removeprefix("format"), fmt)] if error else []
