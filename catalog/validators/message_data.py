"""Message data in Protobuf (docs/api-contract.md section 12); XML data against an XSD is in message_xml.py.

Protobuf: the data is the binary encoding (base64 in the message) of one message type of the stored `.proto`
text, the one the definition's `schemaurl` names after `:` (`.../schemas/s:Order`, `...:com.example.Order`; a
name without package is looked up in the file's package, then as a unique suffix; without a name, the file's
only top-level message). The protobuf runtime is not installed in this project, so the wire format is decoded
here by hand from proto-schema-parser's AST (types resolved by catalog.validators.compatibility.protobuf):
varint, 64-bit, length-delimited, 32-bit and (proto2) groups; every field number must be declared in its
message (or fall in an `extensions` range), every wire type must be the declared type's (a repeated scalar
number may be packed), strings must be UTF-8, nested messages and map entries are read recursively (at most
MAX_DEPTH deep, so a recursive message type is bounded), proto2 `required` fields must be present, and proto2
(closed) enums must hold a declared number. Errors name paths as `data.items[0].sku`, `data (field 7)`.

"""

from __future__ import annotations

from registry.store.bounded_cache import BoundedCache

from .compatibility.protobuf import _File, load
from .digest_cache import digest

MAX_DEPTH = 100  # nesting of messages in Protobuf data (the protobuf runtime's default recursion limit)
CACHE_SIZE = 128
_cache = BoundedCache("protobuf_data_schemas", max_entries=CACHE_SIZE)  # by digest

VARINT, I64, LEN, SGROUP, EGROUP, I32 = 0, 1, 2, 3, 4, 5
WIRE_NAMES = {
    VARINT: "varint",
    I64: "64-bit",
    LEN: "length-delimited",
    SGROUP: "group start",
    EGROUP: "group end",
    I32: "32-bit",
}
SCALAR_WIRE = {
    **dict.fromkeys(("int32", "int64", "uint32", "uint64", "sint32", "sint64", "bool"), VARINT),
    **dict.fromkeys(("fixed64", "sfixed64", "double"), I64),
    **dict.fromkeys(("fixed32", "sfixed32", "float"), I32),
    **dict.fromkeys(("string", "bytes"), LEN),
}


class _Stop(Exception):
    """The data cannot be read further (truncated, a bad varint or wire type): the error is reported."""


# --- Protobuf ---------------------------------------------------------------------------------------------------


class ProtoSchema:
    """A parsed .proto file: messages, enums, fields by number, extension ranges, syntax."""

    def __init__(self, content: bytes):
        tree = load(content)  # ValueError when it does not parse
        self.syntax = tree.syntax or "proto2"
        self.file = _File(tree)
        self.top_level = [
            f"{self.file.package}.{e.name}" if self.file.package else e.name
            for e in tree.file_elements
            if type(e).__name__ == "Message"
        ]
        self._fields: dict[str, dict] = {}
        self._extensions: dict[str, tuple] = {}

    def fields(self, message: str) -> dict[int, dict]:
        """number -> {name, type, label, oneof, fast}; `fast`: the wire type of a scalar number (not an enum,
        not a string) whose value needs no check beyond being read, else None."""
        if message not in self._fields:
            fields = self.file.fields(message)
            for declared in fields.values():
                kind = declared["type"]
                declared["fast"] = SCALAR_WIRE[kind] if kind in SCALAR_WIRE and kind != "string" else None
            self._fields[message] = fields
        return self._fields[message]

    def extension_ranges(self, message: str) -> tuple[tuple[int, int], ...]:
        if message not in self._extensions:
            self._extensions[message] = self._extension_ranges(message)
        return self._extensions[message]

    def _extension_ranges(self, message: str) -> tuple[tuple[int, int], ...]:
        out = []
        for element in self.file.messages[message]:
            if type(element).__name__ != "ExtensionRange":
                continue
            for text in element.ranges:
                parts = [p.strip() for p in str(text).split("to")]
                try:
                    low = int(parts[0], 0)
                    high = (536_870_911 if parts[-1] == "max" else int(parts[-1], 0)) if len(parts) > 1 else low
                except ValueError:
                    continue
                out.append((low, high))
        return tuple(out)

    def find(self, name: str | None) -> tuple[str | None, str | None]:
        """(full message name, None) or (None, why not)."""
        messages = self.file.messages
        if not name:
            if len(self.top_level) == 1:
                return self.top_level[0], None
            return None, (
                f"the schema declares {len(self.top_level)} top-level messages and the definition's "
                "schemaurl names none (`:Message`)"
            )
        name = name.lstrip(".")
        package = self.file.package
        for candidate in (name, f"{package}.{name}" if package else name):
            if candidate in messages:
                return candidate, None
        matches = [m for m in messages if m.endswith("." + name)]
        if len(matches) == 1:
            return matches[0], None
        if matches:
            return None, f"the message name {name!r} is ambiguous in the schema ({', '.join(sorted(matches)[:5])})"
        return None, f"the schema declares no message {name!r}"


def proto_schema(content: bytes) -> ProtoSchema:
    key = digest("ProtobufData", None, content)
    cached = _cache.get(key)
    if cached is None:
        cached = ProtoSchema(content)
        _cache.put(key, cached)
    return cached


class _Reader:
    def __init__(self, schema: ProtoSchema, report):
        self.schema = schema
        self.report = report

    @staticmethod
    def varint(buf: bytes, pos: int, end: int, path: str) -> tuple[int, int]:
        if pos < end and buf[pos] < 0x80:
            return buf[pos], pos + 1
        value, shift = 0, 0
        while True:
            if pos >= end:
                raise _Stop(path, "truncated: a varint runs past the end of the data")
            byte = buf[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return value, pos
            shift += 7
            if shift >= 70:
                raise _Stop(path, "a varint longer than 10 bytes")

    def skip(self, buf: bytes, pos: int, end: int, wire: int, number: int, path: str, depth: int) -> int:
        """The position after a field's value of wire type `wire` (its content not checked)."""
        if wire == VARINT:
            return self.varint(buf, pos, end, path)[1]
        if wire in (I64, I32):
            size = 8 if wire == I64 else 4
            if pos + size > end:
                raise _Stop(path, f"truncated: a {WIRE_NAMES[wire]} value runs past the end of the data")
            return pos + size
        if wire == LEN:
            length, pos = self.varint(buf, pos, end, path)
            if pos + length > end:
                raise _Stop(path, f"truncated: {length} bytes announced, {end - pos} left")
            return pos + length
        if wire == SGROUP:
            if depth >= MAX_DEPTH:
                raise _Stop(path, f"groups nested more than {MAX_DEPTH} deep")
            while True:
                tag, pos = self.varint(buf, pos, end, path)
                if tag & 7 == EGROUP:
                    if tag >> 3 != number:
                        raise _Stop(path, f"group {number} ended by the end of group {tag >> 3}")
                    return pos
                pos = self.skip(buf, pos, end, tag & 7, tag >> 3, path, depth + 1)
        raise _Stop(path, f"invalid wire type {wire}")

    def message(
        self, name: str, buf: bytes, pos: int, end: int, path: str, depth: int, group: int | None = None
    ) -> int:
        """Read message `name` from buf[pos:end] (until the end of group `group` when given); the end position."""
        if depth > MAX_DEPTH:
            raise _Stop(path, f"messages nested more than {MAX_DEPTH} deep")
        fields = self.schema.fields(name)
        counts: dict[int, int] = {}
        seen: set[int] = set()
        while pos < end:
            tag, pos = self.varint(buf, pos, end, path)
            number, wire = tag >> 3, tag & 7
            if wire == EGROUP:
                if group is not None and number == group:
                    self._required(name, fields, seen, path)
                    return pos
                raise _Stop(path, f"an end of group {number} with no group open")
            if number == 0:
                raise _Stop(path, "field number 0 (not a valid field number)")
            if wire in (6, 7):
                raise _Stop(f"{path} (field {number})", f"invalid wire type {wire}")
            declared = fields.get(number)
            if declared is None:
                if not any(low <= number <= high for low, high in self.schema.extension_ranges(name)):
                    self.report.error(f"{path} (field {number})", f"field {number} is not declared in message {name}")
                pos = self.skip(buf, pos, end, wire, number, f"{path} (field {number})", depth)
                continue
            seen.add(number)
            repeated = declared["label"] == "repeated"
            if repeated:
                index = counts.get(number, 0)
                counts[number] = index + 1
            if wire == declared["fast"]:  # a number read as declared: skipped without building its path
                start = pos
                if wire == VARINT:
                    while pos < end and buf[pos] >= 0x80:
                        pos += 1
                    pos += 1
                else:
                    pos += 8 if wire == I64 else 4
                if pos > end or pos - start > 10:
                    where = f"{path}.{declared['name']}" + (f"[{index}]" if repeated else "")
                    raise _Stop(
                        where,
                        "a varint longer than 10 bytes"
                        if pos <= end
                        else f"truncated: a {WIRE_NAMES[wire]} value runs past the end of the data",
                    )
                continue
            if wire == LEN and declared["type"] == "string":  # likewise a string, its path built on error only
                length, after = self.varint(buf, pos, end, path)
                if after + length <= end:
                    try:
                        buf[after : after + length].decode("utf-8")
                        pos = after + length
                        continue
                    except UnicodeDecodeError:
                        pass
            where = f"{path}.{declared['name']}"
            if repeated:
                where = f"{where}[{index}]"
            pos = self.field(declared, name, buf, pos, end, wire, number, where, depth)
        if group is not None:
            raise _Stop(path, f"truncated: group {group} has no end")
        self._required(name, fields, seen, path)
        return pos

    def _required(self, name: str, fields: dict, seen: set, path: str) -> None:
        for number, declared in fields.items():
            if declared["label"] == "required" and number not in seen:
                self.report.error(f"{path}.{declared['name']}", "required but missing")

    def field(
        self, declared: dict, scope: str, buf: bytes, pos: int, end: int, wire: int, number: int, where: str, depth: int
    ) -> int:
        kind = declared["type"]
        if kind.startswith("map<"):
            key_type, value_type = (part.strip() for part in kind[4:-1].split(",", 1))
            if wire != LEN:
                return self._wrong(buf, pos, end, wire, number, where, depth, "a map entry", LEN)
            length, pos = self.varint(buf, pos, end, where)
            if pos + length > end:
                raise _Stop(where, f"truncated: {length} bytes announced, {end - pos} left")
            self._map_entry(key_type, value_type, buf, pos, pos + length, where, depth + 1)
            return pos + length
        if kind.startswith("group "):
            if wire != SGROUP:
                return self._wrong(buf, pos, end, wire, number, where, depth, "a group", SGROUP)
            return self.message(kind[6:], buf, pos, end, where, depth + 1, group=number)
        return self.value(kind, declared["label"] == "repeated", buf, pos, end, wire, number, where, depth)

    def _map_entry(
        self, key_type: str, value_type: str, buf: bytes, pos: int, end: int, where: str, depth: int
    ) -> None:
        entry = {
            1: {"name": "key", "type": key_type, "label": ""},
            2: {"name": "value", "type": value_type, "label": ""},
        }
        while pos < end:
            tag, pos = self.varint(buf, pos, end, where)
            number, wire = tag >> 3, tag & 7
            if number not in entry:
                self.report.error(f"{where} (field {number})", f"field {number} is not declared in a map entry")
                pos = self.skip(buf, pos, end, wire, number, where, depth)
                continue
            pos = self.value(
                entry[number]["type"], False, buf, pos, end, wire, number, f"{where}.{entry[number]['name']}", depth
            )

    def _wrong(self, buf, pos, end, wire, number, where, depth, what: str, expected: int) -> int:
        self.report.error(
            where, f"wire type {wire} ({WIRE_NAMES.get(wire, '?')}) where {what} is {WIRE_NAMES[expected]} ({expected})"
        )
        return self.skip(buf, pos, end, wire, number, where, depth)

    def value(
        self, kind: str, repeated: bool, buf: bytes, pos: int, end: int, wire: int, number: int, where: str, depth: int
    ) -> int:
        schema = self.schema
        if kind in SCALAR_WIRE or kind in schema.file.enums:
            expected = SCALAR_WIRE.get(kind, VARINT)
            if wire == LEN and expected != LEN and repeated:  # packed
                length, pos = self.varint(buf, pos, end, where)
                stop = pos + length
                if stop > end:
                    raise _Stop(where, f"truncated: {length} bytes announced, {end - pos} left")
                while pos < stop:
                    pos = self._scalar(kind, expected, buf, pos, stop, where)
                return stop
            if wire != expected:
                return self._wrong(buf, pos, end, wire, number, where, depth, kind, expected)
            return self._scalar(kind, expected, buf, pos, end, where)
        if kind in schema.file.messages:
            if wire != LEN:
                return self._wrong(buf, pos, end, wire, number, where, depth, f"message {kind}", LEN)
            length, pos = self.varint(buf, pos, end, where)
            if pos + length > end:
                raise _Stop(where, f"truncated: {length} bytes announced, {end - pos} left")
            self.message(kind, buf, pos, pos + length, where, depth + 1)
            return pos + length
        # a type from an imported file (google.protobuf.Timestamp ...): its content is not checked
        return self.skip(buf, pos, end, wire, number, where, depth)

    def _scalar(self, kind: str, wire: int, buf: bytes, pos: int, end: int, where: str) -> int:
        if wire == VARINT:
            value, after = self.varint(buf, pos, end, where)
            if kind in self.schema.file.enums and self.schema.syntax == "proto2":
                signed = value - (1 << 64) if value >= 1 << 63 else value
                numbers = {e.number for e in self.schema.file.enums[kind] if type(e).__name__ == "EnumValue"}
                if signed not in numbers:
                    self.report.error(where, f"{signed} is not a value of enum {kind}")
            return after
        if wire == LEN:
            length, pos = self.varint(buf, pos, end, where)
            if pos + length > end:
                raise _Stop(where, f"truncated: {length} bytes announced, {end - pos} left")
            if kind == "string":
                try:
                    buf[pos : pos + length].decode("utf-8")
                except UnicodeDecodeError:
                    self.report.error(where, "a string that is not valid UTF-8")
            return pos + length
        size = 8 if wire == I64 else 4
        if pos + size > end:
            raise _Stop(where, f"truncated: a {WIRE_NAMES[wire]} value runs past the end of the data")
        return pos + size


def check_protobuf(content: bytes, message_name: str | None, raw: bytes, report) -> None:
    """The binary `raw` as message `message_name` of the .proto `content`: errors into `report`."""
    try:
        schema = proto_schema(content)
    except ValueError as exc:
        report.unchecked("data", f"could not be checked: the Protobuf schema cannot be parsed: {exc}")
        return
    name, why = schema.find(message_name)
    if name is None:
        report.error("data", f"cannot be checked: {why}")
        return
    try:
        _Reader(schema, report).message(name, bytes(raw), 0, len(raw), "data", 0)
    except _Stop as stop:
        path, reason = stop.args
        report.error(path, f"is not the Protobuf encoding of {name}: {reason}")
    except RecursionError:
        report.error("data", f"is not the Protobuf encoding of {name}: nested too deeply")
