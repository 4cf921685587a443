"""A `FileDescriptorProto` written as `.proto` text (written here: protobuf has no printer for descriptors). Its
output for a resolved descriptor is the canonical text a PROTOBUF schema id is keyed by (confluent.protobuf)."""

from __future__ import annotations

from typing import TypeAlias

from google.protobuf import descriptor_pb2

# aliases (descriptor_pb2 builds its classes when imported, so mypy knows them only as Any)
FDP: TypeAlias = descriptor_pb2.FileDescriptorProto
FieldDP: TypeAlias = descriptor_pb2.FieldDescriptorProto
SCALARS = {
    name: getattr(FieldDP, f"TYPE_{name.upper()}")
    for name in (
        "double float int64 uint64 int32 fixed64 fixed32 bool string bytes uint32 sfixed32 sfixed64 sint32 sint64"
    ).split()
}
SCALAR_NAMES = {number: name for name, number in SCALARS.items()}
LABELS = {"OPTIONAL": FieldDP.LABEL_OPTIONAL, "REQUIRED": FieldDP.LABEL_REQUIRED, "REPEATED": FieldDP.LABEL_REPEATED}
MAX_RANGE = 536870911


def camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def _quote(value: str | bytes) -> str:
    data = value if isinstance(value, bytes) else value.encode("utf-8")
    out = []
    for byte in data:
        char = chr(byte)
        if char in '"\\':
            out.append("\\" + char)
        elif 32 <= byte < 127:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def _option_value(field, value) -> str:
    if field.type == field.TYPE_BOOL:
        return "true" if value else "false"
    if field.type == field.TYPE_STRING:
        return _quote(value)
    if field.enum_type is not None:
        return field.enum_type.values_by_number[value].name
    return str(value)


def _options(options) -> list[str]:
    return [
        f"{field.name} = {_option_value(field, value)}"
        for field, value in options.ListFields()
        if not field.is_repeated and field.message_type is None and not field.is_extension
    ]


def _type_of(field: FieldDP) -> str:
    return field.type_name if field.type_name else SCALAR_NAMES.get(field.type, "bytes")


def _render_field(field: FieldDP, syntax: str, in_oneof: bool, maps: dict) -> str:
    entry = maps.get(field.type_name.rsplit(".", 1)[-1]) if field.type_name else None
    extras = []
    if field.HasField("default_value"):
        default = field.default_value
        if field.type in (FieldDP.TYPE_STRING, FieldDP.TYPE_BYTES):
            default = _quote(default)
        extras.append(f"default = {default}")
    if field.HasField("json_name") and field.json_name != camel(field.name)[:1].lower() + camel(field.name)[1:]:
        extras.append(f"json_name = {_quote(field.json_name)}")
    extras += _options(field.options)
    suffix = f" [{', '.join(extras)}]" if extras else ""
    if entry is not None and field.label == FieldDP.LABEL_REPEATED:
        key, value = (next(f for f in entry.field if f.number == n) for n in (1, 2))
        return f"map<{_type_of(key)}, {_type_of(value)}> {field.name} = {field.number}{suffix};"
    label = ""
    if field.label == FieldDP.LABEL_REPEATED:
        label = "repeated "
    elif field.proto3_optional or (syntax == "proto2" and not in_oneof):
        label = "required " if field.label == FieldDP.LABEL_REQUIRED else "optional "
    return f"{label}{_type_of(field)} {field.name} = {field.number}{suffix};"


def _render_ranges(ranges, word: str, exclusive_end: bool = True) -> list[str]:
    parts = []
    for item in ranges:
        end = item.end - 1 if exclusive_end else item.end
        parts.append(str(item.start) if end == item.start else f"{item.start} to {'max' if end >= MAX_RANGE else end}")
    return [f"{word} {', '.join(parts)};"] if parts else []


def _render_enum(enum, indent: str) -> list[str]:
    lines = [f"{indent}enum {enum.name} {{"]
    lines += [f"{indent}  option {text};" for text in _options(enum.options)]
    for value in enum.value:
        extras = _options(value.options)
        lines.append(f"{indent}  {value.name} = {value.number}{f' [{chr(44).join(extras)}]' if extras else ''};")
    lines += [f"{indent}  {line}" for line in _render_ranges(enum.reserved_range, "reserved", exclusive_end=False)]
    if enum.reserved_name:
        lines.append(f"{indent}  reserved {', '.join(_quote(n) for n in enum.reserved_name)};")
    return [*lines, f"{indent}}}"]


def _render_message(message, syntax: str, indent: str) -> list[str]:
    maps = {nested.name: nested for nested in message.nested_type if nested.options.map_entry}
    lines = [f"{indent}message {message.name} {{"]
    inner = indent + "  "
    lines += [f"{inner}option {text};" for text in _options(message.options)]
    real_oneofs = {
        index
        for index in range(len(message.oneof_decl))
        if not all(f.proto3_optional for f in message.field if f.HasField("oneof_index") and f.oneof_index == index)
    }
    done_oneofs = set()
    for field in message.field:
        if field.HasField("oneof_index") and field.oneof_index in real_oneofs:
            index = field.oneof_index
            if index in done_oneofs:
                continue
            done_oneofs.add(index)
            lines.append(f"{inner}oneof {message.oneof_decl[index].name} {{")
            for member in message.field:
                if member.HasField("oneof_index") and member.oneof_index == index:
                    lines.append(f"{inner}  {_render_field(member, syntax, True, maps)}")
            lines.append(f"{inner}}}")
            continue
        lines.append(f"{inner}{_render_field(field, syntax, False, maps)}")
    for nested in message.nested_type:
        if nested.name not in maps:
            lines += _render_message(nested, syntax, inner)
    for enum in message.enum_type:
        lines += _render_enum(enum, inner)
    lines += [f"{inner}{line}" for line in _render_ranges(message.reserved_range, "reserved")]
    if message.reserved_name:
        lines.append(f"{inner}reserved {', '.join(_quote(n) for n in message.reserved_name)};")
    lines += [f"{inner}{line}" for line in _render_ranges(message.extension_range, "extensions")]
    lines += _render_extensions(message.extension, syntax, inner)
    return [*lines, f"{indent}}}"]


def _render_extensions(fields, syntax: str, indent: str) -> list[str]:
    lines = []
    for extendee in dict.fromkeys(f.extendee for f in fields):
        lines.append(f"{indent}extend {extendee} {{")
        lines += [f"{indent}  {_render_field(f, syntax, False, {})}" for f in fields if f.extendee == extendee]
        lines.append(f"{indent}}}")
    return lines


def render(fdp: FDP) -> str:
    syntax = fdp.syntax or "proto2"
    lines = [f'syntax = "{syntax}";']
    if fdp.package:
        lines.append(f"package {fdp.package};")
    for index, dependency in enumerate(fdp.dependency):
        kind = "public " if index in fdp.public_dependency else "weak " if index in fdp.weak_dependency else ""
        lines.append(f"import {kind}{_quote(dependency)};")
    lines += [f"option {text};" for text in _options(fdp.options)]
    for message in fdp.message_type:
        lines += _render_message(message, syntax, "")
    for enum in fdp.enum_type:
        lines += _render_enum(enum, "")
    for service in fdp.service:
        lines.append(f"service {service.name} {{")
        for method in service.method:
            stream_in = "stream " if method.client_streaming else ""
            stream_out = "stream " if method.server_streaming else ""
            lines.append(
                f"  rpc {method.name}({stream_in}{method.input_type}) returns ({stream_out}{method.output_type});"
            )
        lines.append("}")
    lines += _render_extensions(fdp.extension, syntax, "")
    return "\n".join(lines) + "\n"
