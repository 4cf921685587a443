"""Protobuf wire compatibility between two .proto files (proto2 and proto3), per evolution step old -> new.

Messages and enums are matched by full name, fields by number, enum values by number. Each rule says which
direction it breaks (backward: the new schema reads old data; forward: the old schema reads new data):

- a message or enum removed or renamed: backward (old data of it has no type to be read as);
- a field's number changed (same name, another number): both;
- a field's type changed: both (docs/api-contract.md section 10), except the widenings that read every old value the same,
  int32 -> int64, uint32 -> uint64, uint32 -> int64, sint32 -> sint64, string -> bytes, which break forward
  only (the old reader truncates or mis-decodes the wider values); their reverse breaks backward only. Other
  "wire-compatible" pairs (int32/uint32/int64/uint64/bool, fixed32/sfixed32, fixed64/sfixed64, bytes ->
  string) change the value read for some data, so they count as type changes. Type names are resolved
  within the file, so `Foo` -> `pkg.Foo` is no change;
- a field removed without reserving its number (or name): both, since the number can be reused with another
  meaning; a field reusing a number or name the old schema reserved: both;
- proto2 `required` added (to a field or as a new field): backward; `required` removed (or a required field
  removed): forward; a field switched between repeated and singular: both;
- oneofs: existing fields brought together into one oneof (old data may set several): backward; fields taken
  out of a oneof or moved to another (new data may set several): forward; a single field moved into a new
  oneof of its own is compatible;
- enum values: a value removed: backward (old data holds it), and forward too when its number is not reserved;
  a value renumbered, or a new value reusing a reserved number or name: both. Adding values is compatible.

Renaming a field (same number and type) is wire compatible and not reported (it changes the JSON mapping).
Services, options and extensions are not compared.
"""

from __future__ import annotations

from .. import budget
from ..schemas import parse_proto
from .result import Incompatibility

MAX_NUMBER = 536_870_911
WIDENINGS = {("int32", "int64"), ("uint32", "uint64"), ("uint32", "int64"), ("sint32", "sint64"), ("string", "bytes")}
BOTH = ("backward", "forward")


def load(content: bytes):
    """The parsed .proto file; ValueError when it is not UTF-8 or does not parse."""
    try:
        return parse_proto(content.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError("not UTF-8")


def _kind(element) -> str:
    return type(element).__name__


def _reserved(elements) -> tuple[list[tuple[int, int]], set[str]]:
    ranges, names = [], set()
    for element in elements:
        if _kind(element) not in ("Reserved", "EnumReserved"):
            continue
        names |= {str(n).strip("\"'") for n in element.names}
        for text in element.ranges:
            parts = [p.strip() for p in str(text).split("to")]
            try:
                low = int(parts[0], 0)
                high = (MAX_NUMBER if parts[-1] == "max" else int(parts[-1], 0)) if len(parts) > 1 else low
            except ValueError:
                continue
            ranges.append((low, high))
    return ranges, names


def _is_reserved(number: int, name: str, reserved) -> bool:
    ranges, names = reserved
    return name in names or any(low <= number <= high for low, high in ranges)


class _File:
    """Messages and enums of one file by full name, with type names resolved to full names."""

    def __init__(self, tree):
        self.package = next((e.name for e in tree.file_elements if _kind(e) == "Package"), "")
        self.messages: dict[str, list] = {}
        self.enums: dict[str, list] = {}
        self._walk(tree.file_elements, self.package)

    def _walk(self, elements, prefix: str) -> None:
        for element in elements:
            kind = _kind(element)
            if kind in ("Message", "Group"):
                name = f"{prefix}.{element.name}" if prefix else element.name
                self.messages[name] = element.elements
                self._walk(element.elements, name)
            elif kind == "Enum":
                self.enums[f"{prefix}.{element.name}" if prefix else element.name] = element.elements
            elif kind == "OneOf":
                self._walk(element.elements, prefix)

    def resolve(self, type_name: str, scope: str) -> str:
        if type_name.startswith("."):
            return type_name[1:]
        parts = scope.split(".") if scope else []
        for cut in range(len(parts), -1, -1):
            candidate = ".".join([*parts[:cut], type_name])
            if candidate in self.messages or candidate in self.enums:
                return candidate
        return type_name

    def fields(self, message: str) -> dict[int, dict]:
        """number -> {name, type, label, oneof} of every field of `message`, oneof members included."""
        out: dict[int, dict] = {}

        def add(element, oneof):
            kind = _kind(element)
            if kind == "Field":
                label = element.cardinality.value.lower() if element.cardinality else ""
                out[element.number] = {
                    "name": element.name,
                    "type": self.resolve(element.type, message),
                    "label": label,
                    "oneof": oneof,
                }
            elif kind == "MapField":
                value = self.resolve(element.value_type, message)
                out[element.number] = {
                    "name": element.name,
                    "type": f"map<{element.key_type}, {value}>",
                    "label": "repeated",
                    "oneof": oneof,
                }
            elif kind == "Group":
                label = element.cardinality.value.lower() if element.cardinality else ""
                out[element.number] = {
                    "name": element.name.lower(),
                    "type": f"group {message}.{element.name}",
                    "label": label,
                    "oneof": oneof,
                }
            elif kind == "OneOf":
                for member in element.elements:
                    add(member, element.name)

        for element in self.messages[message]:
            add(element, None)
        return out


class _Steps:
    def __init__(self, direction: str):
        self.direction = direction
        self.found: dict[Incompatibility, None] = {}  # ordered, deduplicated

    def add(self, directions, path: str, change: str, reason: str) -> None:
        if self.direction in directions:
            role, other = ("new", "old") if self.direction == "backward" else ("old", "new")
            issue = Incompatibility(path, change, f"a reader using the {role} schema {reason.format(other=other)}")
            self.found[issue] = None


def _type_change(steps: _Steps, where: str, number: int, old: str, new: str) -> None:
    directions: tuple[str, ...]
    if (old, new) in WIDENINGS:
        directions = ("forward",)
    elif (new, old) in WIDENINGS:
        directions = ("backward",)
    else:
        directions = BOTH
    steps.add(
        directions,
        where,
        f"type of field {number} changed from {old} to {new}",
        "reads some values written with the {other} schema differently",
    )


def _message(steps: _Steps, name: str, old_file: _File, new_file: _File) -> None:
    old_fields, new_fields = old_file.fields(name), new_file.fields(name)
    old_reserved, new_reserved = _reserved(old_file.messages[name]), _reserved(new_file.messages[name])
    new_by_name = {f["name"]: n for n, f in new_fields.items()}
    for number, old in old_fields.items():
        budget.spend()  # a field's oneof rules look at its message's other fields: bounded per field
        where = f"{name}.{old['name']}"
        new = new_fields.get(number)
        if new is None:
            if old["name"] in new_by_name:
                steps.add(
                    BOTH,
                    where,
                    f"field '{old['name']}' renumbered from {number} to {new_by_name[old['name']]}",
                    "finds the field under the other number",
                )
            elif not _is_reserved(number, old["name"], new_reserved):
                steps.add(
                    BOTH,
                    where,
                    f"field '{old['name']}' = {number} removed without reserving its number",
                    "may meet the number reused with another meaning",
                )
            if old["label"] == "required":
                steps.add(
                    ("forward",),
                    where,
                    f"required field '{old['name']}' removed",
                    "refuses data without the required field",
                )
            continue
        if new["type"] != old["type"]:
            _type_change(steps, where, number, old["type"], new["type"])
        if new["label"] == "required" and old["label"] != "required":
            steps.add(("backward",), where, f"field {number} became required", "refuses old data without it")
        if old["label"] == "required" and new["label"] != "required":
            steps.add(("forward",), where, f"field {number} is no longer required", "refuses new data without it")
        if (new["label"] == "repeated") != (old["label"] == "repeated"):
            steps.add(
                BOTH,
                where,
                f"field {number} changed between repeated and singular",
                "reads a list where one value was written, or keeps only the last value",
            )
        if new["oneof"] != old["oneof"]:
            _oneof(steps, where, number, old, new, old_fields, new_fields)
    for number, new in new_fields.items():
        budget.spend()
        if number in old_fields:
            continue
        where = f"{name}.{new['name']}"
        if _is_reserved(number, new["name"], old_reserved):
            steps.add(
                BOTH,
                where,
                f"field '{new['name']}' = {number} reuses a reserved number or name",
                "may meet old data carrying the number with its former meaning",
            )
        if new["label"] == "required":
            steps.add(
                ("backward",), where, f"required field '{new['name']}' = {number} added", "refuses old data without it"
            )


def _oneof(steps: _Steps, where: str, number: int, old: dict, new: dict, old_fields: dict, new_fields: dict) -> None:
    if new["oneof"] is not None:
        joined = [
            n
            for n, f in new_fields.items()
            if f["oneof"] == new["oneof"]
            and n != number
            and n in old_fields
            and (old["oneof"] is None or old_fields[n]["oneof"] != old["oneof"])
        ]
        if joined:
            steps.add(
                ("backward",),
                where,
                f"field {number} joined oneof '{new['oneof']}' with existing fields {', '.join(map(str, joined))}",
                "keeps only one of the fields old data may have set together",
            )
    if old["oneof"] is not None:
        mates = [n for n, f in old_fields.items() if f["oneof"] == old["oneof"] and n != number]
        if mates:
            steps.add(
                ("forward",),
                where,
                f"field {number} left oneof '{old['oneof']}'",
                "keeps only one of the fields new data may set together",
            )


def _enum(steps: _Steps, name: str, old_elements, new_elements) -> None:
    old_values = {e.number: e.name for e in old_elements if _kind(e) == "EnumValue"}
    new_values = {e.number: e.name for e in new_elements if _kind(e) == "EnumValue"}
    new_numbers = {v: n for n, v in new_values.items()}
    old_reserved, new_reserved = _reserved(old_elements), _reserved(new_elements)
    for number, value in old_values.items():
        if number in new_values:
            continue
        where = f"{name}.{value}"
        if value in new_numbers:
            steps.add(
                BOTH,
                where,
                f"enum value {value} renumbered from {number} to {new_numbers[value]}",
                "reads the value as another symbol",
            )
            continue
        steps.add(
            ("backward",),
            where,
            f"enum value {value} = {number} removed",
            "cannot read old data holding it as a known value",
        )
        if not _is_reserved(number, value, new_reserved):
            steps.add(
                ("forward",),
                where,
                f"enum value {value} = {number} removed without reserving its number",
                "may meet the number reused with another meaning",
            )
    for number, value in new_values.items():
        if number not in old_values and _is_reserved(number, value, old_reserved):
            steps.add(
                BOTH,
                f"{name}.{value}",
                f"enum value {value} = {number} reuses a reserved number or name",
                "may meet old data holding the number with its former meaning",
            )


def compare(old, new, direction: str) -> list[Incompatibility]:
    """The incompatibilities of the step `old` -> `new` that break `direction` (`backward` or `forward`)."""
    steps = _Steps(direction)
    old_file, new_file = _File(old), _File(new)
    for name in old_file.messages:
        if name not in new_file.messages:
            steps.add(("backward",), name, f"message {name} removed or renamed", f"has no message {name} for old data")
        else:
            _message(steps, name, old_file, new_file)
    for name, elements in old_file.enums.items():
        if name not in new_file.enums:
            steps.add(("backward",), name, f"enum {name} removed or renamed", f"has no enum {name} for old data")
        else:
            _enum(steps, name, elements, new_file.enums[name])
    return list(steps.found)
