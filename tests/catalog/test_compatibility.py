"""check_compatibility: the Apicurio corpus (JSON Schema and Avro), Protobuf pairs, levels and transitivity.

Corpus labels (corpus README): `backward` = a reader using `updated` reads data written with `original`, not
the other way round, so `backward` is [] and `forward` is not; `both` = both directions are []; `none` =
neither is. Cases with `enabled: false` are skipped. Where our rules deliberately differ, the case id is in
KNOWN_DIFFERENCES with our verdict, so a change of behaviour fails here (docs/schema-compatibility.md).
"""

import json

import pytest

from catalog.validators.compatibility import LEVELS, Incompatibility, check_compatibility
from tests.corpus import cases, corpus

EXPECTED = {"backward": (True, False), "both": (True, True), "none": (False, False)}
OPEN_MODEL = (
    "open content model: a property the writer's schema does not declare is assumed not to be "
    "written, so removing a property (or a dependency's property schema) is compatible both ways"
)
# case id -> ((our backward verdict, our forward verdict), why)
KNOWN_DIFFERENCES = {
    "Object: properties 1": ((True, True), OPEN_MODEL),
    "Object: schemaDependencies 1": ((True, True), OPEN_MODEL),
    "Issue 4965-O2": ((True, True), OPEN_MODEL),
}
JSON_FORMAT, AVRO_FORMAT, PROTO_FORMAT = "JsonSchema/draft-07", "Avro/1.11", "Protobuf/3"


def load_cases(name):
    return json.loads(corpus("compatibility", name).read_text())["tests"]


def params(name):
    return cases(
        lambda: [pytest.param(t, id=f"{i}:{t['id']}") for i, t in enumerate(load_cases(name)) if t.get("enabled", True)]
    )


def verdicts(fmt, test):
    original = json.dumps(test["original"]).encode()
    updated = json.dumps(test["updated"]).encode()
    backward = check_compatibility(fmt, "backward", [original], updated)
    forward = check_compatibility(fmt, "forward", [original], updated)
    full = check_compatibility(fmt, "full", [original], updated)
    assert (full == []) == (backward == [] and forward == [])
    assert all(isinstance(i, Incompatibility) and i.path and i.change and i.reason for i in backward + forward)
    return backward == [], forward == []


@pytest.mark.corpus
@pytest.mark.parametrize("test", params("apicurio-json-compatibility.json"))
def test_apicurio_json_schema(test):
    got = verdicts(JSON_FORMAT, test)
    if test["id"] in KNOWN_DIFFERENCES:
        ours, _why = KNOWN_DIFFERENCES[test["id"]]
        assert got == ours and got != EXPECTED[test["compatibility"]]
    else:
        assert got == EXPECTED[test["compatibility"]]


@pytest.mark.corpus
@pytest.mark.parametrize("test", params("apicurio-avro-compatibility.json"))
def test_apicurio_avro(test):
    assert verdicts(AVRO_FORMAT, test) == EXPECTED[test["compatibility"]]


def test_corpus_counts_and_known_differences_exist():
    json_cases = load_cases("apicurio-json-compatibility.json")
    assert len(json_cases) == 145 and len(load_cases("apicurio-avro-compatibility.json")) >= 4
    assert set(KNOWN_DIFFERENCES) <= {t["id"] for t in json_cases if t.get("enabled", True)}


# -- Avro ------------------------------------------------------------------------------------------------------


def record(*fields, name="Order"):
    return json.dumps({"type": "record", "name": name, "namespace": "shop", "fields": list(fields)}).encode()


ID = {"name": "id", "type": "string"}
AMOUNT = {"name": "amount", "type": "int"}


def test_avro_field_added_without_default():
    issues = check_compatibility(AVRO_FORMAT, "backward", [record(ID)], record(ID, AMOUNT))
    assert [i.as_dict() for i in issues] == [
        {
            "path": "Order.fields.amount",
            "change": "field 'amount' added without a default",
            "reason": "a reader using the new schema cannot read data written without 'amount'",
        }
    ]
    assert check_compatibility(AVRO_FORMAT, "forward", [record(ID)], record(ID, AMOUNT)) == []
    with_default = record(ID, {**AMOUNT, "default": 0})
    assert check_compatibility(AVRO_FORMAT, "full", [record(ID)], with_default) == []


@pytest.mark.parametrize(
    ("old", "new", "backward", "forward"),
    [
        ("int", "long", True, False),  # promotion int -> long; long data is not readable as int
        ("float", "double", True, False),
        ("string", "bytes", True, True),
        ("int", "string", False, False),
        ("int", ["null", "int"], True, False),  # a union reader picks its int branch; null data has no int reader
        (["null", "int"], ["null", "long"], True, False),
        ({"type": "array", "items": "int"}, {"type": "array", "items": "long"}, True, False),
        ({"type": "map", "values": "string"}, {"type": "map", "values": "int"}, False, False),
        ({"type": "fixed", "name": "F", "size": 4}, {"type": "fixed", "name": "F", "size": 8}, False, False),
        (
            {"type": "enum", "name": "E", "symbols": ["A", "B"]},
            {"type": "enum", "name": "E", "symbols": ["A"]},
            False,
            True,
        ),
        (
            {"type": "enum", "name": "E", "symbols": ["A", "B"]},
            {"type": "enum", "name": "E", "symbols": ["A"], "default": "A"},
            True,
            True,
        ),
        ({"type": "int", "logicalType": "date"}, "int", True, True),
    ],
)
def test_avro_field_type_resolution(old, new, backward, forward):
    before, after = record(ID, {"name": "v", "type": old}), record(ID, {"name": "v", "type": new})
    assert (check_compatibility(AVRO_FORMAT, "backward", [before], after) == []) == backward
    assert (check_compatibility(AVRO_FORMAT, "forward", [before], after) == []) == forward


def test_avro_names_aliases_and_recursion():
    renamed = record(ID, name="Purchase")
    assert "renamed" in check_compatibility(AVRO_FORMAT, "backward", [record(ID)], renamed)[0].change
    aliased = json.dumps(
        {
            "type": "record",
            "name": "Purchase",
            "aliases": ["Order"],
            "fields": [{"name": "ident", "aliases": ["id"], "type": "string"}],
        }
    ).encode()
    assert check_compatibility(AVRO_FORMAT, "backward", [record(ID)], aliased) == []

    def tree(*extra):
        return json.dumps(
            {
                "type": "record",
                "name": "Node",
                "fields": [{"name": "kids", "type": {"type": "array", "items": "Node"}}, *extra],
            }
        ).encode()

    assert check_compatibility(AVRO_FORMAT, "full", [tree()], tree({"name": "v", "type": "int", "default": 0})) == []
    issue = check_compatibility(AVRO_FORMAT, "backward", [tree()], tree({"name": "v", "type": "int"}))[0]
    assert issue.path == "Node.fields.v"


# -- Protobuf -------------------------------------------------------------------------------------------------

BASE = """syntax = "proto3"; package shop;
message Order { string id = 1; int32 qty = 2; Status status = 3; oneof pay { string card = 4; } }
enum Status { UNKNOWN = 0; OPEN = 1; CLOSED = 2; }"""


@pytest.mark.parametrize(
    ("new", "backward", "forward", "expected"),
    [
        (BASE.replace("oneof pay {", "bool gift = 5; oneof pay {"), True, True, None),  # field added
        (BASE.replace("CLOSED = 2;", "CLOSED = 2; VOID = 3;"), True, True, None),  # enum value added
        (BASE.replace("string id = 1", "string ident = 1"), True, True, None),  # rename: wire compatible
        (BASE.replace("Status status", "shop.Status status"), True, True, None),  # same type, qualified
        (BASE.replace("int32 qty = 2;", 'reserved 2; reserved "qty";'), True, True, None),
        (BASE.replace("string card = 4; }", "string card = 4; string iban = 6; }"), True, True, None),
        (BASE.replace("int32 qty", "int64 qty"), True, False, "type of field 2 changed from int32 to int64"),
        (BASE.replace("string id", "bytes id"), True, False, "from string to bytes"),
        (BASE.replace("string id", "int64 id"), False, False, "from string to int64"),
        (BASE.replace("int32 qty", "sint32 qty"), False, False, "from int32 to sint32"),
        (BASE.replace("int32 qty", "uint32 qty"), False, False, "from int32 to uint32"),
        (BASE.replace("int32 qty = 2", "int32 qty = 7"), False, False, "renumbered from 2 to 7"),
        (BASE.replace("int32 qty = 2;", ""), False, False, "removed without reserving"),
        (BASE.replace("int32 qty = 2;", "repeated int32 qty = 2;"), False, False, "repeated and singular"),
        (BASE.replace(" CLOSED = 2;", ""), False, False, "enum value CLOSED = 2 removed"),
        (BASE.replace(" CLOSED = 2;", " reserved 2;"), False, True, "enum value CLOSED = 2 removed"),
        (BASE.replace("message Order", "message Purchase"), False, True, "message shop.Order removed or renamed"),
        (
            BASE.replace(
                "int32 qty = 2; Status status = 3; oneof pay { string card = 4; }",
                "oneof pay { int32 qty = 2; string card = 4; } Status status = 3;",
            ),
            False,
            True,
            "joined oneof",
        ),
        (BASE.replace("oneof pay { string card = 4; }", "string card = 4;"), True, True, None),  # lone member
    ],
)
def test_protobuf_pairs(new, backward, forward, expected):
    old = BASE.encode()
    back = check_compatibility(PROTO_FORMAT, "backward", [old], new.encode())
    fwd = check_compatibility(PROTO_FORMAT, "forward", [old], new.encode())
    assert (back == [], fwd == []) == (backward, forward), back + fwd
    if expected:
        assert any(expected in i.change for i in back + fwd), back + fwd


def test_protobuf_reserved_reuse_and_proto2_required():
    old = b'syntax = "proto2"; message A { required int32 x = 1; optional int32 y = 2; reserved 9, 20 to max; }'
    new = (
        b'syntax = "proto2"; message A { optional int32 x = 1; required int32 y = 2; required int32 z = 3; '
        b"optional int32 w = 9; optional int32 big = 100; }"
    )
    back = {i.change for i in check_compatibility("Protobuf/2", "backward", [old], new)}
    fwd = {i.change for i in check_compatibility("Protobuf/2", "forward", [old], new)}
    assert back == {
        "field 2 became required",
        "required field 'z' = 3 added",
        "field 'w' = 9 reuses a reserved number or name",
        "field 'big' = 100 reuses a reserved number or name",
    }
    assert fwd == {
        "field 1 is no longer required",
        "field 'w' = 9 reuses a reserved number or name",
        "field 'big' = 100 reuses a reserved number or name",
    }


# -- levels -------------------------------------------------------------------------------------------------


def obj(*required, closed=False):
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
        "required": list(required),
    }
    if closed:
        schema["additionalProperties"] = False
    return json.dumps(schema).encode()


def test_levels_constants():
    assert LEVELS == (
        "none",
        "backward",
        "backward_transitive",
        "forward",
        "forward_transitive",
        "full",
        "full_transitive",
    )
    with pytest.raises(ValueError):
        check_compatibility(JSON_FORMAT, "sideways", [obj()], obj())


def test_transitive_levels_compare_with_every_earlier_version():
    v1, v2, v3 = obj(), obj("a"), obj("a")  # v2 made 'a' required, which v1's data may lack
    assert check_compatibility(JSON_FORMAT, "backward", [v1, v2], v3) == []
    found = check_compatibility(JSON_FORMAT, "backward_transitive", [v1, v2], v3)
    assert [i.path for i in found] == ["properties.a"] and "earlier version 1 of 2" in found[0].reason
    assert check_compatibility(JSON_FORMAT, "forward", [v1, v2], v3) == []
    assert check_compatibility(JSON_FORMAT, "forward_transitive", [v1, v2], v3) == []
    assert check_compatibility(JSON_FORMAT, "full", [v1, v2], v3) == []
    assert check_compatibility(JSON_FORMAT, "full_transitive", [v1, v2], v3)
    assert check_compatibility(JSON_FORMAT, "none", [v1, v2], obj(closed=True)) == []


def test_forward_and_full_directions():
    old, new = obj("a"), obj()
    assert check_compatibility(JSON_FORMAT, "backward", [old], new) == []
    forward = check_compatibility(JSON_FORMAT, "forward", [old], new)
    assert forward[0].reason.startswith("a reader using the old schema")
    assert check_compatibility(JSON_FORMAT, "full", [old], new) == forward


def test_other_formats_and_unparseable_versions():
    assert check_compatibility("XSD/1.1", "full_transitive", [b"<x/>"], b"<y/>") == []
    assert check_compatibility("Custom/1", "backward", [b"a"], b"b") == []
    assert check_compatibility(None, "backward", [b"a"], b"b") == []
    assert check_compatibility(JSON_FORMAT, "backward_transitive", [b"{broken", obj()], obj()) == []
    assert check_compatibility(AVRO_FORMAT, "backward_transitive", [b"[]x", record(ID)], record(ID)) == []
    assert check_compatibility(PROTO_FORMAT, "backward_transitive", [b"message {", BASE.encode()], BASE.encode()) == []
    assert check_compatibility(JSON_FORMAT, "backward", [], obj("a")) == []


def test_json_schema_references_and_recursion():
    def tree(*required):
        return json.dumps(
            {
                "$ref": "#/definitions/node",
                "definitions": {
                    "node": {
                        "type": "object",
                        "required": list(required),
                        "properties": {
                            "v": {"type": "integer"},
                            "kids": {"type": "array", "items": {"$ref": "#/definitions/node"}},
                        },
                    }
                },
            }
        ).encode()

    assert check_compatibility(JSON_FORMAT, "full", [tree()], tree()) == []
    issues = check_compatibility(JSON_FORMAT, "backward", [tree()], tree("v"))
    assert [i.path for i in issues] == ["properties.v"]


def test_large_json_schemas_compare_quickly(settings):
    """The algorithm's speed on 10,000 properties, apart from the check budget (tests/catalog/test_check_budgets.py):
    near the default budget of 1 s of CPU on a loaded machine, which then refused it."""
    import time

    settings.REGISTRY_CHECK_SECONDS = 30

    def big(limit):
        return json.dumps(
            {"type": "object", "properties": {f"p{i}": {"type": "string", "maxLength": limit} for i in range(10_000)}}
        ).encode()

    started = time.monotonic()
    assert len(check_compatibility(JSON_FORMAT, "full", [big(10)], big(5))) == 10_000
    assert time.monotonic() - started < 10
