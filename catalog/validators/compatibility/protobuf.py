"""Protobuf wire compatibility between two .proto files (proto2 and proto3).

Messages are matched by full name, fields by number. Incompatible: a field's type or number changed
(CONTRACT section 10: old data no longer reads the same), a removed field whose number (or name) is not
reserved, a field reusing a reserved number or name, a proto2 `required` field added or removed, a map
changed, a message or enum removed, an enum value removed from an enum. Adding fields and messages is
compatible. Field types are compared as written, so `int32` -> `int64` counts as a change.
"""
from __future__ import annotations

from ..schemas import parse_proto
from .result import Incompatibility


def load(content: bytes):
    try:
        return parse_proto(content.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError("not UTF-8")


def _reserved(elements) -> tuple[set[int], set[str], list[tuple[int, int]]]:
    numbers, names, ranges = set(), set(), []
    for element in elements:
        if type(element).__name__ != "Reserved":
            continue
        names |= {n.strip("\"'") for n in element.names}
        for text in element.ranges:
            parts = [p.strip() for p in str(text).split("to")]
            try:
                low = int(parts[0])
                high = (536870911 if parts[-1] == "max" else int(parts[-1])) if len(parts) > 1 else low
            except ValueError:
                continue
            ranges.append((low, high))
    return numbers, names, ranges


def _is_reserved(number: int, ranges) -> bool:
    return any(low <= number <= high for low, high in ranges)


def _fields(elements) -> dict[int, dict]:
    """number -> {name, type, label} of every field, oneof members included."""
    out = {}
    for element in elements:
        kind = type(element).__name__
        if kind == "Field":
            label = str(element.cardinality.value).lower() if element.cardinality else ""
            out[element.number] = {"name": element.name, "type": element.type, "label": label}
        elif kind == "MapField":
            out[element.number] = {"name": element.name, "type": f"map<{element.key_type},{element.value_type}>",
                                   "label": ""}
        elif kind == "OneOf":
            for member in _fields(element.elements).items():
                out[member[0]] = {**member[1], "oneof": element.name}
    return out


def _index(file) -> tuple[dict, dict]:
    """Full name -> elements, for messages and for enums."""
    package = next((e.name for e in file.file_elements if type(e).__name__ == "Package"), "")
    messages, enums = {}, {}

    def walk(elements, prefix):
        for element in elements:
            kind = type(element).__name__
            if kind == "Message":
                name = f"{prefix}.{element.name}" if prefix else element.name
                messages[name] = element.elements
                walk(element.elements, name)
            elif kind == "Enum":
                enums[f"{prefix}.{element.name}" if prefix else element.name] = element.elements

    walk(file.file_elements, package)
    return messages, enums


def _message(name: str, reader, writer, found: list) -> None:
    r_fields, w_fields = _fields(reader), _fields(writer)
    _numbers, r_reserved_names, r_ranges = _reserved(reader)
    for number, old in w_fields.items():
        where = f"{name}.{old['name']}"
        new = r_fields.get(number)
        if new is None:
            if not _is_reserved(number, r_ranges) and old["name"] not in r_reserved_names:
                found.append(Incompatibility(where, f"field {old['name']} = {number} removed without reserving "
                                                    "its number", "the number can be reused with another meaning"))
            continue
        if new["type"] != old["type"]:
            found.append(Incompatibility(where, f"type of field {number} changed from {old['type']} to {new['type']}",
                                         "data written with the old type no longer reads the same"))
        if (new["label"] == "required") != (old["label"] == "required"):
            found.append(Incompatibility(where, f"field {number} {'became' if new['label'] == 'required' else 'is no longer'}"
                                                " required", "proto2 required fields break readers or writers"))
        if new["label"] != old["label"] and "repeated" in (new["label"], old["label"]):
            found.append(Incompatibility(where, f"field {number} changed between repeated and singular",
                                         "the encoding differs"))
    old_by_name = {f["name"]: n for n, f in w_fields.items()}
    for number, new in r_fields.items():
        where = f"{name}.{new['name']}"
        if new["name"] in old_by_name and old_by_name[new["name"]] != number:
            found.append(Incompatibility(where, f"field {new['name']} renumbered from {old_by_name[new['name']]} "
                                                f"to {number}", "old data carries it under the old number"))
        _w_numbers, w_reserved_names, w_ranges = _reserved(writer)
        if number not in w_fields and (_is_reserved(number, w_ranges) or new["name"] in w_reserved_names):
            found.append(Incompatibility(where, f"field {new['name']} = {number} reuses a reserved number or name",
                                         "reserved numbers may still be present in old data"))


def _enum(name: str, reader, writer, found: list) -> None:
    r_values = {e.number: e.name for e in reader if type(e).__name__ == "EnumValue"}
    for element in writer:
        if type(element).__name__ == "EnumValue" and element.number not in r_values:
            found.append(Incompatibility(f"{name}.{element.name}", f"enum value {element.name} = {element.number} "
                                         "removed", "data holding it cannot be read as a known value"))


def incompatibilities(reader, writer) -> list[Incompatibility]:
    found: list[Incompatibility] = []
    r_messages, r_enums = _index(reader)
    w_messages, w_enums = _index(writer)
    for name, elements in w_messages.items():
        if name not in r_messages:
            found.append(Incompatibility(name, f"message {name} removed or renamed", "readers cannot decode it"))
            continue
        _message(name, r_messages[name], elements, found)
    for name, elements in w_enums.items():
        if name not in r_enums:
            found.append(Incompatibility(name, f"enum {name} removed or renamed", "readers cannot decode it"))
            continue
        _enum(name, r_enums[name], elements, found)
    return found
