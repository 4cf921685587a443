"""Issue 29: a transitive check compares the new version once per identity of the earlier ones (versions that every
comparison treats alike). That must change no verdict: over the Apicurio JSON Schema corpus, each case's `original`
beside copies that differ in annotations (at the root, in properties and items, and inside conditionals,
combinators and `not`, where the identity keeps them), checked against `updated` at every transitive level, gives
exactly the issues, in the same order and wording, as comparing with every version one by one."""

import copy
import json

import pytest

from catalog.validators import compatibility
from catalog.validators.compatibility import check_compatibility
from tests.corpus import corpus

JSON_FORMAT = "JsonSchema/draft-07"
CASES = [t for t in json.loads((corpus("compatibility") / "apicurio-json-compatibility.json").read_text())["tests"]]
ANNOTATED = ("properties", "patternProperties", "additionalProperties", "items", "if", "then", "else", "not")


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
    for case in CASES:
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
