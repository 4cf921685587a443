"""docs/api-contract.md section 12: the compatibility dry run (`POST .../schemas/S/compatibility`) agrees with a real POST
of the same version, writes nothing and emits nothing; the diff of two versions lists the semantic changes
(JSON Schema, Avro, Protobuf) marked per direction, a line diff for other formats; 404s and 400s are problems."""

from __future__ import annotations

import json

import pytest

from tests.corpus import corpus
from tests.helpers import assert_problem, make_group, post_schema, send, snapshot

JSON = "application/json"
PROTO = "text/plain; charset=utf-8"
JS_FORMAT, AVRO_FORMAT, PROTO_FORMAT = "JsonSchema/draft-07", "Avro/1.11.0", "Protobuf/3"


def js(properties: dict, required=()) -> bytes:
    return json.dumps(
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": properties,
            "required": list(required),
        }
    ).encode()


def avro(*fields) -> bytes:
    return json.dumps({"type": "record", "name": "Order", "namespace": "com.example", "fields": list(fields)}).encode()


def proto(body: str) -> bytes:
    return f'syntax = "proto3";\npackage shop;\nmessage Order {{\n{body}\n}}\n'.encode()


JS_V1 = js({"id": {"type": "string"}, "amount": {"type": "number"}}, ["id"])
JS_OK = js({"id": {"type": "string"}, "amount": {"type": "number"}, "note": {"type": "string"}}, ["id"])
JS_BAD = js({"id": {"type": "integer"}, "amount": {"type": "number"}}, ["id", "amount"])
AVRO_V1 = avro({"name": "id", "type": "string"}, {"name": "amount", "type": "int"})
AVRO_OK = avro(
    {"name": "id", "type": "string"},
    {"name": "amount", "type": "long"},
    {"name": "note", "type": "string", "default": ""},
)
AVRO_BAD = avro({"name": "id", "type": "string"}, {"name": "amount", "type": "int"}, {"name": "note", "type": "string"})
PROTO_V1 = proto("  string id = 1;\n  int32 amount = 2;")
PROTO_OK = proto("  string id = 1;\n  int32 amount = 2;\n  string note = 3;")
PROTO_BAD = proto("  string id = 1;\n  string amount = 2;")

CASES = {
    "json": (JS_FORMAT, JSON, JS_V1, JS_OK, JS_BAD),
    "avro": (AVRO_FORMAT, JSON, AVRO_V1, AVRO_OK, AVRO_BAD),
    "proto": (PROTO_FORMAT, PROTO, PROTO_V1, PROTO_OK, PROTO_BAD),
}
URL = "/schemaGroups/g1/schemas/s1"


def dry_run(client, body, content_type, **attrs):
    return send(client, "POST", f"{URL}/compatibility", body, content_type, **attrs)


@pytest.fixture
def schema(su):
    make_group(su)

    def create(fmt, content_type, first):
        post_schema(su, body=first, content_type=content_type, fmt=fmt)

    return create


@pytest.mark.parametrize("case", sorted(CASES))
def test_dry_run_agrees_with_the_post_when_compatible(su, schema, case):
    fmt, content_type, first, ok, _bad = CASES[case]
    schema(fmt, content_type, first)
    before = snapshot()
    response = dry_run(su, ok, content_type)
    assert response.status_code == 200, response.content
    assert response.json() == {
        "compatible": True,
        "level": "backward_transitive",
        "against": ["1"],
        "incompatibilities": [],
    }
    assert snapshot() == before
    assert send(su, "POST", URL, ok, content_type).status_code == 201


@pytest.mark.parametrize("case", sorted(CASES))
def test_dry_run_agrees_with_the_post_when_incompatible(su, schema, case):
    fmt, content_type, first, _ok, bad = CASES[case]
    schema(fmt, content_type, first)
    before = snapshot()
    response = dry_run(su, bad, content_type)
    assert response.status_code == 200, response.content
    verdict = response.json()
    assert verdict["compatible"] is False and verdict["against"] == ["1"]
    assert verdict["incompatibilities"]
    for issue in verdict["incompatibilities"]:
        assert set(issue) == {"path", "change", "reason", "version", "versions"} and issue["versions"] == ["1"]
    assert snapshot() == before
    assert_problem(send(su, "POST", URL, bad, content_type), 409)
    assert snapshot() == before


def test_dry_run_names_each_earlier_version_and_follows_the_level(su, schema):
    schema(JS_FORMAT, JSON, JS_V1)
    send(su, "POST", URL, JS_OK, JSON)
    bad = js({"id": {"type": "integer"}}, ["id"])
    verdict = dry_run(su, bad, JSON).json()
    assert verdict["against"] == ["1", "2"] and not verdict["compatible"]
    # one entry per incompatibility, naming every version it breaks
    assert [i["versions"] for i in verdict["incompatibilities"]] == [["1", "2"]] * len(verdict["incompatibilities"])
    assert {i["version"] for i in verdict["incompatibilities"]} == {"1"}
    su.put("/schemaGroups/g1/schemas/s1/versions/2?meta", {"format": JS_FORMAT, "compatibility": "none"}, format="json")
    verdict = dry_run(su, bad, JSON).json()
    assert verdict == {"compatible": True, "level": "none", "against": [], "incompatibilities": []}
    assert send(su, "POST", URL, bad, JSON).status_code == 201
    verdict = dry_run(su, JS_V1, JSON, compatibility="forward").json()
    assert verdict["level"] == "forward" and verdict["against"] == ["3"]


def test_dry_run_of_an_invalid_document_is_the_posts_400(su, schema):
    schema(JS_FORMAT, JSON, JS_V1)
    before = snapshot()
    broken = json.dumps({"type": "object", "properties": {"x": {"type": "strin"}}}).encode()
    dry = assert_problem(dry_run(su, broken, JSON), 400, "properties.x")
    real = assert_problem(send(su, "POST", URL, broken, JSON), 400, "properties.x")
    assert dry["errors"] == real["errors"]
    assert_problem(dry_run(su, b"{not json", JSON), 400)
    assert_problem(dry_run(su, b"not avro", JSON, format=AVRO_FORMAT), 400)
    assert snapshot() == before


def test_dry_run_format_header_and_read_permission(su, anon, settings, schema):
    schema(PROTO_FORMAT, PROTO, PROTO_V1)
    response = dry_run(anon, PROTO_BAD, PROTO, format=PROTO_FORMAT)
    assert response.status_code == 200 and response.json()["compatible"] is False
    settings.REGISTRY_PUBLIC_READ = False
    assert dry_run(anon, PROTO_BAD, PROTO).status_code == 401
    assert dry_run(su, PROTO_OK, PROTO).json()["compatible"] is True


def test_dry_run_unknown_group_or_schema_is_404(su, schema):
    schema(JS_FORMAT, JSON, JS_V1)
    before = snapshot()
    assert_problem(send(su, "POST", "/schemaGroups/nope/schemas/s1/compatibility", JS_OK, JSON), 404, "nope")
    assert_problem(send(su, "POST", "/schemaGroups/g1/schemas/nope/compatibility", JS_OK, JSON), 404, "nope")
    assert snapshot() == before


@pytest.mark.parametrize(
    "name,fmt", [("apicurio-avro-compatibility.json", AVRO_FORMAT), ("apicurio-json-compatibility.json", JS_FORMAT)]
)
def test_dry_run_agrees_with_the_post_on_corpus_pairs(su, name, fmt):
    make_group(su)
    cases = [t for t in json.loads(corpus("compatibility", name).read_text())["tests"] if t.get("enabled", True)]
    assert cases  # every enabled pair of the corpus: 4 Avro, 145 JSON Schema
    compared = 0
    for index, case in enumerate(cases):
        sid = f"s{index}"
        first = post_schema(
            su,
            sid=sid,
            body=json.dumps(case["original"]),
            content_type=JSON,
            fmt=fmt,
            compatibility="backward",
            expect=None,
        )
        if first.status_code != 201:  # a few originals are not valid under the group's draft: not a pair here
            continue
        before = snapshot()
        dry = send(su, "POST", f"/schemaGroups/g1/schemas/{sid}/compatibility", json.dumps(case["updated"]), JSON)
        assert snapshot() == before
        real = send(su, "POST", f"/schemaGroups/g1/schemas/{sid}", json.dumps(case["updated"]), JSON)
        if dry.status_code != 200:  # an updated document the POST refuses too, with the same status
            assert real.status_code == dry.status_code, (case["id"], dry.content, real.content)
            continue
        compared += 1
        assert real.status_code == (201 if dry.json()["compatible"] else 409), (case["id"], dry.json(), real.content)
    assert compared >= len(cases) * 3 // 4, (compared, len(cases))


def _diff(client, v1="1", v2="2"):
    response = client.get(f"{URL}/versions/{v1}/diff/{v2}")
    assert response.status_code == 200, response.content
    return response.json()


def _by_path(changes):
    return {(c["path"], c["change"]): c for c in changes}


def test_json_schema_diff(su, schema):
    schema(JS_FORMAT, JSON, JS_V1)
    send(
        su,
        "POST",
        URL,
        js({"id": {"type": "integer"}, "note": {"type": "string"}}, ["id", "note"]),
        JSON,
        compatibility="none",
    )
    changes = _by_path(_diff(su))
    assert changes[("properties.id", "type-changed")] | {} == {
        "path": "properties.id",
        "change": "type-changed",
        "old": "string",
        "new": "integer",
        "backward": False,
        "forward": False,
    }
    removed = changes[("properties.amount", "field-removed")]
    assert removed["old"] == {"type": "number"} and removed["new"] is None
    added = changes[("properties.note", "field-added")]
    assert added["new"] == {"type": "string"}
    required = changes[("properties.note", "required-changed")]
    assert (required["old"], required["new"], required["backward"], required["forward"]) == (False, True, False, True)


def test_avro_diff(su, schema):
    schema(AVRO_FORMAT, JSON, AVRO_V1)
    send(
        su,
        "POST",
        URL,
        avro({"name": "id", "type": "long"}, {"name": "note", "type": "string", "default": ""}),
        JSON,
        compatibility="none",
    )
    changes = _by_path(_diff(su))
    assert changes[("Order.fields.id", "type-changed")]["old"] == "string"
    assert changes[("Order.fields.id", "type-changed")]["backward"] is False
    added = changes[("Order.fields.note", "field-added")]
    assert added["new"] == "string" and added["backward"] and added["forward"]
    removed = changes[("Order.fields.amount", "field-removed")]
    assert removed["backward"] is True and removed["forward"] is False
    assert _diff(su, "2", "1")  # either direction


def test_avro_enum_and_default_changes():
    from catalog.checks import semantic_changes

    enum = {"type": "enum", "name": "Colour", "symbols": ["RED", "GREEN"]}
    old = avro({"name": "c", "type": enum}, {"name": "n", "type": "int", "default": 1})
    new = avro({"name": "c", "type": {**enum, "symbols": ["RED", "BLUE"]}}, {"name": "n", "type": "int", "default": 2})
    changes = _by_path(semantic_changes(AVRO_FORMAT, old, new))
    assert changes[("Order.fields.c", "enum-symbol-removed")]["old"] == "GREEN"
    assert changes[("Order.fields.c", "enum-symbol-removed")]["backward"] is False
    assert changes[("Order.fields.c", "enum-symbol-added")]["new"] == "BLUE"
    assert changes[("Order.fields.n", "default-changed")] == {
        "path": "Order.fields.n",
        "change": "default-changed",
        "old": 1,
        "new": 2,
        "backward": True,
        "forward": True,
    }


def test_protobuf_diff(su, schema):
    schema(PROTO_FORMAT, PROTO, PROTO_V1)
    send(su, "POST", URL, proto("  int64 id = 1;\n  string note = 3;"), PROTO, compatibility="none")
    changes = _by_path(_diff(su))
    assert changes[("shop.Order.id", "type-changed")]["old"] == "string"
    assert changes[("shop.Order.id", "type-changed")]["backward"] is False
    assert changes[("shop.Order.note", "field-added")]["backward"] is True
    assert changes[("shop.Order.amount", "field-removed")]["backward"] is False


def test_line_diff_for_xsd(su):
    make_group(su)
    xsd = (
        '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">\n  <xs:element name="{}" type="xs:string"/>\n'
        "</xs:schema>\n"
    )
    post_schema(su, body=xsd.format("a"), content_type="application/xml", fmt="XSD/1.1")
    send(su, "POST", URL, xsd.format("b"), "application/xml")
    diff = _diff(su)
    assert diff["format"] == "XSD/1.1"
    assert '-  <xs:element name="a"' in diff["line_diff"] and '+  <xs:element name="b"' in diff["line_diff"]
    assert diff["line_diff"].startswith("--- /schemaGroups/g1/schemas/s1/versions/1")


def test_diff_errors_are_problems(su, anon, schema):
    schema(JS_FORMAT, JSON, JS_V1)
    assert_problem(anon.get(f"{URL}/versions/1/diff/9"), 404, "versions/9")
    assert_problem(anon.get(f"{URL}/versions/7/diff/1"), 404, "versions/7")
    assert_problem(anon.get("/schemaGroups/g1/schemas/zz/versions/1/diff/1"), 404, "zz")
    assert_problem(anon.get(f"{URL}/versions/1/diff/1?x=1"), 400, "x")
    assert _diff(anon, "1", "1") == []
