"""JSON values in a canonical, hashable form (issue 24), so that sets answer what pairwise comparison answered in
quadratic time: `uniqueItems` of message data, `enum` lists in the compatibility checker and in the diff (a few
thousand values held a worker: docs/performance.md).

Equality is JSON Schema's: numbers equal by value (1 and 1.0), booleans distinct from numbers (true is not 1),
objects equal whatever their key order, arrays equal item by item. Written here: jsonschema's `equal` compares
two values, it gives no key for a set.
"""

from __future__ import annotations


def canonical(value):
    """A hashable form of the JSON value `value`: equal forms exactly for values JSON Schema deems equal."""
    if value is True or value is False:
        return ("b", value)
    if value is None:
        return ("n",)
    if isinstance(value, int | float):
        return ("#", value)  # 1 == 1.0 and hash(1) == hash(1.0): numbers meet by value
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, list | tuple):
        return ("a", tuple(canonical(item) for item in value))
    if isinstance(value, dict):
        return ("o", frozenset((key, canonical(item)) for key, item in value.items()))
    return ("?", repr(value))


def all_unique(items) -> bool:
    """Whether no two items of the array are equal (JSON Schema's `uniqueItems`), in linear time."""
    seen = set()
    for item in items:
        key = canonical(item)
        if key in seen:
            return False
        seen.add(key)
    return True


def canonical_set(values) -> set:
    """The canonical forms of `values` (a list of JSON values), for membership tests."""
    return {canonical(value) for value in values}


__all__ = ["all_unique", "canonical", "canonical_set"]
