"""A skeleton message for a definition: what the admin's "Validate a message" form starts from, so that a user
edits a message of the right shape instead of typing one from nothing (issue 26).

`skeleton(doc, base_url)` builds, from the definition's metadata and schema (catalog.message_checks reads them the
same way):
- CloudEvents: a structured event with `specversion`, `id`, `source`, `type`, every declared attribute that is
  required or has a `value` (the declared value, a template's placeholders filled with their names, else a
  sample of its type), and `data` shaped by the schema;
- HTTP: an envelope with the declared `method`, `path`, headers and query; Kafka, MQTT, AMQP, NATS: an envelope
  with the declared properties and sections; the payload as `body`.

Data samples (JSON Schema, Avro) follow `const`, `default`, `examples`, `enum`, then the type: an object holds
every property, an array one item, a string a sample of its `format`. Protobuf data is `data_base64` of the empty
message; XSD data is the first element the schema declares, empty. The walk is bounded (depth and size), a skeleton is never large.
"""

from __future__ import annotations

import base64
import json
import re
import uuid

from django.utils import timezone

from catalog.message_checks import message_name, resolve_schema
from catalog.message_report import Report
from catalog.validators.format_names import message_format_family, schema_format_family
from catalog.validators.message_formats.cloudevents import ALWAYS_REQUIRED, BASE_TYPES
from catalog.validators.message_formats.declarations import CURRENT_TIME, canonical_type
from catalog.validators.message_metadata import PLACEHOLDER, format_types
from catalog.validators.shapes import as_array, as_object

MAX_DEPTH = 6
MAX_MEMBERS = 50  # properties of an object, fields of a record


def _now() -> str:
    return timezone.now().strftime("%Y-%m-%dT%H:%M:%SZ")


def _type_sample(kind: str | None):
    return {
        "integer": 0,
        "number": 0,
        "boolean": False,
        "timestamp": _now(),
        "duration": "PT1M",
        "uri": "https://example.com/",
        "urireference": "/example",
        "uritemplate": "/example",
        "binary": "",
    }.get(kind or "string", "string")


def _declared(declaration, kind: str | None):
    """The value a message carries for a declaration: its `value` (the time of sending for the spec's marker; a
    template's placeholders filled with their names, `/erp/tenantid/...`), else a sample of its type."""
    declaration = declaration if isinstance(declaration, dict) else {"value": declaration}
    kind = canonical_type(declaration.get("type")) if "type" in declaration else kind
    if "value" not in declaration:
        return _type_sample(kind)
    value = declaration["value"]
    if value == CURRENT_TIME:
        return _now()
    if isinstance(value, str) and PLACEHOLDER.search(value):
        value = PLACEHOLDER.sub(lambda m: re.sub(r"[^A-Za-z0-9_.~-]", "", m.group(0)) or "value", value)
        return base64.b64encode(value.encode()).decode() if kind == "binary" else value
    return value


def _wanted(declaration) -> bool:
    return not isinstance(declaration, dict) or declaration.get("required") is True or "value" in declaration


def skeleton(doc: dict, base_url: str) -> dict:
    family, _version = message_format_family(doc.get("format") if isinstance(doc.get("format"), str) else None)
    metadata = as_object(doc.get("metadata"))
    data, data_member = _data(doc, base_url)
    if family == "CloudEvents" or family is None:
        declared = as_object(metadata.get("attributes"))
        event = {}
        for name in dict.fromkeys([*ALWAYS_REQUIRED, *declared]):
            declaration = declared.get(name, {})
            if name in ALWAYS_REQUIRED or _wanted(declaration):
                event[name] = _declared(declaration, BASE_TYPES.get(name, "string"))
        for name, default in (("specversion", "1.0"), ("id", str(uuid.uuid4()))):
            declaration = declared.get(name)
            if not (isinstance(declaration, dict) and "value" in declaration):
                event[name] = default
        if data_member is not None:
            if data_member == "data" and "datacontenttype" not in event:
                event["datacontenttype"] = "application/xml" if isinstance(data, str) else "application/json"
            event[data_member] = data
        return event
    envelope: dict = {}
    if family == "HTTP":
        for name in ("method", "path"):
            if name in metadata:
                envelope[name] = _declared(metadata[name], "string")
        headers = as_array(metadata.get("headers"))
        envelope["headers"] = {
            h["name"]: _declared(h, "string") for h in headers if isinstance(h, dict) and isinstance(h.get("name"), str)
        }
        query = as_object(metadata.get("query"))
        if query:
            envelope["query"] = {name: _declared(d, "string") for name, d in query.items()}
    else:
        types = format_types(family, _version)
        for name, declaration in metadata.items():
            if name == "user-properties" and isinstance(declaration, list):
                envelope[name] = [
                    {e["name"]: _declared(e, "string")}
                    for e in declaration
                    if isinstance(e, dict) and isinstance(e.get("name"), str)
                ]
            elif isinstance(declaration, dict) and any(isinstance(v, dict) for v in declaration.values()):
                envelope[name] = {
                    inner: _declared(d, types.get((name, inner), "string"))
                    for inner, d in declaration.items()
                    if _wanted(d)
                }
            elif _wanted(declaration):
                envelope[name] = _declared(declaration, types.get(name, "string"))
    envelope["body"] = data if data_member == "data" else ""
    return envelope


def _data(doc: dict, base_url: str):
    """(sample, member) of the message's data: member "data", "data_base64", or None when nothing is declared."""
    if "schema" not in doc and "schemaurl" not in doc:
        return None, None
    fmt, content = resolve_schema(doc, base_url, Report())
    family, _version = schema_format_family(fmt)
    if content is None:
        return {}, "data"
    if family == "Protobuf":
        return "", "data_base64"  # the empty message: every proto3 field at its default
    if family == "XSD":  # the first element the schema declares, empty: its content is the user's to write
        element = re.search(rb"<(?:\w+:)?element\b[^>]*\bname=[\"']([\w.\-]+)[\"']", content)
        return (f"<{element.group(1).decode()}/>" if element else "<root/>"), "data"
    if family not in ("JsonSchema", "Avro"):
        return None, None
    try:
        schema = json.loads(content)
    except ValueError:
        return {}, "data"
    if family == "Avro":
        return _avro(schema, {}, 0), "data"
    name = message_name(doc)
    target = (_pointer(schema, name) if name else None) or schema
    return _json(target, schema, 0), "data"


def _pointer(root, pointer: str):
    node = root
    for part in pointer.lstrip("#").strip("/").split("/"):
        if not isinstance(node, dict):
            return None
        part = part.replace("~1", "/").replace("~0", "~")
        node = node.get(part) or (node.get("definitions") or {}).get(part) or (node.get("$defs") or {}).get(part)
    return node if isinstance(node, dict) else None


def _json(node, root, depth: int):
    if not isinstance(node, dict) or depth > MAX_DEPTH:
        return None
    for key in ("const", "default"):
        if key in node:
            return node[key]
    if isinstance(node.get("enum"), list) and node["enum"]:
        return node["enum"][0]
    builds = node.get("type") in ("object", "array") or isinstance(node.get("properties"), dict)
    if not builds and isinstance(node.get("examples"), list) and node["examples"]:
        return node["examples"][0]  # a scalar's example (an object's may leave out what it requires)
    if isinstance(node.get("$ref"), str) and node["$ref"].startswith("#"):
        return _json(_pointer(root, node["$ref"]), root, depth + 1)
    for key in ("oneOf", "anyOf"):
        if isinstance(node.get(key), list) and node[key]:
            return _json(node[key][0], root, depth + 1)
    if isinstance(node.get("allOf"), list):
        merged = {}
        for part in node["allOf"]:
            sample = _json(part, root, depth + 1)
            if isinstance(sample, dict):
                merged.update(sample)
        if merged:
            return merged
    kind = node.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None and isinstance(node.get("properties"), dict):
        kind = "object"
    if kind == "object":
        properties = as_object(node.get("properties"))
        return {name: _json(sub, root, depth + 1) for name, sub in list(properties.items())[:MAX_MEMBERS]}
    if kind == "array":
        item = _json(node.get("items"), root, depth + 1) if isinstance(node.get("items"), dict) else None
        return [] if item is None else [item]
    if kind in ("integer", "number"):
        return node.get("minimum", 0) if isinstance(node.get("minimum"), int | float) else 0
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return _string(node.get("format"))


def _string(fmt) -> str:
    return {
        "date-time": _now(),
        "date": _now()[:10],
        "time": _now()[11:],
        "email": "user@example.com",
        "uri": "https://example.com/",
        "uuid": str(uuid.uuid4()),
        "hostname": "example.com",
        "ipv4": "192.0.2.1",
    }.get(fmt, "string")


AVRO_PRIMITIVES = {
    "null": None,
    "boolean": False,
    "int": 0,
    "long": 0,
    "float": 0.0,
    "double": 0.0,
    "bytes": "",
    "string": "string",
}


def _avro(node, named: dict, depth: int):
    if depth > MAX_DEPTH:
        return None
    if isinstance(node, str):
        return AVRO_PRIMITIVES[node] if node in AVRO_PRIMITIVES else _avro(named.get(node), named, depth + 1)
    if isinstance(node, list):  # a union: its first branch that is not null
        branch = next((b for b in node if b != "null"), "null")
        return _avro(branch, named, depth + 1)
    if not isinstance(node, dict):
        return None
    kind = node.get("type")
    if isinstance(node.get("name"), str) and kind in ("record", "enum", "fixed"):
        named[node["name"]] = node
        if isinstance(node.get("namespace"), str):
            named[f"{node['namespace']}.{node['name']}"] = node
    if kind == "record":
        fields = as_array(node.get("fields"))
        return {
            f["name"]: f["default"] if "default" in f else _avro(f.get("type"), named, depth + 1)
            for f in fields[:MAX_MEMBERS]
            if isinstance(f, dict) and isinstance(f.get("name"), str)
        }
    if kind == "enum":
        symbols = node.get("symbols") or []
        return symbols[0] if symbols else ""
    if kind == "array":
        return []
    if kind == "map":
        return {}
    if kind == "fixed":
        return "\u0000" * int(node.get("size") or 0)
    return _avro(kind, named, depth + 1)
