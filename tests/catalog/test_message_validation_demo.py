"""Checks before shipping over the whole demo registry (issue 15): for each demo definition, a message built from
the definition itself validates, and a message with one attribute or one data field wrong names exactly that.

Parametrized at collection time over catalog/demo/*.cereg (definitionGroups -> definitions). Each test imports
only the demo file that holds its definition (the messages' schemas are all inside that file), then posts to
`POST /definitionGroups/G/definitions/D/validate`:
1. a matching message: metadata from the declared attributes/properties (a literal `value` as is, a template
   filled with a safe word, a typed attribute given a value of its type), data built from the schema the server
   resolves (JSON Schema: a minimal instance; Avro: a minimal record in the JSON form; Protobuf: the empty message,
   all defaults; XSD: a minimal instance of the root element, simple values picked by the XSD's own types);
2. one metadata attribute wrong (a declared value replaced; a required attribute removed): exactly one error,
   naming it;
3. one data field of the wrong type (JSON Schema, Avro, XSD with a typed element): errors naming that field only.
The anonymous client posts (checking is read only and open to anyone; creating a superuser per test costs its
password hash). Sparkplug's Protobuf schema is outside the registry (data not checked, a note); its STATE
definitions name an in-registry JSON Schema with a JSON pointer after `:` (the subschema is checked).
"""

from __future__ import annotations

import base64
import copy
import json
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest

from catalog.message_checks import Report, message_name, resolve_schema
from catalog.validators.format_names import message_format_family, schema_format_family
from catalog.validators.message_formats.cloudevents import ALWAYS_REQUIRED, BASE_TYPES
from catalog.validators.message_formats.declarations import canonical_type
from registry.documents.formats import parse_document
from registry.documents.imports import import_document
from registry.services import WriteContext

DEMO = Path(__file__).resolve().parents[2] / "catalog" / "demo"
STRUCTURED = "application/cloudevents+json"
WORD = "demo"
PLACEHOLDER = re.compile(r"\{[^{}]*\}")
TYPED_VALUES = {
    "timestamp": "2024-05-01T10:00:00Z",
    "uri": "https://example.com/x",
    "urireference": "/x",
    "uritemplate": "/x",
    "integer": 1,
    "number": 1,
    "boolean": True,
    "binary": "eA==",
    "duration": "PT1S",
    "symbol": "x",
    "string": "x",
}


def _demo_definitions():
    for path in sorted(DEMO.glob("*.cereg")):
        document = json.loads(path.read_text())
        for gid, group in (document.get("definitionGroups") or {}).items():
            for did, definition in (group.get("definitions") or {}).items():
                yield pytest.param(path.name, gid, did, definition, id=f"{gid}/{did}")


DEFINITIONS = list(_demo_definitions())


# --- metadata ---------------------------------------------------------------------------------------------------


def fill(template: str) -> str:
    return PLACEHOLDER.sub(WORD, template)


def value_for(declaration, default_type: str = "string"):
    """A value matching one declared attribute/property."""
    declaration = declaration if isinstance(declaration, dict) else {"value": declaration}
    if "value" in declaration:
        value = declaration["value"]
        return fill(value) if isinstance(value, str) else value
    kind = canonical_type(declaration.get("type")) or default_type
    return TYPED_VALUES.get(kind, "x")


def cloudevent_attributes(definition: dict) -> dict:
    declared = (definition.get("metadata") or {}).get("attributes") or {}
    attributes = {"specversion": "1.0", "id": "demo-1", "source": "/x", "type": "x"}
    for name, declaration in declared.items():
        attributes[name] = value_for(declaration, BASE_TYPES.get(name, "string"))
    return attributes


def envelope_properties(definition: dict, family: str) -> dict:
    """The protocol properties (MQTT, Kafka ...) the validator reads from an application/json envelope."""
    from catalog.validators.message_metadata import format_types, is_declaration

    types = format_types(family, None)
    props = {}
    for name, declaration in (definition.get("metadata") or {}).items():
        if is_declaration(declaration):
            props[name] = value_for(declaration, types.get(name, "string"))
        elif isinstance(declaration, dict):
            props[name] = {inner: value_for(d, types.get((name, inner), "string")) for inner, d in declaration.items()}
    return props


# --- data -------------------------------------------------------------------------------------------------------


def json_instance(schema, root=None):
    """A minimal instance of a (demo-sized) JSON Schema: required properties only, first enum/const value."""
    root = schema if root is None else root
    if not isinstance(schema, dict):
        return None
    if "$ref" in schema:
        target = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            target = target[part]
        return json_instance({**target, **{k: v for k, v in schema.items() if k != "$ref"}}, root)
    if "allOf" in schema:
        out = None
        for part in schema["allOf"]:
            value = json_instance(part, root)
            out = {**(out or {}), **value} if isinstance(value, dict) and isinstance(out, dict | None) else value
        return _apply_consts(schema["allOf"], out, root)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return json_instance(schema[key][0], root)
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind is None and "properties" in schema:
        kind = "object"
    if kind == "object":
        props = schema.get("properties") or {}
        return {name: json_instance(props.get(name, {}), root) for name in schema.get("required") or []}
    if kind == "array":
        return [json_instance(schema.get("items") or {}, root) for _ in range(schema.get("minItems", 0))]
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    fmt = schema.get("format")
    text = {
        "email": "a@example.com",
        "date-time": "2024-05-01T10:00:00Z",
        "date": "2024-05-01",
        "uri": "https://example.com/x",
        "uuid": "00000000-0000-0000-0000-000000000000",
    }.get(fmt, "x")
    return text * max(1, -(-schema.get("minLength", 1) // len(text)))


def _apply_consts(parts, value, root):
    """allOf parts that only pin a property (`{"properties": {"online": {"const": false}}}`)."""
    if isinstance(value, dict):
        for part in parts:
            for name, sub in ((part or {}).get("properties") or {}).items():
                if isinstance(sub, dict) and "const" in sub and name in value:
                    value[name] = sub["const"]
    return value


def json_property_types(schema, root=None) -> dict:
    """{property: declared type} of an object schema (through $ref and allOf)."""
    root = schema if root is None else root
    out = {}
    if not isinstance(schema, dict):
        return out
    if "$ref" in schema:
        target = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            target = target[part]
        out.update(json_property_types(target, root))
    for part in schema.get("allOf") or []:
        out.update(json_property_types(part, root))
    for name, sub in (schema.get("properties") or {}).items():
        if isinstance(sub, dict) and isinstance(sub.get("type"), str):
            out.setdefault(name, sub["type"])
    return out


def avro_instance(schema, named=None):
    """A minimal value of an Avro schema in the JSON form (unions unwrapped: their first branch)."""
    named = {} if named is None else named
    if isinstance(schema, str):
        if schema in named:
            return avro_instance(named[schema], named)
        return {
            "null": None,
            "boolean": False,
            "int": 0,
            "long": 0,
            "float": 0.0,
            "double": 0.0,
            "string": "x",
            "bytes": "x",
        }[schema]
    if isinstance(schema, list):
        return avro_instance(schema[0], named)
    kind = schema["type"]
    if kind in ("record", "enum", "fixed", "error"):
        named[schema["name"]] = schema
        if schema.get("namespace"):
            named[f"{schema['namespace']}.{schema['name']}"] = schema
    if kind in ("record", "error"):
        return {f["name"]: avro_instance(f["type"], named) for f in schema["fields"]}
    if kind == "enum":
        return schema["symbols"][0]
    if kind == "array":
        return []
    if kind == "map":
        return {}
    if kind == "fixed":
        return "\x00" * schema["size"]
    return avro_instance(kind, named)


def xml_instance(content: bytes, version) -> tuple[str, str | None]:
    """(a minimal XML instance of the XSD's first global element, the XPath of a child element that a
    non-numeric text makes invalid, or None)."""
    import xmlschema

    cls = xmlschema.XMLSchema11 if str(version or "").startswith("1.1") else xmlschema.XMLSchema10
    schema = cls(content.decode())
    element = next(iter(schema.elements.values()))
    wrong = []

    def simple(xsd_type) -> str:
        candidates = [
            *(getattr(xsd_type, "enumeration", None) or []),
            "x",
            "0",
            "1",
            "false",
            "2024-05-01T10:00:00Z",
            "2024-05-01",
            "PT1S",
        ]
        return next(str(c) for c in candidates if xsd_type.is_valid(str(c)))

    def build(elem, path: str) -> ElementTree.Element:
        node = ElementTree.Element(elem.name)
        xsd_type = elem.type
        if xsd_type.is_simple():
            node.text = simple(xsd_type)
            if not wrong and not xsd_type.is_valid("not-a-number"):
                wrong.append(path)
            return node
        if xsd_type.has_simple_content():
            node.text = simple(xsd_type.content)
        for child in xsd_type.content.iter_elements():
            if child.min_occurs:
                node.append(build(child, f"{path}/{child.name}"))
        return node

    root = build(element, f"/{element.name}")
    return ElementTree.tostring(root, encoding="unicode"), (wrong[0] if wrong else None)


def wrong_property(definition: dict, message: dict) -> tuple[dict, str]:
    """The envelope with one declared property wrong (a section's first entry, else the first property), and
    its path: a literal or templated string value changed, a whole-placeholder value given a number."""
    metadata = definition["metadata"]
    section = next(
        (n for n, d in metadata.items() if isinstance(d, dict) and all(isinstance(v, dict) for v in d.values())), None
    )
    names = [section, next(iter(metadata[section]))] if section else [next(iter(metadata))]
    declaration = metadata[names[0]] if len(names) == 1 else metadata[names[0]][names[1]]
    declared = declaration.get("value")
    if isinstance(declared, str):
        wrong = 7 if re.fullmatch(r"\{[^{}]*\}", declared) else "x" + fill(declared)
    else:
        wrong = "x"
    out = copy.deepcopy(message)
    (out[names[0]] if len(names) == 2 else out)[names[-1]] = wrong
    return out, "metadata." + ".".join(names)


# --- posting ----------------------------------------------------------------------------------------------------


def post(client, gid: str, did: str, message: dict, structured: bool) -> dict:
    response = client.generic(
        "POST",
        f"/definitionGroups/{gid}/definitions/{did}/validate",
        json.dumps(message),
        content_type=STRUCTURED if structured else "application/json",
    )
    assert response.status_code == 200, response.content
    return response.json()


def with_data(message: dict, structured: bool, data=None, data_base64=None) -> dict:
    message = copy.deepcopy(message)
    if structured:
        message["data" if data_base64 is None else "data_base64"] = data if data_base64 is None else data_base64
    else:
        message["body"] = data if data_base64 is None else data_base64
    return message


@pytest.mark.parametrize(("filename", "gid", "did", "definition"), DEFINITIONS)
def test_demo_definition_matching_and_one_wrong(anon, filename, gid, did, definition):
    import_document(WriteContext(user="demo"), parse_document((DEMO / filename).read_bytes(), yaml_format=False))
    family, _ = message_format_family(definition.get("format"))
    structured = family == "CloudEvents"
    base = cloudevent_attributes(definition) if structured else envelope_properties(definition, family)

    # the data, from the schema the server itself resolves (a `:Message` suffix: the Protobuf message)
    report = Report()
    fmt, content = resolve_schema(definition, "", report)
    schema_family, schema_version = schema_format_family(fmt)
    wrong_field = None  # (message with one data field wrong, the path expected)
    if content is None:
        # a schema outside this registry (Sparkplug's .proto on GitHub): data not checked, a note says so
        assert report.notes and "outside this registry" in report.notes[0], report
        message = with_data(base, structured, data_base64="")
    elif schema_family == "JsonSchema":
        root = json.loads(content)
        schema = root
        pointer = message_name(definition)  # Sparkplug's STATE definitions: `...versions/v1.0:messages/STATEDeath`
        for part in (pointer or "").split("/") if pointer else []:
            schema = schema[part]
        data = json_instance(schema, root)
        message = with_data(base, structured, data)
        types = json_property_types(schema, root)
        if types:
            name, kind = next(iter(types.items()))
            wrong = "x" if kind != "string" else 12345
            wrong_field = (with_data(base, structured, {**data, name: wrong}), f"data.{name}")
    elif schema_family == "Avro":
        schema = json.loads(content)
        data = avro_instance(schema)
        message = with_data(base, structured, data)
        first = schema["fields"][0]
        wrong = "x" if first["type"] in ("int", "long", "float", "double", "boolean") else 12345
        wrong_field = (with_data(base, structured, {**data, first["name"]: wrong}), f"data.{first['name']}")
    elif schema_family == "Protobuf":
        # the empty message (every field its default, zero bytes): the Protobuf checks proper are in
        # test_message_validation_formats.py
        message = with_data(base, structured, data_base64=base64.b64encode(b"").decode())
    else:
        assert schema_family == "XSD", fmt
        text, wrong_path = xml_instance(content, schema_version)
        message = with_data(base, structured, text)
        if wrong_path:
            tree = ElementTree.fromstring(text)
            tree.find("." + wrong_path[wrong_path.index("/", 1) :]).text = "not-a-number"
            wrong_field = (
                with_data(base, structured, ElementTree.tostring(tree, encoding="unicode")),
                f"data{wrong_path}",
            )

    # 1. the matching message
    body = post(anon, gid, did, message, structured)
    assert body["valid"] is True, json.dumps({"message": message, "verdict": body}, indent=1)
    assert body["errors"] == []
    if content is not None:
        assert not any(n.startswith("data not checked") for n in body.get("notes", [])), body

    # 2. one metadata attribute wrong: a declared value replaced, then a required attribute removed
    if structured:
        wrong_value, path = {**message, "type": "Not." + message["type"]}, "metadata.type"
    else:
        wrong_value, path = wrong_property(definition, message)
    body = post(anon, gid, did, wrong_value, structured)
    assert body["valid"] is False
    assert [e["path"] for e in body["errors"]] == [path], body
    if structured:
        declared = (definition.get("metadata") or {}).get("attributes") or {}
        missing = next(
            (
                n
                for n, d in declared.items()
                if isinstance(d, dict) and d.get("required") is True and n not in ALWAYS_REQUIRED
            ),
            "id",
        )
        body = post(anon, gid, did, {k: v for k, v in message.items() if k != missing}, structured)
        assert body["valid"] is False
        assert body["errors"] == [{"path": f"metadata.{missing}", "reason": "required but missing"}], body

    # 3. one data field of the wrong type
    if wrong_field is not None:
        wrong_message, path = wrong_field
        body = post(anon, gid, did, wrong_message, structured)
        assert body["valid"] is False, body
        paths = {e["path"] for e in body["errors"]}
        assert paths == {path}, body


def test_every_demo_definition_is_covered():
    families = {}
    for param in DEFINITIONS:
        definition = param.values[3]
        key = (message_format_family(definition.get("format"))[0], definition.get("schemaformat", "").split("/")[0])
        families[key] = families.get(key, 0) + 1
    assert len(DEFINITIONS) == 62, families
