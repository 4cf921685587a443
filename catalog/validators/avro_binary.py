"""A guard on Avro binary data before fastavro decodes it (issue 24): array counts bounded by what the data holds.

An Avro array is written as blocks, each a claimed item count followed by the items. Items of most types take at
least a byte, so a false count runs into the end of the data. Items of a zero-width type (`null`, a `fixed` of
size 0, a record whose fields are all zero-width) take none: fastavro then loops over the claimed count, 2^62 of
them, appending to a list, and never ends. `check_counts` walks the data as the schema lays it out, without
building values, and refuses a block that claims more items than bytes remain (the rule for items that take
bytes), or, for zero-width items, more than MAX_ZERO_WIDTH_ITEMS in the whole datum. It runs only for schemas
that hold an array of zero-width items (`has_zero_width_arrays`); fastavro decodes everything else as before.

Written by hand: fastavro has no hook on its block counts. The walk is on the schema as fastavro.parse_schema
normalises it (named types referenced by full name); each block is a step of the check's budget.
"""

from __future__ import annotations

from . import budget

MAX_ZERO_WIDTH_ITEMS = 100_000  # zero-width items in one datum (a list of that many None is about 1 MB)
FIXED_SIZES = {"boolean": 1, "float": 4, "double": 8}


class CountError(ValueError):
    """The data claims more items than it can hold."""


def _resolve(schema, names: dict):
    for _ in range(64):
        if isinstance(schema, str) and schema in names:
            schema = names[schema]
        elif isinstance(schema, dict) and isinstance(schema.get("type"), dict | list):
            schema = schema["type"]
        else:
            return schema
    return schema


def _zero_width(schema, names: dict, seen: frozenset = frozenset()) -> bool:
    schema = _resolve(schema, names)
    kind = schema.get("type") if isinstance(schema, dict) else schema
    if kind == "null":
        return True
    if kind == "fixed":
        return schema.get("size") == 0
    if kind in ("record", "error") and schema.get("name") not in seen:
        inner = seen | {schema.get("name")}
        return all(_zero_width(field["type"], names, inner) for field in schema.get("fields", []))
    return False


def has_zero_width_arrays(schema, names: dict) -> bool:
    """Whether an array anywhere in the schema has zero-width items (then `check_counts` is needed)."""
    stack, seen = [schema], set()
    while stack:
        node = _resolve(stack.pop(), names)
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        kind = node.get("type")
        if kind in ("record", "error"):
            if node.get("name") in seen:
                continue
            seen.add(node.get("name"))
            stack.extend(field["type"] for field in node.get("fields", []))
        elif kind == "array":
            if _zero_width(node["items"], names):
                return True
            stack.append(node["items"])
        elif kind == "map":
            stack.append(node["values"])
    return False


class _Walk:
    def __init__(self, data: bytes, names: dict):
        self.data, self.names, self.pos, self.zero_width_items = data, names, 0, 0

    def varint(self) -> int:
        value = shift = 0
        while True:
            if self.pos >= len(self.data):
                raise EOFError("the data ends inside a number")
            byte = self.data[self.pos]
            self.pos += 1
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return (value >> 1) ^ -(value & 1)
            shift += 7
            if shift > 70:
                raise ValueError("a number longer than 10 bytes")

    def skip(self, count: int) -> None:
        if count < 0 or self.pos + count > len(self.data):
            raise EOFError("the data ends inside a value")
        self.pos += count

    def value(self, schema) -> None:
        schema = _resolve(schema, self.names)
        if isinstance(schema, list):
            index = self.varint()
            if not 0 <= index < len(schema):
                raise ValueError(f"union branch {index} out of range")
            return self.value(schema[index])
        kind = schema.get("type") if isinstance(schema, dict) else schema
        if kind == "null":
            return
        if kind in FIXED_SIZES:
            return self.skip(FIXED_SIZES[kind])
        if kind in ("int", "long", "enum"):
            self.varint()
        elif kind in ("bytes", "string"):
            self.skip(self.varint())
        elif kind == "fixed":
            self.skip(schema["size"])
        elif kind in ("record", "error"):
            for field in schema.get("fields", []):
                self.value(field["type"])
        elif kind in ("array", "map"):
            self.blocks(schema, kind)

    def blocks(self, schema: dict, kind: str) -> None:
        items = schema["items"] if kind == "array" else schema["values"]
        zero_width = kind == "array" and _zero_width(items, self.names)
        while True:
            budget.spend()
            count = self.varint()
            if count == 0:
                return
            if count < 0:
                count = -count
                self.varint()  # the block's size in bytes
            left = len(self.data) - self.pos
            if zero_width:
                self.zero_width_items += count
                if self.zero_width_items > MAX_ZERO_WIDTH_ITEMS:
                    raise CountError(
                        f"claims more than {MAX_ZERO_WIDTH_ITEMS} items of a type that takes no bytes "
                        "(the most checked in one datum)"
                    )
                continue  # nothing to read for them
            if count > left:
                raise CountError(f"an {kind} block claims {count} items and only {left} bytes are left")
            for _ in range(count):
                if kind == "map":
                    self.skip(self.varint())
                self.value(items)


def check_counts(schema, names: dict, data: bytes) -> None:
    """Raise CountError when an array block of `data` claims more items than it can hold (see the module
    docstring); other malformations are left to fastavro's decoding (EOFError, ValueError here are ignored)."""
    try:
        _Walk(data, names).value(schema)
    except (EOFError, ValueError) as exc:
        if isinstance(exc, CountError):
            raise
    except RecursionError:
        raise CountError("is nested too deeply to be read") from None


__all__ = ["MAX_ZERO_WIDTH_ITEMS", "CountError", "check_counts", "has_zero_width_arrays"]
