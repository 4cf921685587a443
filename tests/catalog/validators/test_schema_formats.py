"""Schema documents per format: valid, invalid, corpus documents, and bounded time on hostile input."""

import json
import time

import pytest

from catalog.validators.schemas import validate_schema
from tests.corpus import cases, documents

XSD = b'<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="a" type="xs:string"/></xs:schema>'

CASES = [
    ("JsonSchema/draft-07", json.dumps({"type": "object", "properties": {"a": {"type": "string"}}}), True),
    ("JsonSchema/draft/2020-12", json.dumps({"$defs": {"a": {"type": "integer"}}, "prefixItems": [{}]}), True),
    ("JSONSchema/Draft-07", json.dumps({"type": "string", "minLength": 1}), True),
    ("JsonSchema/draft-07", json.dumps({"type": 12}), False),
    ("JsonSchema/draft-07", "{not json", False),
    ("JsonSchema/draft-07", json.dumps({"minLength": -1}), False),
    # patterns are Python regular expressions, as jsonschema checks them (jsonschema-rs alone accepts these)
    ("JsonSchema/draft-07", json.dumps({"type": "string", "pattern": "\\p{L}+"}), False),
    ("JsonSchema/draft/2020-12", json.dumps({"patternProperties": {"(?<name>x)": {}}}), False),
    ("JsonSchema/draft-04", json.dumps({"properties": {"a": {"pattern": "[a-"}}}), False),
    ("JsonSchema/draft-07", json.dumps({"type": "string", "pattern": "(?P<name>x)"}), True),
    ("Avro/1.11.0", json.dumps({"type": "record", "name": "R", "fields": [{"name": "a", "type": "int"}]}), True),
    ("Avro/1.9", json.dumps(["null", "string"]), True),
    ("Avro/1.11", json.dumps({"type": "record", "fields": []}), False),
    ("Avro/1.11", json.dumps({"type": "enum", "name": "E", "symbols": ["A", "A"]}), False),
    ("Protobuf/3", 'syntax = "proto3"; message Ping { string id = 1; }', True),
    ("Protobuf/2", 'syntax = "proto2"; message Ping { required string id = 1; }', True),
    ("Proto/3", 'syntax = "proto3"; message Ping { string id = ; }', False),
    ("Protobuf/3", 'syntax = "proto2"; message Ping { optional string id = 1; }', False),
    ("XSD/1.1", XSD.decode(), True),
    ("XMLSchema/1.0", XSD.decode(), True),
    ("XSD/1.1", XSD.decode().replace("xs:string", "xs:nothing"), False),
    ("XSD/1.1", "<not-closed>", False),
    ("Custom/1", "anything at all", True),
]


@pytest.mark.parametrize(("fmt", "content", "valid"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_schema_formats(fmt, content, valid):
    errors = validate_schema(fmt, content.encode())
    assert (errors == []) == valid, errors
    assert all(e.startswith("schema") for e in errors)


def corpus_versions():
    for path in documents("seed-shape", "*.cereg"):
        for group in json.loads(path.read_text()).get("schemaGroups", {}).values():
            for schema in group["schemas"].values():
                for vid, version in schema["versions"].items():
                    if "schema" in version:
                        content = version["schema"]
                        data = content.encode() if isinstance(content, str) else json.dumps(content).encode()
                        yield pytest.param(
                            version.get("format") or schema.get("format"), data, id=f"{path.stem}:{schema['id']}:{vid}"
                        )


@pytest.mark.corpus
@pytest.mark.parametrize(("fmt", "content"), cases(corpus_versions))
def test_every_corpus_schema_is_valid(fmt, content):
    assert validate_schema(fmt, content) == []


def test_hostile_inputs_are_refused_in_bounded_time():
    deep = b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
        b'<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">'
        b"<xs:annotation><xs:documentation>&c;</xs:documentation></xs:annotation></xs:schema>"
    )
    big = json.dumps(
        {"type": "object", "properties": {f"p{i}": {"type": "string", "description": "x" * 240} for i in range(14_000)}}
    ).encode()
    assert 3_500_000 < len(big) < 4 * 1024 * 1024
    five_mb = big + b" " * (5_000_000 - len(big))
    for fmt, content, should_fail in (
        ("JsonSchema/draft-07", deep, True),
        ("XSD/1.1", bomb, True),
        ("JsonSchema/draft-07", big, False),
        ("Avro/1.11", deep, True),
        ("JsonSchema/draft-07", five_mb, True),
    ):
        started = time.monotonic()
        errors = validate_schema(fmt, content)
        assert bool(errors) == should_fail, errors
        assert time.monotonic() - started < 15
