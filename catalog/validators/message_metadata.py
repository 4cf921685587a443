"""A message's metadata checked against its definition's declarations (catalog.message_checks uses it).

CloudEvents attributes (the always-required ones, declared ones: required, type, a literal `value` or a URI
template `value` such as `/{tenant}/orders`), HTTP headers and query, and the properties and sections of
the Kafka, MQTT, AMQP and NATS formats. Each error goes to the report with the metadata path it names.
"""

from __future__ import annotations

import base64
import binascii
import re
from datetime import datetime
from typing import TYPE_CHECKING

from catalog.validators import linear_regex
from catalog.validators.message_formats import amqp, kafka, mqtt
from catalog.validators.message_formats.cloudevents import ALWAYS_REQUIRED, BASE_TYPES, INT32
from catalog.validators.message_formats.declarations import (
    CURRENT_TIME,
    DURATION,
    RFC3339,
    SYMBOL,
    canonical_type,
    show,
    uri_reference_error,
)
from catalog.validators.shapes import as_object

if TYPE_CHECKING:
    from catalog.message_report import Message, Report

PLACEHOLDER = re.compile(r"\{[^{}]*\}")
WHOLE_PLACEHOLDER = re.compile(r"^\{[A-Za-z0-9_.%]+\}$")


def template_matches(template: str, value: str) -> bool:
    """`value` is an expansion of the level 1 `template` (each placeholder: one or more characters but `/`).
    Matched by RE2, in time linear in the value whatever the template (issue 24)."""
    if WHOLE_PLACEHOLDER.fullmatch(template):
        return True
    pattern, index = "", 0
    for match in PLACEHOLDER.finditer(template):
        pattern += re.escape(template[index : match.start()]) + r"[^/]+"
        index = match.end()
    pattern += re.escape(template[index:])
    return linear_regex.search(f"^(?:{pattern})$", value)


def _timestamp_ok(value: str) -> bool:
    if not RFC3339.fullmatch(value):
        return False
    try:
        datetime.fromisoformat(value.upper().replace("Z", "+00:00"))
        return True
    except ValueError:
        return False


def _from_text(kind: str | None, value):
    """A header's text as the value of `kind` (binary mode and protocol headers carry text)."""
    if not isinstance(value, str):
        return value
    if kind == "integer" and re.fullmatch(r"[+-]?[0-9]+", value):
        return int(value)
    if kind == "boolean" and value in ("true", "false"):
        return value == "true"
    if kind == "number":
        try:
            return float(value)
        except ValueError:
            return value
    return value


def type_error(kind: str | None, value, *, integer_range=None) -> str | None:
    """Why a concrete `value` is not of `kind`, or None."""
    if kind in (None, "var"):
        return None
    if kind == "boolean":
        return None if isinstance(value, bool) else f"{show(value)} is not a boolean"
    if kind == "integer":
        if not isinstance(value, int) or isinstance(value, bool):
            return f"{show(value)} is not an integer"
        if integer_range and not integer_range[0] <= value <= integer_range[1]:
            return f"{value} is outside {integer_range[0]}..{integer_range[1]}"
        return None
    if kind == "number":
        return (
            None if isinstance(value, int | float) and not isinstance(value, bool) else f"{show(value)} is not a number"
        )
    if not isinstance(value, str):
        return f"{show(value)} is not a string"
    if kind == "timestamp":
        return None if _timestamp_ok(value) else f"{show(value)} is not an RFC 3339 timestamp"
    if kind == "duration":
        return None if DURATION.fullmatch(value) else f"{show(value)} is not an RFC 3339 duration"
    if kind == "uri":
        return uri_reference_error(value, absolute=True)
    if kind in ("urireference", "uritemplate"):
        return uri_reference_error(value)
    if kind == "symbol":
        return None if SYMBOL.fullmatch(value) else f"{show(value)} is not a symbol (ASCII)"
    if kind == "binary":
        try:
            base64.b64decode(value, validate=True)
            return None
        except (binascii.Error, ValueError):
            return f"{show(value)} is not base64"
    return None


def check_property(
    report: Report,
    path: str,
    declaration,
    present: bool,
    value,
    *,
    default_type: str = "string",
    required: bool = False,
    text: bool = False,
    integer_range=None,
) -> None:
    """One declared property against the message's value. `text`: the value may be a header's text form."""
    declaration = declaration if isinstance(declaration, dict) else {}
    kind = canonical_type(declaration["type"]) if "type" in declaration else default_type
    if not present:
        if required or declaration.get("required") is True:
            report.error(path, "required but missing")
        return
    if text:
        value = _from_text(kind, value)
    error = type_error(kind, value, integer_range=integer_range)
    if error:
        report.error(path, f"must be of type {kind}: {error}")
        return
    if "value" not in declaration:
        return
    expected = declaration["value"]
    if isinstance(expected, str) and isinstance(value, str):
        if kind == "timestamp" and expected == CURRENT_TIME:
            return
        if "{" in expected and PLACEHOLDER.search(expected):
            if not template_matches(expected, value):
                report.error(path, f"{show(value)} does not match the template {show(expected)}")
            return
    if text:
        expected = _from_text(kind, expected)
    if value != expected:
        report.error(path, f"must be {show(expected)}, not {show(value)}")


def check_cloudevents(doc: dict, message: Message, report: Report) -> str | None:
    """Checks of the CloudEvents attributes; the datacontenttype."""
    attributes = {}
    if message.kind == "structured":
        attributes = message.properties
    else:
        for name, value in (message.properties.get("headers") or {}).items():
            lowered = name.lower() if isinstance(name, str) else ""
            if lowered.startswith("ce-"):
                attributes[lowered[3:]] = value
            elif lowered == "content-type":
                attributes["datacontenttype"] = value
        for name in message.properties:
            if name != "headers":
                report.error(name, "not a member of a binary-mode envelope (headers, body)")
    text = message.kind != "structured"
    metadata = as_object(doc.get("metadata"))
    declared = as_object(metadata.get("attributes"))
    names = (
        list(declared)
        + [n for n in ALWAYS_REQUIRED if n not in declared]
        + [n for n in attributes if n in BASE_TYPES and n not in declared]
    )
    for name in dict.fromkeys(names):
        declaration = declared.get(name, {})
        if name == "specversion" and "value" not in (declaration if isinstance(declaration, dict) else {}):
            declaration = {**(declaration if isinstance(declaration, dict) else {}), "value": "1.0"}
        check_property(
            report,
            f"metadata.{name}",
            declaration,
            name in attributes,
            attributes.get(name),
            default_type=BASE_TYPES.get(name, "string"),
            required=name in ALWAYS_REQUIRED,
            text=text,
            integer_range=INT32,
        )
    for name in attributes:
        if not isinstance(name, str) or not re.fullmatch(r"[a-z0-9]+", name):
            report.error(f"metadata.{name}", "not a CloudEvents attribute name (lower-case letters and digits)")
    for name, reason in message.errors:
        report.error(name, reason)
    content_type = attributes.get("datacontenttype")
    return content_type if isinstance(content_type, str) else None


def check_http(metadata: dict, props: dict, report: Report) -> None:
    headers = (
        {k.lower(): v for k, v in (props.get("headers") or {}).items() if isinstance(k, str)}
        if isinstance(props.get("headers"), dict)
        else {}
    )
    for header in metadata.get("headers") or []:
        if not isinstance(header, dict) or not isinstance(header.get("name"), str):
            continue
        name = header["name"].lower()
        check_property(
            report, f"metadata.headers.{header['name']}", header, name in headers, headers.get(name), text=True
        )
    query = as_object(props.get("query"))
    for name, declaration in (metadata.get("query") or {}).items():
        declaration = declaration if isinstance(declaration, dict) else {"value": declaration, "required": True}
        check_property(report, f"metadata.query.{name}", declaration, name in query, query.get(name), text=True)
    for name in ("path", "method", "status"):
        if name in metadata:
            declaration = metadata[name]
            declaration = declaration if isinstance(declaration, dict) else {"value": declaration}
            declaration = {"required": True, **declaration}
            check_property(
                report,
                f"metadata.{name}",
                declaration,
                name in props,
                props.get(name),
                default_type="string",
                text=True,
            )


def format_types(family: str, version: str | None) -> dict:
    """The fixed types of a format's properties: {name: type} and {(section, name): type}."""
    if family == "MQTT":
        return {**mqtt.BOTH, **({} if (version or "5").startswith("3") else mqtt.V5_ONLY)}
    if family == "Kafka":
        return dict(kafka.FIELDS)
    if family == "AMQP":
        return {
            **{("properties", n): t for n, t in amqp.PROPERTIES.items()},
            **{("header", n): t for n, t in amqp.HEADER.items()},
        }
    return {}


def is_declaration(value) -> bool:
    return isinstance(value, dict) and not any(isinstance(v, dict) for v in value.values())


def check_generic(metadata: dict, props: dict, report: Report, types: dict) -> None:
    """Kafka, MQTT, AMQP, NATS: a declaration per member, or a section (map of name -> declaration).
    `types`: the format's fixed types (`format_types`); other properties default to string."""
    path = "metadata"
    for name, declaration in metadata.items():
        where = f"{path}.{name}"
        if name == "user-properties" and isinstance(declaration, list):
            given = props.get(name)
            merged = {}
            for item in given if isinstance(given, list) else [given] if isinstance(given, dict) else []:
                if isinstance(item, dict):
                    merged.update(item)
            for entry in declaration:
                if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                    entry_name, entry_decl = entry["name"], {k: v for k, v in entry.items() if k != "name"}
                elif isinstance(entry, dict) and len(entry) == 1:
                    entry_name, entry_decl = next(iter(entry.items()))
                else:
                    continue
                check_property(
                    report, f"{where}.{entry_name}", entry_decl, entry_name in merged, merged.get(entry_name), text=True
                )
            continue
        if is_declaration(declaration):
            check_property(
                report, where, declaration, name in props, props.get(name), default_type=types.get(name, "string")
            )
        elif isinstance(declaration, dict):
            section = as_object(props.get(name))
            for inner, inner_decl in declaration.items():
                check_property(
                    report,
                    f"{where}.{inner}",
                    inner_decl,
                    inner in section,
                    section.get(inner),
                    default_type=types.get((name, inner), "string"),
                    text=name == "headers",
                )
