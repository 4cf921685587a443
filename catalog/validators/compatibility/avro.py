"""Avro compatibility by the Avro specification's "Schema Resolution" rules (1.11): can a reader with schema R
read data written with schema W?

Why rule-based: fastavro applies resolution only while decoding a datum (`fastavro._read_py.match_schemas`
checks the top-level types, missing record fields are found only in `read_record`), and it has no
schema-to-schema check. Writing sample data would only prove the one datum it wrote. So the spec's rules
are written out here, applied to the schemas as normalised by `fastavro.parse_schema` (full names, named
types indexed):

- the schemas must match: both the same primitive, or a promotion of the writer's type (int -> long,
  float, double; long -> float, double; float -> double; string <-> bytes), both arrays (items resolved),
  both maps (values resolved), both enums / fixed / records with the same unqualified name or a reader
  alias naming the writer's type; fixed also need the same size;
- records: writer fields the reader lacks are skipped; each reader field needs a writer field of the same
  name (or one of the reader field's aliases), else a default; matching fields are resolved recursively;
- enums: every writer symbol must be a reader symbol unless the reader's enum has a default;
- unions: each branch of a writer union must resolve; against a reader union, the first reader branch that
  matches is resolved (none matching is an error);
- logical types resolve as their underlying types (as fastavro reads them).
"""

from __future__ import annotations

import fastavro

from registry.domain.json_text import parse_json_limited

from .. import budget
from ..schemas import avro_named_types
from .result import Incompatibility, compare_as_reader

PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}
NAMED = {"record", "error", "enum", "fixed"}
PROMOTIONS = {
    "int": {"long", "float", "double"},
    "long": {"float", "double"},
    "float": {"double"},
    "string": {"bytes"},
    "bytes": {"string"},
}


class Schema:
    """A parsed Avro schema and its named types (full name -> definition)."""

    def __init__(self, root, names: dict):
        self.root, self.names = root, names


def load(content: bytes, references: tuple[bytes, ...] = ()) -> Schema:
    """The parsed schema; ValueError when `content` is not a valid Avro schema in JSON form. `references`: documents
    whose named types it may use (the writer's resolved references, deepest first)."""
    raw = parse_json_limited(content)
    names: dict = avro_named_types(references) if references else {}
    try:
        root = fastavro.parse_schema(raw, named_schemas=names, _write_hint=False)
    except RecursionError:
        raise
    except Exception as exc:  # fastavro raises several exception types for invalid schemas
        raise ValueError(f"not a valid Avro schema: {exc}")
    return Schema(root, names)


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


class _Resolver:
    def __init__(self, reader: Schema, writer: Schema, reader_role: str, writer_role: str):
        self.reader, self.writer = reader, writer
        self.reader_role, self.writer_role = reader_role, writer_role
        self.found: dict[Incompatibility, None] = {}  # ordered, deduplicated
        self.active: set[tuple[str, str]] = set()

    # -- helpers --------------------------------------------------------------------------------------------
    def deref(self, schema, names: dict):
        """A named reference becomes its definition; `{"type": "int", ...}` becomes the primitive `int`."""
        for _ in range(64):
            if isinstance(schema, str) and schema not in PRIMITIVES and schema in names:
                schema = names[schema]
            elif isinstance(schema, dict) and not isinstance(schema.get("type"), str):
                schema = schema.get("type")  # {"type": {...}} or {"type": [...]}
            elif isinstance(schema, dict) and schema["type"] in PRIMITIVES:
                schema = schema["type"]  # logical types are read as their underlying type
            elif isinstance(schema, dict) and schema["type"] in names:
                schema = names[schema["type"]]  # {"type": "com.example.Named"}
            else:
                return schema
        return schema

    @staticmethod
    def kind(schema) -> str:
        if isinstance(schema, list):
            return "union"
        if isinstance(schema, str):
            return schema
        kind = schema.get("type")
        return "record" if kind == "error" else str(kind)

    def describe(self, schema) -> str:
        kind = self.kind(schema)
        return f"{kind} {_short(schema['name'])}" if kind in NAMED and isinstance(schema, dict) else kind

    def matches(self, reader, writer) -> bool:
        """The spec's shallow "match" used to pick a reader union branch."""
        r_kind, w_kind = self.kind(reader), self.kind(writer)
        if r_kind != w_kind:
            return w_kind in PROMOTIONS and r_kind in PROMOTIONS[w_kind]
        if r_kind == "array":
            return self.matches(
                self.deref(reader["items"], self.reader.names), self.deref(writer["items"], self.writer.names)
            )
        if r_kind == "map":
            return self.matches(
                self.deref(reader["values"], self.reader.names), self.deref(writer["values"], self.writer.names)
            )
        if r_kind in NAMED:
            if not self.same_name(reader, writer):
                return False
            return r_kind != "fixed" or reader.get("size") == writer.get("size")
        return True

    @staticmethod
    def same_name(reader: dict, writer: dict) -> bool:
        aliases = {_short(a) for a in reader.get("aliases", [])}
        return _short(reader["name"]) == _short(writer["name"]) or _short(writer["name"]) in aliases

    def add(self, path: str, change: str, reason: str) -> None:
        issue = Incompatibility(path or "(root)", change, f"a reader using the {self.reader_role} schema {reason}")
        self.found[issue] = None

    def evolution(self, reader_text: str, writer_text: str) -> tuple[str, str]:
        """(old, new) descriptions from (reader, writer) ones."""
        return (writer_text, reader_text) if self.reader_role == "new" else (reader_text, writer_text)

    # -- resolution ---------------------------------------------------------------------------------------
    def check(self, reader, writer, path: str) -> None:
        budget.spend()  # a named type used by many fields is compared once per use: bounded by the budget
        reader = self.deref(reader, self.reader.names)
        writer = self.deref(writer, self.writer.names)
        if isinstance(writer, list):
            for index, branch in enumerate(writer):
                self.check(reader, branch, f"{path}.union[{index}]" if path else f"union[{index}]")
            return
        if isinstance(reader, list):
            branches = [self.deref(b, self.reader.names) for b in reader]
            chosen = next((b for b in branches if self.matches(b, writer)), None)
            if chosen is None:
                self.add(
                    path,
                    f"the {self.reader_role} union has no branch for {self.describe(writer)}",
                    f"cannot read {self.describe(writer)} data written with the {self.writer_role} schema",
                )
            else:
                self.check(chosen, writer, path)
            return
        if not self.matches(reader, writer):
            self.mismatch(reader, writer, path)
            return
        kind = self.kind(reader)
        if kind == "record":
            self.record(reader, writer, path)
        elif kind == "enum":
            self.enum(reader, writer, path)
        elif kind == "array":
            self.check(reader["items"], writer["items"], f"{path}.items" if path else "items")
        elif kind == "map":
            self.check(reader["values"], writer["values"], f"{path}.values" if path else "values")

    def mismatch(self, reader, writer, path: str) -> None:
        r_kind, w_kind = self.kind(reader), self.kind(writer)
        r_text, w_text = self.describe(reader), self.describe(writer)
        old, new = self.evolution(r_text, w_text)
        if r_kind == w_kind == "fixed" and self.same_name(reader, writer):
            old, new = self.evolution(str(reader.get("size")), str(writer.get("size")))
            self.add(
                path or _short(reader["name"]),
                f"fixed size changed from {old} to {new}",
                f"cannot read {writer.get('size')}-byte values as {reader.get('size')} bytes",
            )
        elif r_kind == w_kind:
            self.add(
                path or _short(reader["name"]),
                f"{r_kind} renamed from {old} to {new}",
                f"matches named types by unqualified name or alias, and {w_text} is neither",
            )
        else:
            self.add(path, f"type changed from {old} to {new}", f"cannot read {w_text} data as {r_text}")

    def record(self, reader: dict, writer: dict, path: str) -> None:
        key = (reader["name"], writer["name"])
        if key in self.active:
            return  # a recursive type: assume the pair resolves, as the enclosing check decides it
        self.active.add(key)
        prefix = path or _short(reader["name"])
        writer_fields = {f["name"]: f for f in writer.get("fields", [])}
        for field in reader.get("fields", []):
            name = field["name"]
            source = next((writer_fields[n] for n in [name, *field.get("aliases", [])] if n in writer_fields), None)
            where = f"{prefix}.fields.{name}"
            if source is not None:
                self.check(field["type"], source["type"], where)
            elif "default" not in field:
                change = (
                    f"field '{name}' added without a default"
                    if self.reader_role == "new"
                    else f"field '{name}' removed (the old schema has no default for it)"
                )
                self.add(where, change, f"cannot read data written without '{name}'")
        self.active.discard(key)

    def enum(self, reader: dict, writer: dict, path: str) -> None:
        if "default" in reader:
            return
        symbols = set(reader.get("symbols", []))
        missing = [s for s in writer.get("symbols", []) if s not in symbols]
        if missing:
            listed = ", ".join(missing)
            change = (
                f"enum symbols removed: {listed}"
                if self.reader_role == "new"
                else f"enum symbols added: {listed} (the old enum has no default)"
            )
            self.add(path or _short(reader["name"]), change, f"cannot read the symbols {listed}")


def incompatibilities(
    reader: Schema, writer: Schema, reader_role: str = "new", writer_role: str = "old"
) -> list[Incompatibility]:
    """Why a reader using `reader` cannot read data written with `writer` ([] when it can)."""
    resolver = _Resolver(reader, writer, reader_role, writer_role)
    resolver.check(reader.root, writer.root, "")
    return list(resolver.found)


def compare(old: Schema, new: Schema, direction: str) -> list[Incompatibility]:
    """backward: the new schema reads old data; forward: the old schema reads new data."""
    return compare_as_reader(old, new, direction, incompatibilities)
