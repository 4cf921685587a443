"""JSON Schema compatibility: can every instance valid under the writer's schema be read (validated) by the
reader's schema? Written by hand (no library decides JSON Schema inclusion); the rules, and where they differ
from other registries, are in docs/schema-compatibility.md.

Content model: adding an optional property is compatible (old data did not carry it), removing one is
compatible unless the reader closes the object (`additionalProperties: false`); adding `required`, narrowing
types, enums, bounds, lengths, patterns or formats is not. Where the reader adds a keyword this checker does
not reason about (`if`, `dependencies`, ...) the change is reported rather than guessed.
"""
from __future__ import annotations

import math

from ..json_limits import parse_json_limited
from .result import Incompatibility

MAX_DEPTH = 64
TYPES = ("null", "boolean", "object", "array", "number", "integer", "string")
LOWER = (("minLength", "string length"), ("minItems", "array length"), ("minProperties", "property count"))
UPPER = (("maxLength", "string length"), ("maxItems", "array length"), ("maxProperties", "property count"))
EQUAL_KEYWORDS = ("pattern", "format", "contentEncoding", "contentMediaType", "propertyNames", "patternProperties",
                  "dependencies", "dependentRequired", "dependentSchemas", "if", "then", "else", "contains",
                  "unevaluatedProperties", "unevaluatedItems")
ANNOTATIONS = {"title", "description", "default", "examples", "$comment", "$schema", "$id", "id", "readOnly",
               "writeOnly", "deprecated", "definitions", "$defs", "$anchor"}


def load(content: bytes):
    value = parse_json_limited(content)
    if not isinstance(value, dict | bool):
        raise ValueError("not a JSON Schema")
    return value


class _Checker:
    def __init__(self, reader_root, writer_root):
        self.roots = {"reader": reader_root, "writer": writer_root}
        self.found: list[Incompatibility] = []
        self.seen: set = set()

    def add(self, path: str, change: str, reason: str) -> None:
        self.found.append(Incompatibility(path or "(root)", change, reason))

    def resolve(self, side: str, schema):
        """Follow local `$ref`s (`#/definitions/x`, `#/$defs/x`, `#`) within the document."""
        for _ in range(32):
            if not (isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#")):
                return schema
            ref = schema["$ref"]
            if len(ref) > 1 and not ref.startswith("#/"):
                node = _find_anchor(self.roots[side], ref)
                rest = {k: v for k, v in schema.items() if k != "$ref"}
                schema = {**node, **rest} if isinstance(node, dict) else {}
                continue
            node = self.roots[side]
            for part in [p for p in ref[1:].split("/") if p]:
                part = part.replace("~1", "/").replace("~0", "~")
                node = node.get(part) if isinstance(node, dict) else None
                if node is None:
                    return {}
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**node, **rest} if isinstance(node, dict) and rest else node
        return schema

    @staticmethod
    def normal(schema) -> dict:
        if schema is True:
            return {}
        if schema is False:
            return {"not": {}}
        return schema if isinstance(schema, dict) else {}

    @staticmethod
    def types(schema: dict) -> set | None:
        value = schema.get("type")
        if value is None:
            if "enum" in schema or "const" in schema:
                values = schema.get("enum", [schema.get("const")])
                return {_json_type(v) for v in values}
            return None
        return set(value) if isinstance(value, list) else {value}

    def check(self, reader, writer, path: str, depth: int = 0) -> None:
        if depth > MAX_DEPTH:
            return
        key = (id(reader), id(writer))
        if key in self.seen:
            return
        self.seen.add(key)
        reader = self.normal(self.resolve("reader", reader))
        writer = self.normal(self.resolve("writer", writer))
        if _strip(reader) == _strip(writer):
            return
        if writer.get("not") == {}:
            return  # the writer writes nothing
        if reader.get("not") == {}:
            self.add(path, "schema became false", "no data at all is accepted any more")
            return
        if not _strip(reader):
            return  # the reader accepts anything
        if self.combinators(reader, writer, path, depth):
            return
        self.check_types(reader, writer, path)
        self.check_values(reader, writer, path)
        self.check_bounds(reader, writer, path)
        self.check_object(reader, writer, path, depth)
        self.check_array(reader, writer, path, depth)
        for keyword in EQUAL_KEYWORDS:
            if keyword in reader and reader.get(keyword) != writer.get(keyword):
                verb = "added" if keyword not in writer else "changed"
                self.add(path, f"{keyword} {verb}", f"data that met the old schema may not meet the new {keyword}")

    def combinators(self, reader: dict, writer: dict, path: str, depth: int) -> bool:
        """Handle anyOf/oneOf/allOf/not; True when the pair was fully decided here."""
        for keyword in ("anyOf", "oneOf"):
            if isinstance(writer.get(keyword), list) and not any(k in reader for k in ("anyOf", "oneOf", "allOf")):
                for branch in writer[keyword]:
                    self.check(reader, {**_without(writer, keyword), **self.normal(branch)}, path, depth + 1)
                return True
        if isinstance(reader.get("allOf"), list):
            for index, branch in enumerate(reader["allOf"]):
                self.check({**_without(reader, "allOf"), **self.normal(branch)} if index == 0 else branch,
                           writer if "allOf" not in writer else {**_without(writer, "allOf"),
                                                                 **_merge_all(writer["allOf"])},
                           f"{path}.allOf[{index}]", depth + 1)
            return True
        if isinstance(writer.get("allOf"), list):
            self.check(reader, {**_without(writer, "allOf"), **_merge_all(writer["allOf"])}, path, depth + 1)
            return True
        for keyword in ("anyOf", "oneOf"):
            if isinstance(reader.get(keyword), list):
                branches = reader[keyword]
                writer_branches = writer.get("anyOf") or writer.get("oneOf") or [writer]
                for w_index, w_branch in enumerate(writer_branches):
                    if not any(self.accepts(branch, w_branch, depth) for branch in branches):
                        self.add(path, f"{keyword} narrowed", f"some data valid under the old schema (branch "
                                 f"{w_index}) matches no branch of the new {keyword}")
                return True
        if "not" in reader and reader.get("not") != writer.get("not"):
            self.add(path, "not added or changed", "data the old schema allowed may now be excluded")
            return True
        return False

    def accepts(self, reader, writer, depth: int) -> bool:
        probe = _Checker(self.roots["reader"], self.roots["writer"])
        probe.check(reader, writer, "", depth + 1)
        return not probe.found

    def check_types(self, reader: dict, writer: dict, path: str) -> None:
        reader_types, writer_types = self.types(reader), self.types(writer)
        if reader_types is None:
            return
        if writer_types is None:
            self.add(path, f"type {'/'.join(sorted(reader_types))} added", "the old schema allowed any type")
            return
        if "number" in reader_types:
            reader_types = reader_types | {"integer"}
        missing = writer_types - reader_types
        if missing:
            self.add(path, f"type narrowed from {'/'.join(sorted(writer_types))} to {'/'.join(sorted(reader_types))}",
                     f"values of type {'/'.join(sorted(missing))} were valid and are not any more")

    def check_values(self, reader: dict, writer: dict, path: str) -> None:
        if "enum" not in reader and "const" not in reader:
            return
        allowed = reader.get("enum", [reader.get("const")])
        written = writer.get("enum", [writer["const"]] if "const" in writer else None)
        if written is None:
            self.add(path, "enum or const added", "the old schema allowed values the new one lists no more")
            return
        missing = [v for v in written if v not in allowed]
        if missing:
            self.add(path, f"values removed: {missing!r}"[:200], "data holding these values no longer validates")

    def check_bounds(self, reader: dict, writer: dict, path: str) -> None:
        for keyword, what in LOWER:
            if keyword in reader and reader[keyword] > writer.get(keyword, 0):
                self.add(path, f"{keyword} raised to {reader[keyword]}", f"shorter {what} was valid before")
        for keyword, what in UPPER:
            if keyword in reader and reader[keyword] < writer.get(keyword, math.inf):
                self.add(path, f"{keyword} lowered to {reader[keyword]}", f"longer {what} was valid before")
        r_low, r_low_x = _lower(reader)
        w_low, w_low_x = _lower(writer)
        if r_low is not None and (w_low is None or w_low < r_low or (w_low == r_low and r_low_x and not w_low_x)):
            self.add(path, "minimum raised", "smaller numbers were valid before")
        r_high, r_high_x = _upper(reader)
        w_high, w_high_x = _upper(writer)
        if r_high is not None and (w_high is None or w_high > r_high or (w_high == r_high and r_high_x and not w_high_x)):
            self.add(path, "maximum lowered", "larger numbers were valid before")
        if "multipleOf" in reader:
            old = writer.get("multipleOf")
            if old is None or (old / reader["multipleOf"]) % 1:
                self.add(path, f"multipleOf {reader['multipleOf']} added", "numbers valid before may not be multiples")
        if reader.get("uniqueItems") and not writer.get("uniqueItems"):
            self.add(path, "uniqueItems added", "arrays with repeated items were valid before")

    def check_object(self, reader: dict, writer: dict, path: str, depth: int) -> None:
        required = set(reader.get("required") or []) - set(writer.get("required") or [])
        for name in sorted(required):
            self.add(f"{path}.{name}" if path else name, "property became required",
                     "data written without it no longer validates")
        reader_props, writer_props = reader.get("properties") or {}, writer.get("properties") or {}
        reader_extra, writer_extra = reader.get("additionalProperties", True), writer.get("additionalProperties", True)
        for name, schema in writer_props.items():
            sub = f"{path}.properties.{name}" if path else f"properties.{name}"
            if name in reader_props:
                self.check(reader_props[name], schema, sub, depth + 1)
            elif reader_extra is False:
                self.add(sub, "property removed from a closed object", "data carrying it is refused "
                         "(additionalProperties is false)")
            elif isinstance(reader_extra, dict):
                self.check(reader_extra, schema, sub, depth + 1)
        if reader_extra is not True and reader_extra != writer_extra and writer_extra is not False:
            if reader_extra is False or isinstance(writer_extra, bool):
                self.add(f"{path}.additionalProperties" if path else "additionalProperties", "additional properties "
                         "restricted", "objects with other properties were valid before")
            else:
                self.check(reader_extra, writer_extra, f"{path}.additionalProperties", depth + 1)

    def check_array(self, reader: dict, writer: dict, path: str, depth: int) -> None:
        reader_items, writer_items = reader.get("items"), writer.get("items")
        sub = f"{path}.items" if path else "items"
        if isinstance(reader_items, list) or isinstance(writer_items, list):
            reader_list = reader_items if isinstance(reader_items, list) else None
            writer_list = writer_items if isinstance(writer_items, list) else None
            if reader_list is not None and writer_list is not None:
                reader_rest = reader.get("additionalItems", True)
                writer_rest = writer.get("additionalItems", True)
                for index in range(max(len(reader_list), len(writer_list)) + 1):
                    written = writer_list[index] if index < len(writer_list) else writer_rest
                    target = reader_list[index] if index < len(reader_list) else reader_rest
                    if written is False or target is True:
                        continue
                    if target is False:
                        self.add(f"{sub}[{index}]", "tuple shortened", "longer arrays were valid before")
                        break
                    self.check(target, {} if written is True else written, f"{sub}[{index}]", depth + 1)
            elif reader_list is not None:
                self.add(sub, "items became a tuple", "arrays of the old item schema may not match the tuple")
            elif reader_items is not None:
                for index, schema in enumerate(writer_list or []):
                    self.check(reader_items, schema, f"{sub}[{index}]", depth + 1)
                if writer.get("additionalItems", True) is not False:
                    self.check(reader_items, writer.get("additionalItems", {}), sub, depth + 1)
            return
        if reader_items is not None:
            self.check(reader_items, writer_items if writer_items is not None else {}, sub, depth + 1)


def _find_anchor(root, ref: str):
    """The subschema whose `$id` (or `$anchor`) names `ref` (`#Address`), searched without recursion."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("$id") == ref or ("#" + str(node.get("$anchor"))) == ref:
                return node
            stack.extend(v for v in node.values() if isinstance(v, dict | list))
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, dict | list))
    return {}


def _json_type(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _strip(schema: dict) -> dict:
    return {k: v for k, v in schema.items() if k not in ANNOTATIONS}


def _without(schema: dict, key: str) -> dict:
    return {k: v for k, v in schema.items() if k != key}


def _merge_all(branches: list) -> dict:
    merged: dict = {}
    for branch in branches:
        if isinstance(branch, dict):
            for key, value in branch.items():
                if key == "required":
                    merged["required"] = sorted(set(merged.get("required", [])) | set(value))
                elif key == "properties" and isinstance(value, dict):
                    merged["properties"] = {**merged.get("properties", {}), **value}
                else:
                    merged[key] = value
    return merged


def _lower(schema: dict):
    candidates = []
    if isinstance(schema.get("minimum"), int | float):
        candidates.append((schema["minimum"], False))
    exclusive = schema.get("exclusiveMinimum")
    if isinstance(exclusive, int | float) and not isinstance(exclusive, bool):
        candidates.append((exclusive, True))
    elif exclusive is True and "minimum" in schema:
        candidates = [(schema["minimum"], True)]
    return max(candidates, key=lambda c: (c[0], c[1])) if candidates else (None, False)


def _upper(schema: dict):
    candidates = []
    if isinstance(schema.get("maximum"), int | float):
        candidates.append((schema["maximum"], False))
    exclusive = schema.get("exclusiveMaximum")
    if isinstance(exclusive, int | float) and not isinstance(exclusive, bool):
        candidates.append((exclusive, True))
    elif exclusive is True and "maximum" in schema:
        candidates = [(schema["maximum"], True)]
    return min(candidates, key=lambda c: (c[0], not c[1])) if candidates else (None, False)


def incompatibilities(reader, writer) -> list[Incompatibility]:
    checker = _Checker(reader, writer)
    checker.check(reader, writer, "")
    return checker.found
