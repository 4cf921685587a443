"""The checks every message format's metadata shares: declarations (`{"type", "value", "required", ...}`), their
types and values, URI templates and references, timestamps and durations (each format's own rules are its module's
in this package)."""

from __future__ import annotations

import re
from datetime import datetime
from urllib.parse import urlsplit

from ..uritemplate import level1_error

TYPES = (
    "var",
    "boolean",
    "string",
    "symbol",
    "binary",
    "timestamp",
    "duration",
    "uritemplate",
    "uri",
    "urireference",
    "number",
    "integer",
)
# spellings of real documents (`datetime` in the seed corpus) and of the CloudEvents spec (`URI-reference`)
TYPE_ALIASES = {"datetime": "timestamp", "uri-reference": "urireference"}
# types whose JSON value is a string: a fixed property of one of them may be declared as any other of them
STRINGISH = frozenset({"string", "symbol", "uritemplate", "uri", "urireference", "binary"})
DECLARATION_KEYS = ("type", "value", "required", "description", "specurl")
VARNAME = re.compile(r"^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$")
BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
# The text says "alphanumerical characters and underscores", but its own AMQP example declares the symbol
# content-type "application/json": read as the 0.5-wip metadataPropertySymbol pattern, erratum \x32 -> \x20.
SYMBOL = re.compile(r"^[\x20-\x7F]*$")
RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
CURRENT_TIME = "01-01-0000T00:00:00Z"  # the spec's marker for "the time of sending"
# RFC 3339 Appendix A: "P" (dur-date / dur-time / dur-week); no fractions, no skipped units
_TIME = r"T(?:\d+H(?:\d+M(?:\d+S)?)?|\d+M(?:\d+S)?|\d+S)"
DURATION = re.compile(rf"^P(?:(?:\d+D|\d+M(?:\d+D)?|\d+Y(?:\d+M(?:\d+D)?)?)(?:{_TIME})?|{_TIME}|\d+W)$")
URI_CHARS = re.compile(r"^[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*$")


def show(value) -> str:
    """A short rendering of a value for an error message (never the repr of a container)."""
    if isinstance(value, str):
        return repr(value if len(value) <= 80 else value[:77] + "...")
    if value is None or isinstance(value, bool | int | float):
        return repr(value)
    return "an array" if isinstance(value, list) else "an object" if isinstance(value, dict) else type(value).__name__


def key(name) -> str:
    """A map key as a path segment (bounded length; non-string keys of Python callers shown with str())."""
    text = name if isinstance(name, str) else str(name)
    return text if len(text) <= 100 else text[:97] + "..."


def placeholders_error(value: str) -> str | None:
    """Placeholders in a string-like value: every `{...}` must be a level 1 expression (`{name}`)."""
    index = 0
    while True:
        start, close = value.find("{", index), value.find("}", index)
        if start < 0:
            return None if close < 0 else f"unmatched '}}' at position {close}"
        if 0 <= close < start:
            return f"unmatched '}}' at position {close}"
        end = value.find("}", start)
        if end < 0:
            return f"unclosed '{{' at position {start}"
        if not VARNAME.fullmatch(value[start + 1 : end]):
            return f"'{value[start : end + 1][:40]}' is not a level 1 placeholder ({{name}}: letters, digits, '_', '.')"
        index = end + 1


def template_error(value: str) -> str | None:
    """Why `value` is not an RFC 6570 level 1 URI template, or None."""
    error = level1_error(value)
    if error is None and BAD_PERCENT.search(re.sub(r"\{[^}]*\}", "", value)):
        error = "'%' must start a percent-encoding (%XX)"
    return error


def literal_parts(value: str) -> str:
    """`value` without its `{name}` placeholders (for checks of the literal characters)."""
    return re.sub(r"\{[^{}]*\}", "", value)


def uri_reference_error(value, *, absolute: bool = False) -> str | None:
    """Why `value` is not a non-empty RFC 3986 URI-reference (an absolute URI when `absolute`), or None."""
    if not isinstance(value, str) or not value:
        return "must be a non-empty string"
    if not URI_CHARS.fullmatch(value) or BAD_PERCENT.search(value):
        return f"{show(value)} has characters a URI cannot hold (RFC 3986; percent-encode them)"
    if value.count("#") > 1:
        return f"{show(value)} has more than one '#'"
    head = re.split(r"[/?#]", value, maxsplit=1)[0]
    if ":" in head and not SCHEME.fullmatch(head.split(":", 1)[0]):
        return f"{show(value)} has an invalid scheme (or a ':' in its first path segment)"
    if absolute and ":" not in head:
        return f"{show(value)} is not an absolute URI (no scheme)"
    try:
        parts = urlsplit(value)
        _port = parts.port
    except ValueError as exc:
        return f"{show(value)} is not a URI-reference: {exc}"
    if any(value.count(c) != parts.netloc.count(c) for c in "[]"):
        return f"{show(value)}: '[' and ']' are only allowed around an IP literal host"
    return None


# a value that is one placeholder, filled when the message is made (`"time": {"value": "{entrytime}"}`, as in the
# documents of the xRegistry code generator's authors)
WHOLE_PLACEHOLDER = re.compile(r"^\{[A-Za-z0-9_.]+\}$")


def timestamp_error(value: str) -> str | None:
    if value == CURRENT_TIME or WHOLE_PLACEHOLDER.fullmatch(value):
        return None
    if RFC3339.fullmatch(value):
        try:
            datetime.fromisoformat(value.upper().replace("Z", "+00:00"))
            return None
        except ValueError:
            pass
    return f"{show(value)} is not an RFC 3339 timestamp"


def canonical_type(value) -> str | None:
    """The spec's name of a declared type (case-insensitive, aliases folded), None when unknown."""
    if not isinstance(value, str):
        return None
    lowered = TYPE_ALIASES.get(value.lower(), value.lower())
    return lowered if lowered in TYPES else None


def value_error(kind: str, value) -> str | None:
    """Why `value` is not a value of the type `kind` (placeholders allowed in string-like types), or None."""
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
        error = template_error(value)
        return f"{show(value)} is not an RFC 6570 level 1 template: {error}" if error else None
    if kind == "timestamp":
        return timestamp_error(value)
    if kind == "duration":
        return None if DURATION.fullmatch(value) else f"{show(value)} is not an RFC 3339 duration"
    error = placeholders_error(value)
    if error:
        return f"{show(value)}: {error}"
    if kind == "symbol" and not SYMBOL.fullmatch(value):
        return f"{show(value)} is not a symbol (ASCII characters 0x20-0x7F)"
    if kind in ("uri", "urireference"):
        if "{" in value:
            error = template_error(value)
            return f"{show(value)} is not an RFC 6570 level 1 template: {error}" if error else None
        return uri_reference_error(value, absolute=kind == "uri")
    return None


def declared_type(declaration: dict, default: str) -> str | None:
    """The type a declaration's value has (its own `type` or the default), None when `type` is unknown."""
    return canonical_type(declaration["type"]) if "type" in declaration else default


def check_declaration(
    path: str, declaration, default_type: str = "string", *, fixed: bool = False, extra_keys: tuple = ()
) -> list[str]:
    """Errors of one declaration at `path`. `fixed`: the property's type is fixed by its format (a declared
    `type` must be `default_type`, or another string-like type when that one is string-like)."""
    if not isinstance(declaration, dict):
        return [f"{path} must be an object (a property declaration)"]
    errors = []
    for name in declaration:
        if name not in DECLARATION_KEYS and name not in extra_keys:
            errors.append(
                f"{path}.{key(name)} is not a member of a property declaration "
                f"({', '.join(DECLARATION_KEYS + extra_keys)})"
            )
    kind = declared_type(declaration, default_type)
    if kind is None:
        errors.append(f"{path}.type {show(declaration['type'])} is not a type of the spec ({', '.join(TYPES)})")
    elif fixed and kind != default_type and not (kind in STRINGISH and default_type in STRINGISH):
        errors.append(f"{path}.type must be {default_type}, not {show(declaration['type'])}")
    if "required" in declaration and not isinstance(declaration["required"], bool):
        errors.append(f"{path}.required must be a boolean")
    description = declaration.get("description")
    if "description" in declaration and (not isinstance(description, str) or not description):
        errors.append(f"{path}.description must be a non-empty string")
    if "specurl" in declaration:
        error = uri_reference_error(declaration["specurl"])
        if error:
            errors.append(f"{path}.specurl {error}")
    if "value" in declaration and kind is not None:
        error = value_error(kind, declaration["value"])
        if error:
            errors.append(f"{path}.value{'' if error.startswith('must') else ':'} {error}")
    return errors


def value_of(declaration, kind: str):
    """The declared value when it has type `kind` (for range checks), else None."""
    if isinstance(declaration, dict) and "value" in declaration and value_error(kind, declaration["value"]) is None:
        return declaration["value"]
    return None


def check_range(path: str, declaration, low: int, high: int) -> list[str]:
    """An integer property's declared value lies within [low, high]."""
    value = value_of(declaration, "integer")
    if value is not None and not low <= value <= high:
        if high - low <= 2:
            choices = [str(n) for n in range(low, high + 1)]
            return [f"{path}.value must be {', '.join(choices[:-1])} or {choices[-1]}"]
        return [f"{path}.value must be between {low} and {high}, not {value}"]
    return []


def check_declarations(
    path: str, mapping, *, types: dict | None = None, known_only: bool = False, name_error=None
) -> list[str]:
    """A map name -> declaration. `types`: the fixed type of each known name; `known_only`: no other names;
    `name_error(name)`: why a custom name is not allowed, or None."""
    if not isinstance(mapping, dict):
        return [f"{path} must be an object (a map of property declarations)"]
    errors = []
    types = types or {}
    for name, declaration in mapping.items():
        where = f"{path}.{key(name)}"
        if name in types:
            errors += check_declaration(where, declaration, types[name], fixed=True)
            continue
        if known_only:
            errors.append(f"{where} is not a known property of this section ({', '.join(types)})")
            continue
        problem = (
            "names must be non-empty strings"
            if not isinstance(name, str) or not name
            else (name_error(name) if name_error else None)
        )
        if problem:
            errors.append(f"{where}: {problem}")
            continue
        errors += check_declaration(where, declaration)
    return errors


def unknown_keys(metadata: dict, known, what: str) -> list[str]:
    return [f"metadata.{key(name)} is not {what} ({', '.join(known)})" for name in metadata if name not in known]


# Versions each format defines; None: any version (HTTP "is common across all versions", Kafka's number is
# the last record-structure change, NATS follows its clients).
