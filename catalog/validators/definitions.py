"""Message definitions and definition groups (spec: "Message Definitions Registry").

A definition is a JSON object: `format` (NAME/VERSION, the group's format), `metadata` (checked by the
format's validator), `schemaformat`, and `schema` or `schemaurl` (mutually exclusive; `schemaformat`
required with either), plus the shared attributes `id`, `name`, `description`, `tags`, `docs`.
"""
from __future__ import annotations

import re
from urllib.parse import urlsplit

from .format_names import is_valid_format_identifier, same_format
from .message_formats import validate_metadata

KNOWN = ("id", "name", "description", "tags", "docs", "format", "metadata", "schemaformat", "schema", "schemaurl",
         "uri")
TAG_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9\-_.]{0,62}$")


def _uri_reference_error(value) -> str | None:
    if not isinstance(value, str) or not value:
        return "must be a non-empty URI-reference"
    if any(c in value for c in ' "<>\\^`{|}') and not value.startswith("#"):
        return f"{value!r} is not a URI-reference"
    try:
        urlsplit(value)
    except ValueError as exc:
        return f"{value!r} is not a URI-reference: {exc}"
    return None


def _shared(document: dict) -> list[str]:
    errors = []
    for key in ("name", "description"):
        if key in document and not isinstance(document[key], str):
            errors.append(f"{key} must be a string")
    if "id" in document and (not isinstance(document["id"], str) or not document["id"]):
        errors.append("id must be a non-empty string")
    if "docs" in document:
        error = _uri_reference_error(document["docs"])
        if error:
            errors.append(f"docs {error}")
        elif urlsplit(document["docs"]).scheme not in ("", "http", "https"):
            errors.append("docs must use http or https")
    tags = document.get("tags")
    if tags is not None:
        if not isinstance(tags, dict):
            errors.append("tags must be a map of string to string")
        else:
            errors += [f"tags.{k}: tag names are 1-63 letters, digits, '-', '_' or '.'" for k in tags
                       if not TAG_KEY.match(k)]
            errors += [f"tags.{k} must be a string" for k, v in tags.items() if not isinstance(v, str)]
    lowered = {k.lower(): k for k in KNOWN}
    for key in document:
        if key not in KNOWN and key.lower() in lowered:
            errors.append(f"{key} differs from the attribute {lowered[key.lower()]} only by case")
    return errors


def validate_definition(document, *, group_format: str | None = None) -> list[str]:
    """Every error of a definition, each starting with the attribute path."""
    if not isinstance(document, dict):
        return ["a definition must be a JSON object"]
    errors = _shared(document)
    if "uri" in document:  # borrowed from another group: the referenced definition holds the rest
        error = _uri_reference_error(document["uri"])
        fmt = document.get("format")
        if error:
            errors.append(f"uri {error}")
        elif fmt is not None and group_format is not None and not same_format(fmt, group_format):
            errors.append(f"format {fmt!r} differs from the group's format {group_format!r}")
        return errors
    fmt = document.get("format")
    if fmt is None:
        errors.append("format is required")
    elif not is_valid_format_identifier(fmt):
        errors.append(f"format {fmt!r} must be NAME/VERSION (e.g. CloudEvents/1.0)")
    elif group_format is not None and not same_format(fmt, group_format):
        errors.append(f"format {fmt!r} differs from the group's format {group_format!r}")
    if "metadata" in document:
        errors += validate_metadata(fmt if isinstance(fmt, str) else None, document["metadata"])
    has_schema, has_url = "schema" in document, "schemaurl" in document
    if has_schema and has_url:
        errors.append("schema and schemaurl are mutually exclusive")
    if (has_schema or has_url) and "schemaformat" not in document:
        errors.append(f"schemaformat is required with {'schema' if has_schema else 'schemaurl'}")
    if "schemaformat" in document and not is_valid_format_identifier(document["schemaformat"]):
        errors.append(f"schemaformat {document['schemaformat']!r} must be NAME/VERSION (e.g. JsonSchema/draft-07)")
    if has_schema and not isinstance(document["schema"], str | dict | list):
        errors.append("schema must be a string or a JSON value of the schema format")
    if has_url:
        error = _uri_reference_error(document["schemaurl"])
        if error:
            errors.append(f"schemaurl {error}")
    return errors


def validate_definition_group(attributes) -> list[str]:
    """A definition group's own attributes: `format` is required and NAME/VERSION."""
    if not isinstance(attributes, dict):
        return ["a definition group must be an object"]
    fmt = attributes.get("format")
    if fmt is None:
        return ["format is required (NAME/VERSION, e.g. CloudEvents/1.0)"]
    if not is_valid_format_identifier(fmt):
        return [f"format {fmt!r} must be NAME/VERSION (e.g. CloudEvents/1.0)"]
    return []
