"""An AsyncAPI document against the official AsyncAPI JSON Schema of its version (2.6.0, 3.0.0, 3.1.0).

The schemas are those of the npm package `@asyncapi/specs` (Apache-2.0), shipped in `specs/` with their licence
and version (`specs/README.md`). `jsonschema` decides and words the errors; `jsonschema-rs` answers first
(compiled, far faster on a large document): a document it finds valid is not checked again, an invalid one is
checked by `jsonschema` for the errors and their paths.

The document is checked as written: a Reference Object (`{"$ref": ...}`) is valid wherever the specification
allows one, and what a reference points to is checked where the importer reads it. The official schemas hold every
definition they refer to: their validators fetch nothing (catalog.validators.json_references).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import jsonschema
import jsonschema_rs
from jsonschema.exceptions import best_match

from catalog.validators.json_references import refuse_retrieval, schema_registry

SPECS = Path(__file__).with_name("specs")
# the versions whose schema is shipped in `specs/`: a 3.x schema added there is a version the importer takes
VERSIONS = {path.stem: path.name for path in sorted(SPECS.glob("*.json"))}
MAX_ERRORS = 50  # reported per document; the rest are counted


@functools.cache
def _schema(version: str) -> dict:
    return json.loads((SPECS / VERSIONS[version]).read_text())


@functools.cache
def _fast(version: str):
    return jsonschema_rs.Draft7Validator(_schema(version), retriever=refuse_retrieval)  # nothing fetched


@functools.cache
def _full(version: str):
    return jsonschema.Draft7Validator(_schema(version), registry=schema_registry())  # nothing fetched


@functools.cache
def _part(version: str, definition: str):
    schema = _schema(version)
    fragment = {"$ref": f"#/definitions/{definition}", "definitions": schema["definitions"]}
    return jsonschema_rs.Draft7Validator(fragment, retriever=refuse_retrieval)  # nothing fetched


def valid_part(value, version: str, definition: str) -> bool:
    """Whether `value` is valid as the official schema's definition `definition` (`messageBindingsObject`, ...)
    of AsyncAPI `version`: what an export checks before it writes something kept as an import read it."""
    return _part(version, definition).is_valid(value)


def pointer(path) -> str:
    """A JSON Pointer (RFC 6901) of a path of keys and indexes, `#` for the root."""
    return "#" + "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _wants_reference(error) -> bool:
    return error.validator == "required" and "'$ref'" in error.message and not _reference(error.instance)


def _deepest(error):
    """The error to report for a failed `oneOf`/`anyOf`: in the branches that are not "a Reference Object" when
    the value is none, jsonschema's best match, followed down; so that an address of the wrong type is reported
    at the address, not as a channel that is no `$ref`."""
    while error.context:
        branches: dict = {}
        for child in error.context:
            branches.setdefault(child.schema_path[0] if child.schema_path else None, []).append(child)
        kept = [c for children in branches.values() if not any(map(_wants_reference, children)) for c in children]
        chosen = best_match(kept or error.context)
        if chosen is None or chosen is error:
            break
        error = chosen
    return error


def _reference(instance) -> bool:
    return isinstance(instance, dict) and isinstance(instance.get("$ref"), str)


def _spurious(error) -> bool:
    """Whether an error only says that a Reference Object is valid as more than one thing: the official schemas
    allow `oneOf: [Reference, Schema]` where a schema may itself be `{"$ref": ...}`, so a reference written there
    matches both branches (the AsyncAPI tools validate the document with its references followed). A `oneOf` or
    `anyOf` fails spuriously when one of its branches fails only spuriously."""
    if error.validator == "oneOf" and not error.context and _reference(error.instance):
        return True
    if error.validator in ("oneOf", "anyOf") and error.context:
        branches: dict = {}
        for child in error.context:
            branches.setdefault(child.schema_path[0] if child.schema_path else None, []).append(child)
        return any(all(_spurious(child) for child in children) for children in branches.values())
    return False


def schema_errors(document: dict, version: str) -> list[dict]:
    """Every error of `document` against the AsyncAPI `version` schema, as `{"path", "reason"}` with the path a
    JSON Pointer into the document; [] when it is valid."""
    if _fast(version).is_valid(document):
        return []
    errors = []
    found = [e for e in _full(version).iter_errors(document) if not _spurious(e)]
    for error in sorted(found, key=lambda e: [str(p) for p in e.absolute_path]):
        error = _deepest(error)
        errors.append({"path": pointer(error.absolute_path), "reason": error.message[:500]})
    unique = [dict(pair) for pair in dict.fromkeys(tuple(e.items()) for e in errors)]
    if len(unique) > MAX_ERRORS:
        more = len(unique) - MAX_ERRORS
        unique = unique[:MAX_ERRORS] + [{"path": "#", "reason": f"and {more} more errors"}]
    return unique
