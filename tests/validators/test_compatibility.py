"""Schema compatibility: the Apicurio corpus for JSON Schema and Avro, Protobuf pairs, and the levels.

Corpus labels: `backward` = a reader using `updated` reads data written with `original`, not the other way
round; `both` = both directions; `none` = neither. Our JSON Schema rules differ from Apicurio on the cases
in KNOWN_DIFFERENCES (see docs/schema-compatibility.md); the test pins our verdict for them, so a change of
behaviour shows up here.
"""
import json
from pathlib import Path

import pytest

from catalog.validators.compatibility import check_compatibility

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "compatibility"
EXPECTED = {"backward": (True, False), "both": (True, True), "none": (False, False)}
# case id -> (our backward verdict, our forward verdict, why we differ)
OPEN_MODEL = "open content model: a property (or item) absent from one side is not a change for data"
NOT_REASONED = "the reader adds a keyword this checker does not reason about; reported rather than guessed"
KNOWN_DIFFERENCES = {
    "Object: properties 1": (True, True, OPEN_MODEL),
    "Object: propertyNames": (False, False, NOT_REASONED),
    "Object: dependencies": (False, False, NOT_REASONED),
    "Object: patternProperties 1": (False, False, NOT_REASONED),
    "Object: schemaDependencies 2": (False, False, NOT_REASONED),
    "Array: contains": (False, False, NOT_REASONED),
    "Complex: oneOf to anyOf": (True, True, "oneOf and anyOf accept the same data when branches do not overlap"),
    "Complex: not 1": (False, False, NOT_REASONED),
    "Complex: not 2": (False, False, NOT_REASONED),
    "Conditional: then": (False, False, NOT_REASONED),
    "Conditional: else": (False, False, NOT_REASONED),
    "References: $ref compatibility": (True, True, "references are resolved, so equal schemas compare equal"),
    "References: $id compatibility": (True, True, "references are resolved, so equal schemas compare equal"),
    "Properties: type keyword from string to array compatibility 1": (True, True,
                                                                      "type 'x' and ['x'] accept the same data"),
    "Issue 4965-O2": (True, True, OPEN_MODEL),
}


def cases(name):
    tests = json.loads((CORPUS / name).read_text())["tests"]
    return [pytest.param(t, id=f"{i}:{t['id']}") for i, t in enumerate(tests) if t.get("enabled", True)]


def verdicts(fmt, test):
    original, updated = json.dumps(test["original"]).encode(), json.dumps(test["updated"]).encode()
    backward = not check_compatibility(fmt, "backward", [original], updated)
    forward = not check_compatibility(fmt, "forward", [original], updated)
    return backward, forward


@pytest.mark.parametrize("test", cases("apicurio-json-compatibility.json"))
def test_json_schema_corpus(test):
    got = verdicts("JsonSchema/draft-07", test)
    if test["id"] in KNOWN_DIFFERENCES:
        backward, forward, _why = KNOWN_DIFFERENCES[test["id"]]
        assert got == (backward, forward)
    else:
        assert got == EXPECTED[test["compatibility"]]


@pytest.mark.parametrize("test", cases("apicurio-avro-compatibility.json"))
def test_avro_corpus(test):
    assert verdicts("Avro/1.11", test) == EXPECTED[test["compatibility"]]


def record(*fields):
    return json.dumps({"type": "record", "name": "Order", "fields": list(fields)}).encode()


def test_avro_rules():
    v1 = record({"name": "id", "type": "string"}, {"name": "amount", "type": "int"})
    added_with_default = record({"name": "id", "type": "string"}, {"name": "amount", "type": "long"},
                                {"name": "note", "type": "string", "default": ""})
    added_without = record({"name": "id", "type": "string"}, {"name": "amount", "type": "int"},
                           {"name": "note", "type": "string"})
    assert check_compatibility("Avro/1.11", "backward", [v1], added_with_default) == []  # int -> long promotes
    issues = check_compatibility("Avro/1.11", "backward", [v1], added_without)
    assert issues[0].path == "Order.note" and "without a default" in issues[0].change
    narrowed = record({"name": "id", "type": "string"}, {"name": "amount", "type": "string"})
    assert "type changed" in check_compatibility("Avro/1.11", "backward", [v1], narrowed)[0].change


def proto(body):
    return f'syntax = "proto3"; {body}'.encode()


@pytest.mark.parametrize(("new", "compatible", "expected"), [
    ("message A { int32 x = 1; string s = 2; bool b = 3; }", True, None),
    ("message A { int64 x = 1; string s = 2; }", False, "type of field 1"),
    ("message A { int32 x = 1; string s = 3; }", False, "renumbered"),
    ("message A { int32 x = 1; }", False, "removed without reserving"),
    ("message A { int32 x = 1; reserved 2; }", True, None),
    ("message B { int32 x = 1; }", False, "message A removed"),
])
def test_protobuf_rules(new, compatible, expected):
    old = proto("message A { int32 x = 1; string s = 2; }")
    issues = check_compatibility("Protobuf/3", "backward", [old], proto(new))
    assert (issues == []) == compatible, issues
    if expected:
        assert any(expected in i.change for i in issues)


def test_protobuf_reserved_number_reuse_and_enum_removal():
    old = proto("message A { int32 x = 1; reserved 2; enum E { Z = 0; Y = 1; } E e = 3; }")
    new = proto("message A { int32 x = 1; string s = 2; enum E { Z = 0; } E e = 3; }")
    changes = " ".join(i.change for i in check_compatibility("Protobuf/3", "backward", [old], new))
    assert "reuses a reserved" in changes and "enum value Y = 1 removed" in changes


def schema(*required):
    return json.dumps({"type": "object", "properties": {"a": {}, "b": {}}, "required": list(required)}).encode()


def test_levels_transitive_and_directions():
    v1, v2, v3 = schema(), schema("a"), schema("a")
    assert check_compatibility("JsonSchema/draft-07", "backward", [v1, v2], v3) == []  # latest only
    assert check_compatibility("JsonSchema/draft-07", "backward_transitive", [v1, v2], v3)  # v1 lacked a
    assert check_compatibility("JsonSchema/draft-07", "forward", [v2], schema()) != []
    assert check_compatibility("JsonSchema/draft-07", "full", [v1], v2) != []
    assert check_compatibility("JsonSchema/draft-07", "none", [v1], v2) == []
    assert check_compatibility("XSD/1.1", "full_transitive", [b"<x/>"], b"<y/>") == []
    with pytest.raises(ValueError):
        check_compatibility("JsonSchema/draft-07", "sideways", [v1], v2)
