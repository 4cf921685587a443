"""Property declarations shared by every message format: `required`, `description`, `value`, `type`, `specurl`.

A declaration is `{"type": T, "value": V, "required": bool, "description": str, "specurl": uri}`; the type
names are those of the spec (CloudEvents types plus `var`, `symbol`, `duration`, `uritemplate`, ...).
"""
from __future__ import annotations

import re
from datetime import datetime

from ..uritemplate import level1_error

TYPES = {"var", "boolean", "string", "symbol", "binary", "timestamp", "duration", "uritemplate", "uri",
         "urireference", "number", "integer"}
# spellings found in real documents and in the CloudEvents type system, folded to the spec's names
TYPE_ALIASES = {"datetime": "timestamp", "uri-reference": "urireference", "bool": "boolean", "int": "integer"}
DECLARATION_KEYS = {"type", "value", "required", "description", "specurl"}
# The text says letters, digits and '_', but its own AMQP example declares content-type "application/json" as a
# symbol; symbols are read as printable ASCII (as the 0.5-wip metadataPropertySymbol pattern, erratum \x20).
SYMBOL = re.compile(r"^[\x20-\x7E]*$")
DURATION = re.compile(r"^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$")
PLACEHOLDER_TYPES = {"string", "uritemplate", "symbol", "uri", "urireference"}


def canonical_type(value) -> str | None:
    if not isinstance(value, str):
        return None
    lowered = value.lower()
    lowered = TYPE_ALIASES.get(lowered, lowered)
    return lowered if lowered in TYPES else None


def _timestamp_ok(value: str) -> bool:
    if value == "01-01-0000T00:00:00Z":  # the spec's "current time" marker
        return True
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
        return "T" in value or "t" in value
    except ValueError:
        return False


def value_error(kind: str, value) -> str | None:
    """Why `value` is not a value of the declared type, or None."""
    if kind == "var":
        return None
    if kind == "boolean":
        return None if isinstance(value, bool) else "must be a boolean"
    if kind == "integer":
        return None if isinstance(value, int) and not isinstance(value, bool) else "must be an integer"
    if kind == "number":
        return None if isinstance(value, int | float) and not isinstance(value, bool) else "must be a number"
    if not isinstance(value, str):
        return "must be a string"
    if kind == "uritemplate":
        error = level1_error(value)
        return f"{value!r} is not an RFC 6570 level 1 template: {error}" if error else None
    if kind == "symbol" and "{" not in value and not SYMBOL.match(value):
        return f"{value!r} is not a symbol (printable ASCII)"
    if kind == "timestamp" and not _timestamp_ok(value):
        return f"{value!r} is not an RFC 3339 timestamp"
    if kind == "duration" and not DURATION.match(value):
        return f"{value!r} is not an RFC 3339 duration"
    if kind in PLACEHOLDER_TYPES and "{" in value:
        error = level1_error(value)
        if error:
            return f"{value!r}: placeholders must be RFC 6570 level 1: {error}"
    return None


def check_declaration(path: str, declaration, default_type: str = "string", allowed_types=None) -> list[str]:
    """Errors of one property declaration at `path` (e.g. `metadata.attributes.type`)."""
    if not isinstance(declaration, dict):
        return [f"{path} must be an object (a property declaration)"]
    errors = []
    for key in declaration:
        if key not in DECLARATION_KEYS:
            errors.append(f"{path}.{key} is not a property of a declaration "
                          f"(allowed: {', '.join(sorted(DECLARATION_KEYS))})")
    kind = default_type
    if "type" in declaration:
        kind = canonical_type(declaration["type"])
        if kind is None:
            errors.append(f"{path}.type {declaration['type']!r} is not a known type ({', '.join(sorted(TYPES))})")
            return errors
        if allowed_types is not None and kind not in allowed_types:
            errors.append(f"{path}.type must be one of {', '.join(sorted(allowed_types))}, not {declaration['type']!r}")
    if "required" in declaration and not isinstance(declaration["required"], bool):
        errors.append(f"{path}.required must be a boolean")
    if "description" in declaration and (not isinstance(declaration["description"], str) or not declaration["description"]):
        errors.append(f"{path}.description must be a non-empty string")
    if "specurl" in declaration and not isinstance(declaration["specurl"], str):
        errors.append(f"{path}.specurl must be a URI-reference string")
    if "value" in declaration and kind is not None:
        error = value_error(kind, declaration["value"])
        if error:
            errors.append(f"{path}.value {error}")
    return errors


def check_map(path: str, mapping, name_check=None, types: dict | None = None, known_only: bool = False) -> list[str]:
    """A map of property name -> declaration; `types` gives default types of known names."""
    if not isinstance(mapping, dict):
        return [f"{path} must be an object"]
    errors = []
    types = types or {}
    for name, declaration in mapping.items():
        if name_check is not None:
            problem = name_check(name)
            if problem:
                errors.append(f"{path}.{name}: {problem}")
                continue
        if known_only and name not in types:
            errors.append(f"{path}.{name} is not a known property (known: {', '.join(sorted(types))})")
            continue
        errors += check_declaration(f"{path}.{name}", declaration, types.get(name, "string"))
    return errors
