"""Verdict caches of issue 14: the digest that keys them, and schema validation and compatibility verdicts computed once
per identical input, observed by counting calls to the function the cached path calls (the real one runs)."""

import inspect
import json
import sys

import pytest

from catalog.validators import compatibility, schemas
from catalog.validators.compatibility import check_compatibility, compare_versions
from catalog.validators.digest_cache import digest
from catalog.validators.schemas import validate_schema

JSON = "JsonSchema/draft-07"
OLD = json.dumps({"type": "object", "properties": {"a": {"type": "string"}}}).encode()
NEW_INCOMPATIBLE = json.dumps({"type": "object", "properties": {"a": {"type": "integer"}}}).encode()
NEW_COMPATIBLE = json.dumps({"type": "object", "properties": {"a": {"type": "string"}}, "title": "t"}).encode()


@pytest.fixture(autouse=True)
def empty_caches():
    schemas._verdicts.clear()
    compatibility._verdicts.clear()
    yield
    schemas._verdicts.clear()
    compatibility._verdicts.clear()


def counting(monkeypatch, module, name):
    """Replace module.name by a wrapper that counts its calls and runs the real function."""
    real = getattr(module, name)
    calls = []

    def wrapper(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)
    return calls


# digest


def test_digest_separates_parts_and_kinds():
    assert digest("ab", "c") != digest("a", "bc")
    assert digest(None) != digest("") != digest(b"")
    assert digest("x", b"{}") == digest("x", b"{}")
    assert len(digest(b"")) == 64


# schema validation


def test_an_unchanged_document_is_validated_once(monkeypatch):
    calls = counting(monkeypatch, schemas, "_validate_uncached")
    assert validate_schema(JSON, OLD) == []
    assert validate_schema(JSON, OLD) == []
    assert len(calls) == 1
    assert validate_schema(JSON, NEW_COMPATIBLE) == []  # a different document is validated
    assert len(calls) == 2


def test_an_invalid_document_keeps_its_errors_and_callers_cannot_change_them(monkeypatch):
    calls = counting(monkeypatch, schemas, "_validate_uncached")
    bad = json.dumps({"type": 12}).encode()
    first = validate_schema(JSON, bad)
    assert first and first[0].startswith("schema: not valid JSON Schema draft-07")
    first.clear()
    first.append("changed by a caller")
    assert validate_schema(JSON, bad) == validate_schema("JsonSchema/draft-07", bad) != first
    assert validate_schema(JSON, bad)[0].startswith("schema: not valid JSON Schema draft-07")
    assert len(calls) == 1


def test_the_format_is_part_of_the_key(monkeypatch):
    calls = counting(monkeypatch, schemas, "_validate_uncached")
    text = b'syntax = "proto2"; message Ping { optional string id = 1; }'
    assert validate_schema("Protobuf/2", text) == []
    assert validate_schema("Protobuf/3", text) != []  # same bytes, another format version: validated again
    assert validate_schema("Protobuf/2", text) == []
    assert len(calls) == 2


def test_size_limit_is_checked_before_the_cache():
    assert validate_schema(JSON, OLD) == []
    assert "more than the 10 bytes" in validate_schema(JSON, OLD, max_bytes=10)[0]


def test_a_recursion_error_verdict_is_not_cached(monkeypatch):
    calls = counting(monkeypatch, schemas, "_validate_uncached")
    nested = {"type": "object"}
    for _ in range(120):  # deeper than FAST_PATH_MAX_DEPTH: jsonschema alone, recursively
        nested = {"type": "object", "properties": {"a": nested}}
    document = json.dumps(nested).encode()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 400)  # enough to parse, not to meta-validate
    try:
        starved = validate_schema(JSON, document)
    finally:
        sys.setrecursionlimit(limit)
    assert starved and "too complex to meta-validate" in starved[0]
    assert validate_schema(JSON, document) == []  # computed again with the normal limit
    assert len(calls) == 2


# compatibility verdicts


def test_a_compared_pair_is_compared_once_and_stays_incompatible(monkeypatch):
    calls = counting(monkeypatch, compatibility, "_compare_uncached")
    first = compare_versions(JSON, OLD, NEW_INCOMPATIBLE, "backward")
    assert first, "changing a property's type is incompatible"
    first.clear()  # a caller changing its list does not change the cached verdict
    second = compare_versions(JSON, OLD, NEW_INCOMPATIBLE, "backward")
    assert second and second == compare_versions(JSON, OLD, NEW_INCOMPATIBLE, "backward")
    assert len(calls) == 1
    assert compare_versions(JSON, OLD, NEW_INCOMPATIBLE, "forward")  # another direction is compared
    assert len(calls) == 2
    assert compare_versions(JSON, OLD, NEW_COMPATIBLE, "backward") == []  # another document too
    assert len(calls) == 3


def test_transitive_checks_do_not_compare_known_pairs_again(monkeypatch):
    calls = counting(monkeypatch, compatibility, "_compare_uncached")
    previous = [OLD, NEW_COMPATIBLE, json.dumps({"type": "object"}).encode()]
    first = check_compatibility(JSON, "full_transitive", previous, NEW_INCOMPATIBLE)
    # three earlier versions of two identities (NEW_COMPATIBLE is OLD with a title: the same for every rule,
    # catalog/validators/compatibility identities), two directions
    assert first and len(calls) == 4
    again = check_compatibility(JSON, "full_transitive", previous, NEW_INCOMPATIBLE)
    assert again == first and len(calls) == 4
    assert check_compatibility(JSON, "backward_transitive", previous, NEW_INCOMPATIBLE)
    assert len(calls) == 4  # the backward pairs were all compared already


def test_unparseable_new_version_is_still_reported(monkeypatch):
    calls = counting(monkeypatch, compatibility, "_compare_uncached")
    for _ in range(2):
        issues = compare_versions(JSON, OLD, b"{not json", "backward")
        assert [i.change for i in issues] == ["the new version does not parse"]
    assert len(calls) == 1
