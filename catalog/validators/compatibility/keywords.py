"""Keyword-level helpers of the JSON Schema compatibility checker: bounds, types, merging of `allOf`
branches, disjointness of `oneOf` branches, anchors. Pure functions over schema dicts."""

from __future__ import annotations

import math

from ..json_canonical import canonical_set

TYPES = ("null", "boolean", "object", "array", "number", "integer", "string")
LOWER = (
    ("minLength", "string length"),
    ("minItems", "array length"),
    ("minProperties", "property count"),
    ("minContains", "number of contained items"),
)
UPPER = (
    ("maxLength", "string length"),
    ("maxItems", "array length"),
    ("maxProperties", "property count"),
    ("maxContains", "number of contained items"),
)
BOUND_KEYWORDS = frozenset(
    [k for k, _what in LOWER + UPPER]
    + ["minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf", "uniqueItems"]
)
# Keywords compared for equality only: the reader adding or changing one is reported.
EQUAL_KEYWORDS = (
    "pattern",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "unevaluatedProperties",
    "unevaluatedItems",
)
ANNOTATIONS = {
    "title",
    "description",
    "default",
    "examples",
    "$comment",
    "$schema",
    "$id",
    "id",
    "readOnly",
    "writeOnly",
    "deprecated",
    "definitions",
    "$defs",
    "$anchor",
    "$dynamicAnchor",
    "$vocabulary",
}


def json_type(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def types_of(schema) -> set | None:
    """The JSON types a schema admits, from `type` or from its `enum`/`const` values; None when unrestricted."""
    if not isinstance(schema, dict):
        return None if schema is not False else set()
    value = schema.get("type")
    if value is None:
        if isinstance(schema.get("enum"), list) or "const" in schema:
            values = schema["enum"] if isinstance(schema.get("enum"), list) else [schema.get("const")]
            return {json_type(v) for v in values}
        return None
    return set(value) if isinstance(value, list) else {value}


def _named_types(value) -> set:
    """The types a `type` keyword names (its value a name or a list of names)."""
    return set(value) if isinstance(value, list) else {value}


def _widen(types: set) -> set:
    return types | {"integer"} if "number" in types else types


def disjoint(branches: list) -> bool:
    """True when no instance can match two `oneOf` branches: their types, or their enum values, never meet."""
    sets = [types_of(b) for b in branches]
    known = [s for s in sets if s is not None]
    if len(known) == len(sets):
        widened = [_widen(s) for s in known]
        if all(not (a & b) for i, a in enumerate(widened) for b in widened[i + 1 :]):
            return True
    values = []
    for branch in branches:
        if not isinstance(branch, dict) or not (isinstance(branch.get("enum"), list) or "const" in branch):
            return False
        values.append(canonical_set(branch["enum"] if isinstance(branch.get("enum"), list) else [branch["const"]]))
    return all(a.isdisjoint(b) for i, a in enumerate(values) for b in values[i + 1 :])


def merge(base, *branches) -> dict:
    """The conjunction of schemas as one dict (for `allOf` and conditionals): properties merged per name,
    `required` united, `type` intersected; for other keywords the later schema wins (an approximation)."""
    merged: dict = dict(base) if isinstance(base, dict) else ({} if base is not False else {"not": {}})
    for branch in branches:
        if branch is False:
            return {"not": {}}
        if not isinstance(branch, dict):
            continue
        for key, value in branch.items():
            if key == "required" and isinstance(value, list):
                merged["required"] = sorted(set(merged.get("required") or []) | set(value), key=str)
            elif key == "properties" and isinstance(value, dict):
                props = dict(merged.get("properties") or {})
                for name, schema in value.items():
                    props[name] = merge(props[name], schema) if name in props else schema
                merged["properties"] = props
            elif key == "type" and "type" in merged:
                old, new = _named_types(merged["type"]), _named_types(value)
                common = old & new
                if ("integer" in old and "number" in new) or ("number" in old and "integer" in new):
                    common.add("integer")
                both = sorted(common)
                merged["type"] = both if len(both) != 1 else both[0]
            else:
                merged[key] = value
    return merged


def find_anchor(root, ref: str):
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


def _number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _bound_candidates(schema: dict, inclusive: str, exclusive: str) -> list[tuple]:
    """(number, exclusive?) pairs from `minimum`/`exclusiveMinimum` (or the maximum pair), draft-04's boolean
    `exclusiveMinimum: true` too."""
    candidates = []
    if _number(schema.get(inclusive)):
        candidates.append((schema[inclusive], False))
    flag = schema.get(exclusive)
    if _number(flag):
        candidates.append((flag, True))
    elif flag is True and candidates:
        candidates = [(schema[inclusive], True)]
    return candidates


def lower_bound(schema: dict) -> tuple:
    """(lowest allowed number, exclusive?)."""
    candidates = _bound_candidates(schema, "minimum", "exclusiveMinimum")
    return max(candidates) if candidates else (None, False)


def upper_bound(schema: dict) -> tuple:
    """(highest allowed number, exclusive?)."""
    candidates = _bound_candidates(schema, "maximum", "exclusiveMaximum")
    return min(candidates, key=lambda c: (c[0], not c[1])) if candidates else (None, False)


def check_bounds(reader: dict, writer: dict, r: str, w: str) -> list[tuple[str, str]]:
    """(change, reason) for every length, count, numeric or uniqueness bound the reader tightens."""
    if BOUND_KEYWORDS.isdisjoint(reader):
        return []  # a reader without bounds tightens none (the common case, checked first for speed)
    found = []
    for keyword, what in LOWER:
        if _number(reader.get(keyword)) and reader[keyword] > (
            writer.get(keyword) if _number(writer.get(keyword)) else 0
        ):
            found.append(
                (
                    f"{keyword} raised to {reader[keyword]} in the {r} schema",
                    f"refuses a shorter {what} the {w} schema allows",
                )
            )
    for keyword, what in UPPER:
        if _number(reader.get(keyword)) and reader[keyword] < (
            writer.get(keyword) if _number(writer.get(keyword)) else math.inf
        ):
            found.append(
                (
                    f"{keyword} lowered to {reader[keyword]} in the {r} schema",
                    f"refuses a longer {what} the {w} schema allows",
                )
            )
    r_low, r_low_x = lower_bound(reader)
    w_low, w_low_x = lower_bound(writer)
    if r_low is not None and (w_low is None or w_low < r_low or (w_low == r_low and r_low_x and not w_low_x)):
        found.append((f"minimum raised to {r_low} in the {r} schema", f"refuses smaller numbers the {w} schema allows"))
    r_high, r_high_x = upper_bound(reader)
    w_high, w_high_x = upper_bound(writer)
    if r_high is not None and (w_high is None or w_high > r_high or (w_high == r_high and r_high_x and not w_high_x)):
        found.append(
            (f"maximum lowered to {r_high} in the {r} schema", f"refuses larger numbers the {w} schema allows")
        )
    step = reader.get("multipleOf")
    if _number(step) and step:
        old = writer.get("multipleOf")
        if not _number(old) or abs(old / step - round(old / step)) > 1e-9:
            found.append((f"multipleOf {step} in the {r} schema", f"refuses numbers the {w} schema allows"))
    if reader.get("uniqueItems") is True and writer.get("uniqueItems") is not True:
        found.append(
            (f"uniqueItems set by the {r} schema", f"refuses arrays with repeated items the {w} schema allows")
        )
    return found
