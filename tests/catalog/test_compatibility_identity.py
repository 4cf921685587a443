"""Issue 29: a transitive check compares the new version once per identity of the earlier ones (versions that every
comparison treats alike). That must change no verdict: over the Apicurio JSON Schema corpus, each case's `original`
beside copies that differ in annotations (at the root, in properties and items, and inside conditionals,
combinators and `not`, where the identity keeps them), checked against `updated` at every transitive level, gives
exactly the issues, in the same order and wording, as comparing with every version one by one."""

import copy
import functools
import json

import pytest

from catalog.validators import compatibility
from catalog.validators.compatibility import check_compatibility
from tests.corpus import corpus

JSON_FORMAT = "JsonSchema/draft-07"
ANNOTATED = ("properties", "patternProperties", "additionalProperties", "items", "if", "then", "else", "not")


@functools.cache
def apicurio_cases() -> list[dict]:
    """The corpus's Apicurio JSON Schema cases (read once; the tests that call this skip without ../shared)."""
    return json.loads(corpus("compatibility", "apicurio-json-compatibility.json").read_text())["tests"]


def annotated(schema, note: str, depth: int = 0):
    """`schema` with a title and a description at every schema node within reach, and examples at the root."""
    if not isinstance(schema, dict) or depth > 20:
        return schema
    out = {**schema, "title": f"t-{note}", "description": f"d-{note}-{depth}"}
    if depth == 0:
        out["examples"] = [{"note": note}]
    for key, value in schema.items():
        if key in ("properties", "patternProperties") and isinstance(value, dict):
            out[key] = {name: annotated(sub, note, depth + 1) for name, sub in value.items()}
        elif key in ANNOTATED and isinstance(value, dict):
            out[key] = annotated(value, note, depth + 1)
        elif key in ("items", "allOf", "anyOf", "oneOf") and isinstance(value, list):
            out[key] = [annotated(sub, note, depth + 1) for sub in value]
    return out


def encoded(schema) -> bytes:
    return json.dumps(schema).encode()


@pytest.mark.parametrize("level", ["backward_transitive", "forward_transitive", "full_transitive"])
def test_one_comparison_per_identity_changes_no_verdict(level, monkeypatch):
    differ = 0
    for case in apicurio_cases():
        original, updated = case["original"], case["updated"]
        earlier = [
            encoded(original),
            encoded(annotated(copy.deepcopy(original), "a")),
            encoded(updated),
            encoded(annotated(copy.deepcopy(original), "b")),
            encoded(annotated(copy.deepcopy(updated), "c")),
        ]
        for new in (encoded(updated), encoded(annotated(copy.deepcopy(updated), "n"))):
            once = check_compatibility(JSON_FORMAT, level, earlier, new)
            with monkeypatch.context() as patched:
                patched.setattr(compatibility, "_identity", lambda family, content: None)  # every version compared
                each = check_compatibility(JSON_FORMAT, level, earlier, new)
            assert once == each, case["id"]
            differ += bool(each)
    assert differ > 10  # the corpus holds incompatible cases: the comparison has something to agree on


def test_versions_alike_are_compared_once(monkeypatch):
    """A schema with 300 versions that differ in their descriptions: one comparison per direction."""
    base = {"type": "object", "properties": {"a": {"type": "string"}, "n": {"type": "integer"}}}
    earlier = []
    for n in range(300):
        version = copy.deepcopy(base)
        version["properties"]["n"]["description"] = f"version {n}"
        earlier.append(encoded(version))
    calls = []
    real = compatibility.compare_versions
    monkeypatch.setattr(compatibility, "compare_versions", lambda *a: calls.append(a) or real(*a))
    new = copy.deepcopy(base)
    new["properties"]["b"] = {"type": "boolean", "description": "new"}
    assert check_compatibility(JSON_FORMAT, "full_transitive", earlier, encoded(new)) == []
    assert len(calls) == 2
    new["required"] = ["b"]
    found = check_compatibility(JSON_FORMAT, "backward_transitive", earlier, encoded(new))
    assert [i.reason.endswith("(earlier version 1 of 300)") for i in found] == [True]


def every_version_compared(patched) -> None:
    """In this monkeypatch context, a check compares with every version and keeps nothing for the next one."""
    patched.setattr(compatibility, "_identity", lambda family, content: None)
    compatibility._frontiers.clear()
    patched.setattr(compatibility._frontiers, "max_bytes", 0)


def histories(case) -> list[list[bytes]]:
    original, updated = case["original"], case["updated"]
    grown = [
        encoded(original),
        encoded(annotated(copy.deepcopy(original), "a")),
        encoded(updated),
        encoded(annotated(copy.deepcopy(original), "b")),
        encoded(annotated(copy.deepcopy(updated), "c")),
    ]
    changed = [grown[0], encoded(annotated(copy.deepcopy(updated), "d")), *grown[2:]]  # a version changed in place
    return [grown, changed]


@pytest.mark.parametrize("level", ["backward_transitive", "forward_transitive", "full_transitive"])
def test_the_checks_of_a_growing_history_answer_as_checks_against_every_version(level, monkeypatch):
    """Each version of a history checked in turn (the places compared kept from one check to the next, issue 29),
    and then a history changed in the middle, answer as comparisons with every version."""
    differ = 0
    for case in apicurio_cases():
        new = encoded(annotated(copy.deepcopy(case["updated"]), "n"))
        for history in histories(case):
            for count in range(1, len(history) + 1):
                kept = check_compatibility(JSON_FORMAT, level, history[:count], new)
                with monkeypatch.context() as patched:
                    every_version_compared(patched)
                    each = check_compatibility(JSON_FORMAT, level, history[:count], new)
                assert kept == each, (case["id"], count)
                differ += bool(each)
    assert differ > 10
