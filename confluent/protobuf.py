"""PROTOBUF schemas as the Confluent serializers send and read them (docs/confluent.md).

The serializers register the base64 of a `FileDescriptorProto` (its imports registered as subjects of their own,
named by the file names of the imports, and given as `references`), and read with `?format=serialized`. People
write and read `.proto` text. So: a registration is `.proto` text or a descriptor; the registry stores `.proto`
text (a descriptor is rendered to text); `?format=serialized` answers the descriptor of the stored text.

- `descriptor_of_text`: `.proto` text to a `FileDescriptorProto` with the type names as written, from
  proto-schema-parser's syntax tree (written here: no Python library compiles `.proto` text without protoc).
- `resolved`: that descriptor checked and resolved by protobuf's own `DescriptorPool` (the well-known types and
  the referenced files known): an undefined type or a duplicate name is refused there, and type names come out
  fully qualified, as protoc writes them.
- `render`: a descriptor as `.proto` text (written here: protobuf has no printer for descriptors); its output for
  the resolved descriptor is the canonical text the schema id is keyed by.
"""

from __future__ import annotations

import base64
import binascii
import functools
import importlib

from google.protobuf import descriptor_pb2, descriptor_pool

from catalog.validators.schemas import parse_proto

from .errors import invalid_schema
from .proto_text import FDP, LABELS, MAX_RANGE, SCALARS, FieldDP, camel, render

# ---- .proto text -> FileDescriptorProto ----


def _set_options(options, items) -> None:
    """Simple options (`java_package = "x"`, `packed = true`, `optimize_for = SPEED`); custom options
    (`(my.option)`) are kept in the stored text only."""
    # here: the Protobuf parser loads with the first Protobuf schema, not at the start-up of every process
    from proto_schema_parser import ast

    for item in items:
        if not isinstance(item, ast.Option) or item.name.startswith("("):
            continue
        field = options.DESCRIPTOR.fields_by_name.get(item.name)
        value = item.value
        if field is None:
            continue
        if isinstance(value, ast.Identifier):
            value = value.name
            if field.enum_type is not None:
                value = field.enum_type.values_by_name[value].number
        try:
            setattr(options, item.name, value)
        except (TypeError, ValueError, KeyError):
            raise invalid_schema(f"option {item.name} = {value!r} has the wrong type")


def _ranges(target, ranges: list[str], exclusive_end: bool = True) -> None:
    for text in ranges:
        low, _sep, high = (part.strip() for part in str(text).partition(" to "))
        start = int(low)
        end = MAX_RANGE if high == "max" else int(high or low)
        item = target.add()
        item.start, item.end = start, end + 1 if exclusive_end else end


def _field(ast_field, syntax: str, oneof_index: int | None = None) -> FieldDP:
    # here: the Protobuf parser loads with the first Protobuf schema, not at the start-up of every process
    from proto_schema_parser import ast

    out = FieldDP(name=ast_field.name, number=ast_field.number)
    type_name = ast_field.type
    if type_name in SCALARS:
        out.type = SCALARS[type_name]
    else:
        out.type_name = type_name
    cardinality = ast_field.cardinality.value if ast_field.cardinality else None
    out.label = LABELS.get(cardinality or "", FieldDP.LABEL_OPTIONAL)
    if syntax == "proto3" and cardinality == "OPTIONAL":
        out.proto3_optional = True
    if oneof_index is not None:
        out.oneof_index = oneof_index
    for option in ast_field.options:
        if not isinstance(option, ast.Option):
            continue
        value = option.value.name if isinstance(option.value, ast.Identifier) else option.value
        if option.name == "default":
            out.default_value = str(value).lower() if isinstance(value, bool) else str(value)
        elif option.name == "json_name":
            out.json_name = str(value)
    _set_options(out.options, ast_field.options)
    if not out.options.ListFields():
        out.ClearField("options")
    return out


def _message(node, syntax: str) -> descriptor_pb2.DescriptorProto:
    # here: the Protobuf parser loads with the first Protobuf schema, not at the start-up of every process
    from proto_schema_parser import ast

    out = descriptor_pb2.DescriptorProto(name=node.name)
    synthetic = []
    for element in node.elements:
        if isinstance(element, ast.Field):
            field = _field(element, syntax)
            out.field.append(field)
            if field.proto3_optional:
                synthetic.append(len(out.field) - 1)
        elif isinstance(element, ast.MapField):
            entry = out.nested_type.add(name=f"{camel(element.name)}Entry")
            entry.options.map_entry = True
            for number, (name, type_name) in enumerate((("key", element.key_type), ("value", element.value_type)), 1):
                part = entry.field.add(name=name, number=number, label=FieldDP.LABEL_OPTIONAL)
                if type_name in SCALARS:
                    part.type = SCALARS[type_name]
                else:
                    part.type_name = type_name
            field = out.field.add(
                name=element.name, number=element.number, label=FieldDP.LABEL_REPEATED, type_name=entry.name
            )
            _set_options(field.options, element.options)
            if not field.options.ListFields():
                field.ClearField("options")
        elif isinstance(element, ast.OneOf):
            index = len(out.oneof_decl)
            out.oneof_decl.add(name=element.name)
            for item in element.elements:
                if isinstance(item, ast.Field):
                    out.field.append(_field(item, syntax, index))
        elif isinstance(element, ast.Message):
            out.nested_type.append(_message(element, syntax))
        elif isinstance(element, ast.Enum):
            out.enum_type.append(_enum(element))
        elif isinstance(element, ast.Reserved):
            _ranges(out.reserved_range, element.ranges)
            out.reserved_name.extend(element.names)
        elif isinstance(element, ast.ExtensionRange):
            _ranges(out.extension_range, element.ranges)
        elif isinstance(element, ast.Extension):
            for item in element.elements:
                if isinstance(item, ast.Field):
                    field = _field(item, syntax)
                    field.extendee = element.typeName
                    out.extension.append(field)
        elif isinstance(element, ast.Group):
            raise invalid_schema(f"group {element.name!r}: proto2 groups are not supported here")
    for position in synthetic:  # proto3 `optional`: a synthetic oneof each, after the real ones
        out.field[position].oneof_index = len(out.oneof_decl)
        out.oneof_decl.add(name=f"_{out.field[position].name}")
    _set_options(out.options, node.elements)
    if not out.options.ListFields():
        out.ClearField("options")
    return out


def _enum(node) -> descriptor_pb2.EnumDescriptorProto:
    # here: the Protobuf parser loads with the first Protobuf schema, not at the start-up of every process
    from proto_schema_parser import ast

    out = descriptor_pb2.EnumDescriptorProto(name=node.name)
    for element in node.elements:
        if isinstance(element, ast.EnumValue):
            value = out.value.add(name=element.name, number=element.number)
            _set_options(value.options, element.options)
            if not value.options.ListFields():
                value.ClearField("options")
        elif isinstance(element, ast.EnumReserved):
            _ranges(out.reserved_range, element.ranges, exclusive_end=False)
            out.reserved_name.extend(element.names)
    _set_options(out.options, node.elements)
    if not out.options.ListFields():
        out.ClearField("options")
    return out


def descriptor_of_text(text: str, name: str = "schema.proto") -> FDP:
    # here: the Protobuf parser loads with the first Protobuf schema, not at the start-up of every process
    from proto_schema_parser import ast

    try:
        tree = parse_proto(text)
    except ValueError as exc:
        raise invalid_schema(f"not a valid Protobuf schema: {exc}")
    if tree.edition:
        raise invalid_schema("Protobuf editions are not supported here; use syntax proto2 or proto3")
    syntax = tree.syntax or "proto2"
    out = FDP(name=name, syntax=syntax)
    try:
        for element in tree.file_elements:
            if isinstance(element, ast.Package):
                out.package = element.name
            elif isinstance(element, ast.Import):
                if element.public:
                    out.public_dependency.append(len(out.dependency))
                if element.weak:
                    out.weak_dependency.append(len(out.dependency))
                out.dependency.append(element.name)
            elif isinstance(element, ast.Message):
                out.message_type.append(_message(element, syntax))
            elif isinstance(element, ast.Enum):
                out.enum_type.append(_enum(element))
            elif isinstance(element, ast.Service):
                service = out.service.add(name=element.name)
                for method in element.elements:
                    if isinstance(method, ast.Method):
                        service.method.add(
                            name=method.name,
                            input_type=method.input_type.type,
                            output_type=method.output_type.type,
                            client_streaming=method.input_type.stream or None,
                            server_streaming=method.output_type.stream or None,
                        )
            elif isinstance(element, ast.Extension):
                for item in element.elements:
                    if isinstance(item, ast.Field):
                        field = _field(item, syntax)
                        field.extendee = element.typeName
                        out.extension.append(field)
        _set_options(out.options, tree.file_elements)
    except (ValueError, TypeError) as exc:
        raise invalid_schema(f"not a valid Protobuf schema: {exc}")
    if not out.options.ListFields():
        out.ClearField("options")
    return out


# ---- checking and resolving with protobuf's pool ----


@functools.cache
def _well_known() -> tuple[bytes, ...]:
    """The files every pool knows: protobuf's well-known types and Confluent's `confluent/meta.proto`."""
    names = [
        f"google.protobuf.{n}_pb2"
        for n in "any source_context type api descriptor duration empty field_mask struct timestamp wrappers".split()
    ]
    names += [f"confluent_kafka.schema_registry.confluent.{n}_pb2" for n in ("type.decimal", "types.decimal", "meta")]
    out = []
    for name in names:
        try:
            out.append(importlib.import_module(name).DESCRIPTOR.serialized_pb)
        except ImportError:  # a file another version of a package does not have
            continue
    return tuple(out)


def _pool() -> descriptor_pool.DescriptorPool:
    pool = descriptor_pool.DescriptorPool()
    for serialized_pb in _well_known():
        pool.AddSerializedFile(serialized_pb)
    return pool


def _add_references(pool, references, seen: set) -> None:
    for ref in references:
        if ref.name in seen:
            continue
        seen.add(ref.name)
        if ref.schema_type != "PROTOBUF":
            raise invalid_schema(f"reference {ref.name!r} is a {ref.schema_type} schema, not PROTOBUF")
        _add_references(pool, ref.references, seen)
        _add(pool, descriptor_of_text(ref.text, ref.name), f"referenced file {ref.name!r}")


def _add(pool, fdp: FDP, what: str):
    try:
        pool.Add(fdp)
        return pool.FindFileByName(fdp.name)
    except Exception as exc:  # TypeError / KeyError / descriptor errors name the undefined or duplicate symbol
        raise invalid_schema(f"{what}: {str(exc)[:400]}")


def resolved(fdp: FDP, references) -> FDP:
    pool = _pool()
    _add_references(pool, references, set())
    found = _add(pool, fdp, "the schema")
    out = FDP()
    found.CopyToProto(out)
    return out


# ---- what the rest of the app uses ----


def _descriptor_sent(text: str) -> FDP | None:
    """The FileDescriptorProto of a base64 registration, None when the text is not base64 of one."""
    candidate = "".join(text.split())
    if not candidate or any(
        c not in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=" for c in candidate
    ):
        return None
    try:
        raw = base64.b64decode(candidate, validate=True)
        fdp = FDP()
        fdp.ParseFromString(raw)
    except (binascii.Error, ValueError, Exception):  # DecodeError is not a ValueError in every runtime
        return None
    if not (fdp.message_type or fdp.enum_type or fdp.service or fdp.syntax or fdp.package):
        return None
    return fdp


def prepare_protobuf(text: str, references) -> tuple[str, str, str]:
    """A registration's `.proto` text (as sent, or rendered from a descriptor), checked against its references: (the
    text stored, its format, the canonical text its schema id is keyed by)."""
    sent = _descriptor_sent(text)
    if sent is not None:
        sent.ClearField("source_code_info")
        stored, fdp = render(sent), sent
        fdp.name = "schema.proto"
    else:
        stored, fdp = text, descriptor_of_text(text)
    full = resolved(fdp, references)
    full.name = ""
    syntax = "2" if (fdp.syntax or "proto2") == "proto2" else "3"
    return stored, f"Protobuf/{syntax}", render(full)


def canonical_text(text: str) -> str:
    """The canonical text of a `.proto` stored through another door (its references unknown: names as written)."""
    return render(descriptor_of_text(text))
