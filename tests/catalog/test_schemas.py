"""validate_schema and parse_json_limited: valid and invalid documents per format, every schema version of the
seed-shape corpus, and hostile input (5 MB, 10,000-deep JSON, billion laughs) refused in bounded time."""

import json
import time

import pytest

from catalog.validators.schemas import DEFAULT_MAX_BYTES, validate_schema
from registry.domain.json_text import parse_json_limited
from tests.corpus import cases, documents

XSD = '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="a" type="xs:string"/></xs:schema>'
XSD11 = (
    '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:complexType name="T"><xs:sequence>'
    '<xs:element name="v" type="xs:int"/></xs:sequence><xs:assert test="v gt 0"/></xs:complexType></xs:schema>'
)
RECORD = {"type": "record", "name": "R", "namespace": "x", "fields": [{"name": "a", "type": "int"}]}

CASES = [
    # JSON Schema: draft from the format version, else $schema, else draft-07
    ("JsonSchema/draft-07", json.dumps({"type": "object", "properties": {"a": {"type": "string"}}}), None),
    ("JSONSchema/Draft-07", json.dumps({"type": "string", "minLength": 1}), None),
    ("JsonSchema/draft/2020-12", json.dumps({"$defs": {"a": {"type": "integer"}}, "prefixItems": [{}]}), None),
    ("JsonSchema/2019-09", json.dumps({"$defs": {"a": {"type": "integer"}}, "dependentRequired": {"a": ["b"]}}), None),
    (
        "JsonSchema",
        json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema", "minLength": -1}),
        "not valid JSON Schema 2020-12",
    ),
    ("JsonSchema/draft-07", json.dumps(True), None),
    ("JsonSchema/draft-07", json.dumps({"properties": {"x": {"type": "strin"}}}), "(at properties.x.type)"),
    ("JsonSchema/draft-07", json.dumps({"type": 12}), "not valid JSON Schema draft-07"),
    ("JsonSchema/draft-07", json.dumps({"minLength": -1}), "minLength"),
    ("JsonSchema/draft-07", json.dumps([1, 2]), "object or a boolean"),
    ("JsonSchema/draft-07", "{not json", "not valid JSON"),
    ("JsonSchema/draft-07", "\udcff", "UTF-8"),
    # Avro
    ("Avro/1.11.0", json.dumps(RECORD), None),
    ("Avro/1.9", json.dumps(["null", "string", RECORD]), None),
    ("Avro/1.11", json.dumps({"type": "record", "fields": []}), "not a valid Avro schema"),
    ("Avro/1.11", json.dumps({"type": "enum", "name": "E", "symbols": ["A", "A"]}), "not a valid Avro schema"),
    ("Avro/1.11", json.dumps({"type": "record", "name": "R", "fields": [{"name": "a", "type": "Nope"}]}), "Nope"),
    ("Avro/1.11", "protocol P { record R { int a; } }", "must be JSON"),
    # Protobuf
    ("Protobuf/3", 'syntax = "proto3"; message Ping { string id = 1; map<string, int32> m = 2; }', None),
    ("Protobuf/2", 'syntax = "proto2"; message Ping { required string id = 1; }', None),
    ("Proto/3", 'syntax = "proto3";\nmessage Ping {\n  string id = ;\n}', "line 3"),
    ("Protobuf/3", 'syntax = "proto2"; message Ping { optional string id = 1; }', "declares syntax"),
    ("Protobuf/3", "message {", "not a valid Protobuf schema"),
    # XSD
    ("XSD/1.1", XSD, None),
    ("XSD", XSD11, None),
    ("XMLSchema/1.0", XSD, None),
    ("XSD/1.0", XSD11, "XML Schema 1.0"),
    ("XSD/1.1", XSD.replace("xs:string", "xs:nothing"), "not a valid XML Schema 1.1"),
    ("XSD/1.1", "<not-closed>", "not a valid XML Schema"),
    # unknown formats are stored unvalidated
    ("Custom/1", "anything at all", None),
    (None, "anything at all", None),
]


@pytest.mark.parametrize(("fmt", "content", "error"), CASES, ids=[f"{i}-{c[0]}" for i, c in enumerate(CASES)])
def test_schema_formats(fmt, content, error):
    data = content.encode("utf-8", "surrogateescape")
    errors = validate_schema(fmt, data)
    if error is None:
        assert errors == []
    else:
        assert len(errors) == 1 and error in errors[0], errors
        assert errors[0].startswith("schema")


def seed_versions():
    for path in documents("seed-shape", "*.cereg"):
        for group in json.loads(path.read_text()).get("schemaGroups", {}).values():
            for schema in group.get("schemas", {}).values():
                for vid, version in schema.get("versions", {}).items():
                    if "schema" in version:
                        content = version["schema"]
                        data = content.encode() if isinstance(content, str) else json.dumps(content).encode()
                        yield pytest.param(
                            version.get("format") or schema.get("format"),
                            data,
                            id=f"{path.stem}:{schema.get('id')}:{vid}",
                        )


SEED_VERSIONS = cases(seed_versions)


@pytest.mark.corpus
def test_seed_corpus_is_present():
    formats = {p.values[0].split("/")[0].lower() for p in SEED_VERSIONS}
    assert {"jsonschema", "avro", "protobuf", "xmlschema"} <= formats


@pytest.mark.corpus
@pytest.mark.parametrize(("fmt", "content"), SEED_VERSIONS)
def test_every_seed_schema_version_is_valid(fmt, content):
    assert validate_schema(fmt, content) == []


def timed(fmt, content, **kwargs):
    started = time.monotonic()
    errors = validate_schema(fmt, content, **kwargs)
    return errors, time.monotonic() - started


def big_json_schema(size: int) -> bytes:
    count = size // 280
    doc = json.dumps(
        {"type": "object", "properties": {f"p{i}": {"type": "string", "description": "x" * 240} for i in range(count)}}
    ).encode()
    return doc + b" " * (size - len(doc))


def test_five_megabytes_refused_by_default_and_accepted_under_a_larger_limit():
    doc = big_json_schema(5 * 1024 * 1024)
    errors, seconds = timed("JsonSchema/draft-07", doc)
    assert DEFAULT_MAX_BYTES < len(doc) and "more than the" in errors[0] and seconds < 1
    errors, seconds = timed("JsonSchema/draft-07", doc, max_bytes=6 * 1024 * 1024)
    assert errors == [] and seconds < 30
    assert "more than the 100 bytes" in validate_schema("Avro/1.11", b" " * 101, max_bytes=100)[0]


@pytest.mark.parametrize("fmt", ["JsonSchema/draft-07", "JsonSchema/2020-12", "Avro/1.11"])
def test_deeply_nested_json_is_refused_before_parsing(fmt):
    deep = b'{"a": ' + b"[" * 10_000 + b"]" * 10_000 + b"}"
    errors, seconds = timed(fmt, deep)
    assert "nested deeper than 256 levels" in errors[0] and seconds < 2


def test_nesting_within_the_limit_still_reaches_the_library():
    nested = {"type": "object"}
    for _ in range(100):
        nested = {"type": "object", "properties": {"a": nested}}
    assert validate_schema("JsonSchema/draft-07", json.dumps(nested).encode()) == []


def test_billion_laughs_is_refused():
    entities = '<!ENTITY a "aaaaaaaaaa">' + "".join(
        f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(9)
    )
    bomb = (
        f'<?xml version="1.0"?><!DOCTYPE l [{entities}]><xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">'
        "<xs:annotation><xs:documentation>&j;</xs:documentation></xs:annotation></xs:schema>"
    ).encode()
    for fmt in ("XSD/1.1", "XSD/1.0"):
        errors, seconds = timed(fmt, bomb)
        assert errors and errors[0].startswith("schema: not a valid XML Schema") and seconds < 5


def test_deep_xml_and_remote_imports_stay_local():
    deep = (
        b'<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:annotation><xs:documentation>'
        + b"<a>" * 20_000
        + b"</a>" * 20_000
        + b"</xs:documentation></xs:annotation></xs:schema>"
    )
    errors, seconds = timed("XSD/1.1", deep)
    assert errors and seconds < 5
    remote = (
        b'<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:import namespace="urn:x" '
        b'schemaLocation="http://192.0.2.1/x.xsd"/><xs:element name="a" type="xs:string"/></xs:schema>'
    )
    errors, seconds = timed("XSD/1.1", remote)
    assert errors == [] and seconds < 2  # the import is not fetched (192.0.2.1 would hang)


def test_parse_json_limited():
    assert parse_json_limited(b'{"a": [1, {"b": "[[[["}]}') == {"a": [1, {"b": "[[[["}]}
    assert parse_json_limited("\ufeff[1]".encode()) == [1]
    assert parse_json_limited(b"[" * 256 + b"]" * 256, max_depth=256)
    with pytest.raises(ValueError, match="nested deeper than 256"):
        parse_json_limited(b"[" * 257 + b"]" * 257)
    with pytest.raises(ValueError, match="nested deeper than 3"):
        parse_json_limited(b'{"a": {"b": {"c": []}}}', max_depth=3)
    assert parse_json_limited(b'["\\\\", "\\"[[[["]', max_depth=1) == ["\\", '"[[[[']
    with pytest.raises(ValueError, match="not valid JSON"):
        parse_json_limited(b"{")
    with pytest.raises(ValueError, match="UTF-8"):
        parse_json_limited(b"\xff\xfe")
