"""Checks before shipping a schema (docs/api-contract.md section 12): the compatibility dry run of a candidate version and
the semantic diff between two stored versions.

- `schema_compatibility` runs what `POST .../schemas/S` would run for the candidate (the engine's
  `services.check_new_version`: the same input reading, document checks and the catalog's validation hook),
  writing nothing. An invalid document raises the same 400 Problem a real POST would; an incompatible one is
  answered as a verdict (`compatible: false`), with each incompatibility attributed to the earlier version it
  breaks, so the verdict agrees with the POST by construction.
- `version_diff` lists the changes between two versions of a JSON Schema, Avro or Protobuf schema (fields
  added and removed, type, required, enum symbols, defaults...), each marked backward / forward compatible
  with the compatibility checkers of `catalog.validators.compatibility`: a change is incompatible in a
  direction when that direction's check of the step old -> new reports an incompatibility at its path or
  below. Other formats (XSD, unknown ones) get a unified line diff.

Both run within the check budget (catalog.validators.budget, REGISTRY_CHECK_SECONDS): the dry run as one check
(the candidate's meta-validation, the write's compatibility check and the comparison with each earlier version),
the diff as another; the diff spends a step per pair of subschemas or types it compares, and compares enum
values by canonical form in sets (pairwise, two long enums took quadratic time). Past the budget: 503.
"""

from __future__ import annotations

import difflib

from confluent import rule_checks
from registry import services
from registry.domain.attributes import version_order
from registry.domain.errors import Problem
from registry.domain.model import registry_model
from registry.models import Version
from registry.services.versions import merge_attributes, resource_attributes, version_attributes
from registry.store import selectors

from .selectors import schema_compatibility as level_of
from .validators import budget
from .validators.compatibility import DIRECTIONS, _checker, compare_versions
from .validators.compatibility.jsonschema import normal_schema
from .validators.compatibility.protobuf import _File, _kind
from .validators.format_names import schema_format_family
from .validators.json_canonical import canonical, canonical_set

GROUPS, RESOURCES = "schemaGroups", "schemas"
SEMANTIC_FAMILIES = ("JsonSchema", "Avro", "Protobuf")


# -- compatibility dry run ----------------------------------------------------------------------------------
def _format_of(value: object) -> str | None:
    """A `format` attribute's value (a string: the attribute's rule), None when there is none."""
    return value if isinstance(value, str) else None


def _stored_versions(resource) -> list:
    """The resource's versions, oldest first (the engine's version order)."""
    return sorted(Version.objects.filter(resource=resource), key=version_order)


def schema_compatibility(ctx: services.WriteContext, gid: str, sid: str, inp: services.VersionInput) -> dict:
    """The verdict on a candidate version of schema `sid`: `{compatible, level, against, incompatibilities}`;
    each incompatibility names every version it breaks (`versions`, oldest first; `version`: the first).

    404 for an unknown group or schema; the 400 Problems of a real POST for an invalid candidate; 503 past the
    check budget."""
    with budget.limit("the compatibility check"):
        return _schema_compatibility(ctx, gid, sid, inp)


def _schema_compatibility(ctx: services.WriteContext, gid: str, sid: str, inp: services.VersionInput) -> dict:
    try:
        resource, version = services.check_new_version(
            ctx=ctx, address=services.EntityAddress(GROUPS, gid, RESOURCES, sid), data=inp
        )
        verdict_details: list[dict] | None = None
    except Problem as problem:
        if problem.status != 409 or problem.kind != "incompatible-version":
            raise
        verdict_details = [e for e in problem.errors if isinstance(e, dict)]
        resource = _resource(gid, sid)
        version = None
    attrs = {**resource_attributes(resource), **(version_attributes(version) if version is not None else {})}
    if version is None:  # the candidate's attributes as the POST merged them (the hook refused it)
        merged = _merged_attributes(resource, inp)
        attrs.update(merged)
    level = level_of(resource, attrs)
    fmt = _format_of(attrs.get("format"))
    candidate = bytes(inp.document or b"")
    earlier = [v for v in _stored_versions(resource) if v.content is not None]
    checked = schema_format_family(fmt)[0] in SEMANTIC_FAMILIES
    directions = DIRECTIONS.get(level.removesuffix("_transitive"), ())
    against = earlier if level.endswith("_transitive") else earlier[-1:]
    if not directions or not checked:
        against = []
    found: dict[tuple, dict] = {}  # one entry per incompatibility, naming every version it breaks
    for old in against:
        for direction in directions:
            for issue in compare_versions(fmt, bytes(old.content), candidate, direction):
                entry = found.setdefault(
                    (issue.path, issue.change, issue.reason), {**issue.as_dict(), "version": old.vid, "versions": []}
                )
                if old.vid not in entry["versions"]:
                    entry["versions"].append(old.vid)
    issues = list(found.values())
    if verdict_details is not None and not issues:  # never contradict the hook: its own list then
        issues = [{**d, "version": None, "versions": []} for d in verdict_details]
    compatible = verdict_details is None
    return {
        "compatible": compatible,
        "level": level,
        "against": [v.vid for v in against],
        "incompatibilities": [] if compatible else issues,
    }


def _resource(gid: str, sid: str):
    group = selectors.get_group(registry_model[GROUPS], gid)
    return selectors.get_resource(group, RESOURCES, sid)


def _merged_attributes(resource, inp: services.VersionInput) -> dict:
    """The candidate's metadata as a POST merges it: the latest version's, then the `Registry-*` headers."""
    base = version_attributes(resource.latest) if resource.latest is not None else {}
    return merge_attributes(base, inp)


# -- diff ---------------------------------------------------------------------------------------------------
def _change(path: str, change: str, old, new) -> dict:
    return {"path": path or "(root)", "change": change, "old": old, "new": new}


def _join(path: str, part: str) -> str:
    return f"{path}.{part}" if path else part


CONSTRAINTS = (
    "format",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "multipleOf",
    "const",
    "minProperties",
    "maxProperties",
    "$ref",
)
COMBINATORS = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else")


def _json_diff(old, new, path: str, out: list, depth: int = 0) -> None:
    budget.spend()
    if depth > 64:
        return
    old, new = normal_schema(old), normal_schema(new)
    if old.get("type") != new.get("type"):
        out.append(_change(path, "type-changed", old.get("type"), new.get("type")))
    if "enum" in old or "enum" in new:
        old_enum, new_enum = _list(old.get("enum")), _list(new.get("enum"))
        old_values, new_values = canonical_set(old_enum), canonical_set(new_enum)
        for value in old_enum:
            if canonical(value) not in new_values:
                out.append(_change(path, "enum-symbol-removed", value, None))
        for value in new_enum:
            if canonical(value) not in old_values:
                out.append(_change(path, "enum-symbol-added", None, value))
    if old.get("default") != new.get("default"):
        out.append(_change(path, "default-changed", old.get("default"), new.get("default")))
    for keyword in CONSTRAINTS:
        if old.get(keyword) != new.get(keyword):
            out.append(_change(path, "constraint-changed", {keyword: old.get(keyword)}, {keyword: new.get(keyword)}))
    old_props = old.get("properties") if isinstance(old.get("properties"), dict) else {}
    new_props = new.get("properties") if isinstance(new.get("properties"), dict) else {}
    old_req = set(old.get("required") or []) if isinstance(old.get("required"), list) else set()
    new_req = set(new.get("required") or []) if isinstance(new.get("required"), list) else set()
    for name in old_props:
        where = _join(path, f"properties.{name}")
        if name not in new_props:
            out.append(_change(where, "field-removed", old_props[name], None))
        else:
            _json_diff(old_props[name], new_props[name], where, out, depth + 1)
    for name in new_props:
        if name not in old_props:
            out.append(_change(_join(path, f"properties.{name}"), "field-added", None, new_props[name]))
    for name in sorted(old_req ^ new_req, key=str):
        out.append(_change(_join(path, f"properties.{name}"), "required-changed", name in old_req, name in new_req))
    if old.get("additionalProperties") != new.get("additionalProperties"):
        old_ap, new_ap = old.get("additionalProperties"), new.get("additionalProperties")
        if isinstance(old_ap, dict) and isinstance(new_ap, dict):
            _json_diff(old_ap, new_ap, _join(path, "additionalProperties"), out, depth + 1)
        else:
            out.append(_change(_join(path, "additionalProperties"), "additional-properties-changed", old_ap, new_ap))
    if "items" in old or "items" in new:
        old_items, new_items = old.get("items"), new.get("items")
        if isinstance(old_items, dict | bool) and isinstance(new_items, dict | bool):
            _json_diff(old_items, new_items, _join(path, "items"), out, depth + 1)
        elif old_items != new_items:
            out.append(_change(_join(path, "items"), "type-changed", old_items, new_items))
    for keyword in COMBINATORS:
        if old.get(keyword) != new.get(keyword):
            out.append(_change(_join(path, keyword), "combinator-changed", old.get(keyword), new.get(keyword)))
    for keyword in ("definitions", "$defs"):
        old_defs = old.get(keyword) if isinstance(old.get(keyword), dict) else {}
        new_defs = new.get(keyword) if isinstance(new.get(keyword), dict) else {}
        for name in old_defs.keys() | new_defs.keys():
            where = _join(path, f"{keyword}.{name}")
            if name not in new_defs:
                out.append(_change(where, "definition-removed", old_defs[name], None))
            elif name not in old_defs:
                out.append(_change(where, "definition-added", None, new_defs[name]))
            else:
                _json_diff(old_defs[name], new_defs[name], where, out, depth + 1)


def _list(value) -> list:
    return value if isinstance(value, list) else []


AVRO_PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}


class _AvroDiff:
    def __init__(self, old, new):
        self.old_names, self.new_names = old.names, new.names
        self.out: list[dict] = []
        self.active: set = set()
        self.run(old.root, new.root, "")

    @staticmethod
    def deref(schema, names: dict):
        for _ in range(64):
            if isinstance(schema, str) and schema not in AVRO_PRIMITIVES and schema in names:
                schema = names[schema]
            elif isinstance(schema, dict) and not isinstance(schema.get("type"), str):
                schema = schema.get("type")
            elif isinstance(schema, dict) and schema["type"] in names:
                schema = names[schema["type"]]
            else:
                return schema
        return schema

    def describe(self, schema, names: dict, depth: int = 0) -> str:
        schema = self.deref(schema, names)
        if isinstance(schema, str):
            return schema
        if isinstance(schema, list):
            return "[" + ", ".join(self.describe(b, names, depth + 1) for b in schema) + "]"
        kind = schema.get("type")
        if kind in ("record", "error", "enum", "fixed"):
            return schema.get("name", kind)
        if kind == "array" and depth < 16:
            return f"array<{self.describe(schema.get('items'), names, depth + 1)}>"
        if kind == "map" and depth < 16:
            return f"map<{self.describe(schema.get('values'), names, depth + 1)}>"
        logical = schema.get("logicalType")
        return f"{kind} ({logical})" if logical else str(kind)

    def run(self, old, new, path: str) -> None:
        budget.spend()
        old, new = self.deref(old, self.old_names), self.deref(new, self.new_names)
        kind = lambda s: s.get("type") if isinstance(s, dict) else ("union" if isinstance(s, list) else s)  # noqa: E731
        old_kind, new_kind = kind(old), kind(new)
        if old_kind in ("record", "error") and new_kind in ("record", "error"):
            key = (old.get("name"), new.get("name"))
            if key in self.active:
                return
            self.active.add(key)
            try:
                self.record(old, new, path)
            finally:
                self.active.discard(key)
        elif old_kind == "enum" and new_kind == "enum":
            where = path or old["name"].rsplit(".", 1)[-1]
            if old["name"] != new["name"]:
                self.out.append(_change(where, "type-changed", old["name"], new["name"]))
            old_symbols, new_symbols = old.get("symbols", []), new.get("symbols", [])
            old_set, new_set = set(old_symbols), set(new_symbols)
            self.out.extend(_change(where, "enum-symbol-removed", s, None) for s in old_symbols if s not in new_set)
            self.out.extend(_change(where, "enum-symbol-added", None, s) for s in new_symbols if s not in old_set)
            if old.get("default") != new.get("default"):
                self.out.append(_change(where, "default-changed", old.get("default"), new.get("default")))
        elif old_kind == "array" and new_kind == "array":
            self.run(old["items"], new["items"], _join(path, "items"))
        elif old_kind == "map" and new_kind == "map":
            self.run(old["values"], new["values"], _join(path, "values"))
        else:
            old_text, new_text = self.describe(old, self.old_names), self.describe(new, self.new_names)
            if old_text != new_text:
                self.out.append(_change(path, "type-changed", old_text, new_text))

    def record(self, old: dict, new: dict, path: str) -> None:
        prefix = path or old["name"].rsplit(".", 1)[-1]
        if old["name"] != new["name"]:
            self.out.append(_change(prefix, "type-changed", old["name"], new["name"]))
        old_fields = {f["name"]: f for f in old.get("fields", [])}
        new_fields = {f["name"]: f for f in new.get("fields", [])}
        for name, field in old_fields.items():
            where = f"{prefix}.fields.{name}"
            if name not in new_fields:
                self.out.append(_change(where, "field-removed", self.describe(field["type"], self.old_names), None))
                continue
            other = new_fields[name]
            if field.get("default", ...) != other.get("default", ...):
                self.out.append(_change(where, "default-changed", field.get("default"), other.get("default")))
            self.run(field["type"], other["type"], where)
        for name, field in new_fields.items():
            if name not in old_fields:
                self.out.append(
                    _change(
                        f"{prefix}.fields.{name}", "field-added", None, self.describe(field["type"], self.new_names)
                    )
                )


def _proto_diff(old_tree, new_tree) -> list[dict]:
    out: list[dict] = []
    old_file, new_file = _File(old_tree), _File(new_tree)
    for name in old_file.messages:
        if name not in new_file.messages:
            out.append(_change(name, "message-removed", name, None))
            continue
        old_fields, new_fields = old_file.fields(name), new_file.fields(name)
        for number, field in old_fields.items():
            where = f"{name}.{field['name']}"
            other = new_fields.get(number)
            if other is None:
                out.append(_change(where, "field-removed", {**field, "number": number}, None))
                continue
            if other["name"] != field["name"]:
                out.append(_change(where, "field-renamed", field["name"], other["name"]))
            if other["type"] != field["type"]:
                out.append(_change(where, "type-changed", field["type"], other["type"]))
            if other["label"] != field["label"]:
                change = "required-changed" if "required" in (field["label"], other["label"]) else "label-changed"
                out.append(_change(where, change, field["label"] or None, other["label"] or None))
            if other["oneof"] != field["oneof"]:
                out.append(_change(where, "oneof-changed", field["oneof"], other["oneof"]))
        for number, field in new_fields.items():
            if number not in old_fields:
                out.append(_change(f"{name}.{field['name']}", "field-added", None, {**field, "number": number}))
    for name in new_file.messages:
        if name not in old_file.messages:
            out.append(_change(name, "message-added", None, name))
    for name, elements in old_file.enums.items():
        if name not in new_file.enums:
            out.append(_change(name, "enum-removed", name, None))
            continue
        old_values = {e.name: e.number for e in elements if _kind(e) == "EnumValue"}
        new_values = {e.name: e.number for e in new_file.enums[name] if _kind(e) == "EnumValue"}
        for value, number in old_values.items():
            if value not in new_values:
                out.append(_change(f"{name}.{value}", "enum-symbol-removed", {value: number}, None))
            elif new_values[value] != number:
                out.append(_change(f"{name}.{value}", "enum-value-renumbered", number, new_values[value]))
        for value, number in new_values.items():
            if value not in old_values:
                out.append(_change(f"{name}.{value}", "enum-symbol-added", None, {value: number}))
    for name in new_file.enums:
        if name not in old_file.enums:
            out.append(_change(name, "enum-added", None, name))
    return out


def semantic_changes(fmt: str | None, old: bytes, new: bytes) -> list[dict] | None:
    """The changes old -> new, each with `backward` / `forward` (compatible in that direction), or None when the
    format has no semantic diff or a document does not parse as its format."""
    family = schema_format_family(fmt)[0]
    if family not in SEMANTIC_FAMILIES:
        return None

    checker = _checker(family)
    try:
        old_schema, new_schema = checker.load(old), checker.load(new)
        if family == "JsonSchema":
            changes: list[dict] = []
            _json_diff(old_schema.root, new_schema.root, "", changes)
        elif family == "Avro":
            changes = _AvroDiff(old_schema, new_schema).out
        else:
            changes = _proto_diff(old_schema, new_schema)
    except (ValueError, RecursionError):
        return None
    broken = {
        direction: [i.path for i in compare_versions(fmt, old, new, direction)] for direction in ("backward", "forward")
    }
    for change in changes:
        path = change["path"]
        for direction, paths in broken.items():
            change[direction] = not any(
                p == path or p.startswith(path + ".") or p.startswith(path + "[") for p in paths
            )
    return changes


def line_diff(old: bytes, new: bytes, old_name: str, new_name: str) -> str:
    old_lines = old.decode("utf-8", errors="replace").splitlines(keepends=True)
    new_lines = new.decode("utf-8", errors="replace").splitlines(keepends=True)
    return "".join(difflib.unified_diff(old_lines, new_lines, fromfile=old_name, tofile=new_name))


def version_diff(gid: str, sid: str, v1: str, v2: str):
    """`GET .../versions/V1/diff/V2`: a list of semantic changes (JSON Schema, Avro, Protobuf) or
    `{"format", "line_diff"}`. 404 naming what is missing; 400 for a version stored by reference only; 503 past
    the check budget."""
    with budget.limit("the diff"):
        return _version_diff(gid, sid, v1, v2)


def _version_diff(gid: str, sid: str, v1: str, v2: str):
    resource = _resource(gid, sid)
    old, new = selectors.get_version(resource, v1), selectors.get_version(resource, v2)
    for version in (old, new):
        if version.content is None:
            raise Problem(
                "bad-request",
                f"{resource.path}/versions/{version.vid} has no stored document "
                f"(schemaURI {version.resource_uri!r}), so nothing to compare",
            )
    r_attrs = resource_attributes(resource)
    fmt = _format_of(new.extensions.get("format") or old.extensions.get("format") or r_attrs.get("format"))
    old_bytes, new_bytes = bytes(old.content or b""), bytes(new.content or b"")  # (both stored: checked above)
    changes = semantic_changes(fmt, old_bytes, new_bytes)
    if changes is not None:
        return changes
    return {
        "format": fmt,
        "line_diff": line_diff(
            old_bytes, new_bytes, f"{resource.path}/versions/{v1}", f"{resource.path}/versions/{v2}"
        ),
    }


__all__ = ["line_diff", "schema_compatibility", "semantic_changes", "version_diff"]


# -- migration dry run --------------------------------------------------------------------------------------
def migration_dry_run(gid: str, sid: str, vid: str, value) -> dict:
    """`POST .../versions/V/migrate`: a JSONata migration rule of the version's data contract on a sample message
    (confluent.rule_checks.migration_dry_run), nothing written; 404 naming what is missing, 503 past the check
    budget."""
    with budget.limit("the migration dry run"):
        resource = _resource(gid, sid)
        version = selectors.get_version(resource, vid)
        fmt = _format_of(version.extensions.get("format") or resource_attributes(resource).get("format"))
        return rule_checks.migration_dry_run(f"{resource.path}/versions/{version.vid}", version, fmt, value)
