"""Avro compatibility by the Avro specification's "Schema Resolution" rules: can a reader with schema R
read data written with schema W? fastavro applies these rules only while decoding data and exposes no
schema-to-schema check, so they are written out here, rule for rule: promotions int->long->float->double
and string<->bytes, records by name with reader fields needing a writer field or a default, enums needing
the writer's symbols (or a reader default), arrays/maps by their items/values, fixed by size, unions by
matching branches.
"""
from __future__ import annotations

import fastavro

from ..json_limits import parse_json_limited
from .result import Incompatibility

PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}
PROMOTIONS = {"int": {"long", "float", "double"}, "long": {"float", "double"}, "float": {"double"},
              "string": {"bytes"}, "bytes": {"string"}}


def load(content: bytes):
    schema = parse_json_limited(content)
    try:
        fastavro.parse_schema(schema, _write_hint=False)
    except Exception as exc:  # invalid schema
        raise ValueError(str(exc))
    return schema


def _names(schema, namespace: str | None, table: dict) -> None:
    """Index every named type by its full name (and short name) so references resolve."""
    if isinstance(schema, list):
        for branch in schema:
            _names(branch, namespace, table)
    elif isinstance(schema, dict):
        kind = schema.get("type")
        if kind in ("record", "error", "enum", "fixed"):
            space = schema.get("namespace", namespace)
            name = schema["name"]
            full = name if "." in name or not space else f"{space}.{name}"
            table[full] = schema
            table.setdefault(name.rsplit(".", 1)[-1], schema)
            for field in schema.get("fields", []):
                _names(field.get("type"), full.rsplit(".", 1)[0] if "." in full else space, table)
        elif kind == "array":
            _names(schema.get("items"), namespace, table)
        elif kind == "map":
            _names(schema.get("values"), namespace, table)
        elif isinstance(kind, dict | list):
            _names(kind, namespace, table)


class _Resolver:
    def __init__(self, reader, writer):
        self.reader_names, self.writer_names = {}, {}
        _names(reader, None, self.reader_names)
        _names(writer, None, self.writer_names)
        self.found: list[Incompatibility] = []
        self.seen: set = set()

    def deref(self, schema, names):
        for _ in range(16):
            if isinstance(schema, str) and schema not in PRIMITIVES:
                schema = names.get(schema, names.get(schema.rsplit(".", 1)[-1], schema))
            elif isinstance(schema, dict) and not isinstance(schema.get("type"), str | type(None)):
                schema = schema["type"]
            elif isinstance(schema, dict) and schema.get("type") in PRIMITIVES and len(schema) == 1:
                schema = schema["type"]
            else:
                return schema
        return schema

    @staticmethod
    def kind(schema) -> str:
        if isinstance(schema, list):
            return "union"
        if isinstance(schema, str):
            return schema
        return schema.get("type") if isinstance(schema.get("type"), str) else "unknown"

    def matches(self, reader, writer) -> bool:
        probe = _Resolver.__new__(_Resolver)
        probe.reader_names, probe.writer_names = self.reader_names, self.writer_names
        probe.found, probe.seen = [], set(self.seen)
        probe.check(reader, writer, "")
        return not probe.found

    def check(self, reader, writer, path: str) -> None:
        reader = self.deref(reader, self.reader_names)
        writer = self.deref(writer, self.writer_names)
        key = (id(reader), id(writer))
        if key in self.seen:
            return
        self.seen.add(key)
        r_kind, w_kind = self.kind(reader), self.kind(writer)
        where = path or "(root)"
        if w_kind == "union":
            for index, branch in enumerate(writer):
                self.check(reader, branch, f"{path}[union branch {index}]" if path else f"union branch {index}")
            return
        if r_kind == "union":
            if not any(self.matches(branch, writer) for branch in reader):
                self.found.append(Incompatibility(where, f"no branch of the reader's union reads {w_kind}",
                                                  f"data written as {w_kind} cannot be read"))
            return
        if r_kind != w_kind:
            if w_kind in PROMOTIONS and r_kind in PROMOTIONS[w_kind]:
                return
            self.found.append(Incompatibility(where, f"type changed from {w_kind} to {r_kind}",
                                              f"{w_kind} data cannot be read as {r_kind}"))
            return
        if r_kind in ("record", "error"):
            self.record(reader, writer, path)
        elif r_kind == "enum":
            missing = [s for s in writer.get("symbols", []) if s not in reader.get("symbols", [])]
            if missing and "default" not in reader:
                self.found.append(Incompatibility(where, f"enum symbols removed: {', '.join(missing)}",
                                                  "data holding these symbols cannot be read"))
        elif r_kind == "array":
            self.check(reader.get("items"), writer.get("items"), f"{path}.items" if path else "items")
        elif r_kind == "map":
            self.check(reader.get("values"), writer.get("values"), f"{path}.values" if path else "values")
        elif r_kind == "fixed" and reader.get("size") != writer.get("size"):
            self.found.append(Incompatibility(where, f"fixed size changed from {writer.get('size')} to "
                                                     f"{reader.get('size')}", "the bytes no longer fit"))

    def record(self, reader: dict, writer: dict, path: str) -> None:
        r_name, w_name = reader.get("name", ""), writer.get("name", "")
        aliases = {a.rsplit(".", 1)[-1] for a in reader.get("aliases", [])}
        if r_name.rsplit(".", 1)[-1] != w_name.rsplit(".", 1)[-1] and w_name.rsplit(".", 1)[-1] not in aliases:
            self.found.append(Incompatibility(path or r_name, f"record renamed from {w_name} to {r_name}",
                                              "records are matched by name (add an alias)"))
            return
        prefix = path or r_name
        writer_fields = {f["name"]: f for f in writer.get("fields", [])}
        for field in reader.get("fields", []):
            names = [field["name"], *field.get("aliases", [])]
            source = next((writer_fields[n] for n in names if n in writer_fields), None)
            where = f"{prefix}.{field['name']}"
            if source is None:
                if "default" not in field:
                    self.found.append(Incompatibility(where, f"field {field['name']!r} added without a default",
                                                      f"data written without {field['name']!r} cannot be read"))
                continue
            self.check(field.get("type"), source.get("type"), where)


def incompatibilities(reader, writer) -> list[Incompatibility]:
    resolver = _Resolver(reader, writer)
    resolver.check(reader, writer, "")
    return resolver.found
