"""JSON Schema compatibility: is every instance valid under the writer's schema also valid under the reader's?

No library decides JSON Schema inclusion, so the rules are written here and listed, with the open content
model choice and the differences from Apicurio's cases, in docs/schema-compatibility.md. In short: adding
an optional property is compatible; removing one is compatible unless the reader closes the object
(`additionalProperties: false` or a schema the property does not meet); adding `required`, narrowing types,
enums, bounds, lengths, patterns, formats, items, tuples, property names, pattern properties, dependencies,
`contains`, `not`, `oneOf` exclusivity and conditionals is not. Local `$ref`s are followed (cycles bounded); a `$ref`
to anything outside the document is not (nothing is fetched), and one that only the reader has is an incompatibility
naming it.

Budget (issue 24): every comparison of two subschemas is a step of the running check (catalog.validators.budget):
`anyOf` branches that each `$ref` the next level double the work per level (exponential in the depth), so a candidate
like that ends with the budget's problem. Enum values are compared by canonical form in sets, not pairwise (quadratic
in the enums' lengths), and property-name patterns are matched in linear time.
"""

from __future__ import annotations

import hashlib
import json

from registry.domain.json_text import parse_json_limited

from .. import budget
from ..json_canonical import canonical, canonical_set
from ..linear_regex import PatternError
from ..linear_regex import search as pattern_search
from .keywords import (
    ANNOTATIONS,
    EQUAL_KEYWORDS,
    check_bounds,
    disjoint,
    find_anchor,
    lower_bound,
    merge,
    types_of,
    upper_bound,
)
from .result import Incompatibility, compare_as_reader

MAX_DEPTH = 96
__all__ = ["Schema", "compare", "identity", "incompatibilities", "load", "lower_bound", "upper_bound"]


def _holds_ref(node) -> bool:
    """Whether `node` holds a `$ref` anywhere (a stack walk, without recursion)."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if "$ref" in item:
                return True
            stack.extend(v for v in item.values() if isinstance(v, dict | list))
        elif isinstance(item, list):
            stack.extend(v for v in item if isinstance(v, dict | list))
    return False


class Schema:
    """A parsed JSON Schema (`root`: an object or a boolean) and whether it holds a `$ref` anywhere: most
    hold none, and then no subschema of theirs needs looking into for one."""

    def __init__(self, root):
        self.root, self.has_refs = root, _holds_ref(root)


BUNDLE = "$confluentReferences"  # where `load` puts the documents of the references, in the root


def load(content: bytes, references: tuple[bytes, ...] = ()) -> Schema:
    """The schema (object or boolean); ValueError when `content` is not one. `references`: the documents of the
    schema's Confluent references at every depth, deepest first, each carrying the reference's name as its `$id`
    (confluent.schema_types.referenced_documents): bundled into the root (`_bundled`), so that a `$ref` naming one is
    followed as a local one."""
    value = parse_json_limited(content)
    if not isinstance(value, dict | bool):
        raise ValueError("not a JSON Schema")
    if references and isinstance(value, dict):
        value = _bundled(value, references)
    return Schema(value)


def _bundled(root: dict, references: tuple[bytes, ...]) -> dict:
    """The root with the referenced documents under `BUNDLE` (each at `#/BUNDLE/N`), and every `$ref` naming one (its
    name, with or without a JSON pointer fragment: `address.json`, `address.json#/definitions/zip`) in the root and in
    them turned into a pointer to it; a referenced document's own local references (`#/definitions/x`) point into it.
    Names are one flat namespace, the later document of a name taking it, as in Confluent's clients (their
    `_resolve_named_schema`). No `$ref` is fetched: one naming no reference stays as it is (not followed)."""
    named: dict[str, object] = {}
    for document in references:
        try:
            parsed = parse_json_limited(document)
        except ValueError:
            continue
        if isinstance(parsed, dict) and isinstance(parsed.get("$id"), str):
            named[parsed["$id"]] = _without(parsed, "$id")
    if not named:
        return root
    places = {name: f"#/{BUNDLE}/{index}" for index, name in enumerate(named)}

    def pointed(ref: str, base: str) -> str:
        name, sep, fragment = ref.partition("#")
        if fragment and not fragment.startswith("/"):
            return ref  # an anchor of another document: not followed
        if name == "":
            return base + fragment if base else ref
        if name in places:
            return places[name] + fragment
        return ref

    def rewrite(node, base: str, depth: int = 0):
        if depth > MAX_DEPTH * 4:
            return node
        if isinstance(node, dict):
            out = {key: rewrite(value, base, depth + 1) for key, value in node.items()}
            if isinstance(node.get("$ref"), str):
                out["$ref"] = pointed(node["$ref"], base)
            return out
        if isinstance(node, list):
            return [rewrite(item, base, depth + 1) for item in node]
        return node

    bundle = [rewrite(document, places[name]) for name, document in named.items()]
    return {**rewrite(root, ""), BUNDLE: bundle}


# A node holding one of these is compared with a subtree's equality or merged with its parent somewhere (conditionals,
# combinators, `not`, `contains`, property names, dependencies, the EQUAL_KEYWORDS that hold schemas, references):
# `identity` keeps it as it is, annotations included.
_WHOLE = frozenset(
    {"allOf", "anyOf", "oneOf", "if", "then", "else", "not", "contains", "propertyNames", "dependencies"}
    | {"dependentSchemas", "contentSchema", "unevaluatedProperties", "unevaluatedItems", "$ref", "$dynamicRef"}
    | {"$recursiveRef"}
)


def _without_plain_annotations(node):
    """`node` less the annotations of its plain nodes: those the checker reads keyword by keyword, recursing into
    their properties, pattern properties, additional properties and items (nodes below a `_WHOLE` one are kept)."""
    if not isinstance(node, dict) or not _WHOLE.isdisjoint(node):
        return node
    out = {}
    for key, value in node.items():
        if key in ANNOTATIONS:
            continue
        if key in ("properties", "patternProperties") and isinstance(value, dict):
            value = {name: _without_plain_annotations(schema) for name, schema in value.items()}
        elif key in ("additionalProperties", "additionalItems", "items") and isinstance(value, dict):
            value = _without_plain_annotations(value)
        elif key in ("items", "prefixItems") and isinstance(value, list):
            value = [_without_plain_annotations(schema) for schema in value]
        out[key] = value
    return out


def identity(schema: Schema) -> bytes:
    """Equal for two schemas that every comparison treats alike, as the old side or as the new: the same JSON, or
    (without `$ref`s) the same less the annotations of plain nodes. There the checker reads each keyword but the
    annotations, every rule finds nothing between equal keywords, and only subtrees it compares whole (`_WHOLE`)
    are kept with theirs, so a title or description there changes no verdict. A transitive check compares a new
    version once per identity of the earlier ones (compatibility/__init__.py)."""
    root = schema.root if schema.has_refs else _without_plain_annotations(schema.root)
    text = json.dumps(root, ensure_ascii=False, separators=(",", ":"))
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def normal_schema(schema) -> dict:
    """A schema node as an object: `true` accepts everything ({}), `false` nothing ({"not": {}})."""
    if schema is True:
        return {}
    if schema is False:
        return {"not": {}}
    return schema if isinstance(schema, dict) else {}


def _strip(schema: dict) -> dict:
    return {k: v for k, v in schema.items() if k not in ANNOTATIONS}


def _without(schema: dict, *keys: str) -> dict:
    return {k: v for k, v in schema.items() if k not in keys}


def _join(path: str, part: str) -> str:
    return f"{path}.{part}" if path else part


class _Checker:
    def __init__(self, reader_root, writer_root, reader_role: str, writer_role: str, refs: bool):
        self.roots = {"reader": reader_root, "writer": writer_root}
        self.r, self.w = reader_role, writer_role
        self.refs = refs  # whether either document holds a `$ref`
        self.found: dict[Incompatibility, None] = {}  # ordered, deduplicated
        self.active: set = set()
        self.ref_memo: dict[int, tuple] = {}

    def add(self, path: str, change: str, reason: str) -> None:
        issue = Incompatibility(path or "(root)", change, f"a reader using the {self.r} schema {reason}")
        self.found[issue] = None

    def probe(self) -> _Checker:
        checker = _Checker(self.roots["reader"], self.roots["writer"], self.r, self.w, self.refs)
        checker.active, checker.ref_memo = set(self.active), self.ref_memo
        return checker

    def accepts(self, reader, writer, depth: int) -> bool:
        probe = self.probe()
        probe.check(reader, writer, "", depth + 1)
        return not probe.found

    def has_ref(self, node) -> bool:
        """Whether `node` holds a `$ref` anywhere (memoised for the documents' own nodes). Nodes come from
        the two documents or are merged from theirs, so none does when neither document does."""
        if not self.refs:
            return False
        memo = self.ref_memo.get(id(node))
        if memo is not None and memo[0] is node:
            return memo[1]
        found = _holds_ref(node)
        self.ref_memo[id(node)] = (node, found)
        return found

    def resolve(self, side: str, schema):
        """Follow local `$ref`s (`#/definitions/x`, `#/$defs/x`, `#`, `#Anchor`) within the document."""
        for _ in range(32):
            if not (
                isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#")
            ):
                return schema
            ref, rest = schema["$ref"], _without(schema, "$ref")
            if len(ref) > 1 and not ref.startswith("#/"):
                node = find_anchor(self.roots[side], ref)
            else:
                node = self.roots[side]
                for part in [p for p in ref[1:].split("/") if p]:
                    part = part.replace("~1", "/").replace("~0", "~")
                    if isinstance(node, list) and part.isdigit() and int(part) < len(node):
                        node = node[int(part)]
                    else:
                        node = node.get(part) if isinstance(node, dict) else None
                    if node is None:
                        return {}
            # a `$ref` beside other keywords: both apply (an `allOf` branch merged with the node it names keeps the
            # required properties of both)
            schema = merge(node, rest) if isinstance(node, dict) and rest else node
        return schema

    # -- the comparison -----------------------------------------------------------------------------------
    def check(self, reader, writer, path: str, depth: int = 0) -> None:
        budget.spend()
        if depth > MAX_DEPTH:
            return
        if reader == writer and not self.has_ref(reader):
            return  # an unchanged subschema (most of them, between versions): what `compare` would decide
        key = None
        if isinstance(reader, dict) and "$ref" in reader or isinstance(writer, dict) and "$ref" in writer:
            key = (str(normal_schema(reader).get("$ref")), str(normal_schema(writer).get("$ref")))
            if key in self.active:
                return  # a recursive reference: the enclosing comparison decides it
            self.active.add(key)
        try:
            self.compare(self.resolve("reader", reader), self.resolve("writer", writer), path, depth)
        finally:
            if key is not None:
                self.active.discard(key)

    def compare(self, reader, writer, path: str, depth: int) -> None:
        reader, writer = normal_schema(reader), normal_schema(writer)
        reader, writer = self.outside_references(reader, writer, path)
        if _strip(reader) == _strip(writer) and not self.has_ref(reader) and not self.has_ref(writer):
            return
        if writer.get("not") == {}:
            return  # the writer writes nothing
        if reader.get("not") == {}:
            self.add(path, f"the {self.r} schema is false", "accepts no data at all")
            return
        if not _strip(reader):
            return  # the reader accepts anything
        if self.combinators(reader, writer, path, depth):
            return
        self.check_types(reader, writer, path)
        self.check_values(reader, writer, path)
        for change, reason in check_bounds(reader, writer, self.r, self.w):
            self.add(path, change, reason)
        self.check_object(reader, writer, path, depth)
        self.check_array(reader, writer, path, depth)
        self.check_conditional(reader, writer, path, depth)
        if "not" in reader and reader["not"] != writer.get("not"):
            # the reader excludes what its `not` matches: that must have been excluded by the writer's `not`
            if "not" not in writer or not self.accepts(writer["not"], reader["not"], depth):
                self.add(
                    _join(path, "not"),
                    f"the {self.r} schema excludes more with 'not'",
                    f"refuses data the {self.w} schema allows",
                )
        for keyword in EQUAL_KEYWORDS:
            if keyword in reader and reader.get(keyword) != writer.get(keyword):
                verb = "added in" if keyword not in writer else "changed in"
                self.add(
                    path, f"{keyword} {verb} the {self.r} schema", f"may refuse data that met the {self.w} {keyword}"
                )

    def outside_references(self, reader: dict, writer: dict, path: str) -> tuple[dict, dict]:
        """The pair without the `$ref`s that name something outside their documents (`resolve` followed the local
        ones), which are not followed: nothing is fetched (catalog.validators.json_references), so what they allow
        is unknown here. The same reference on both sides names the same schema; a reference only the writer has
        narrows the writer's data, which changes no verdict found without it; one only the reader has (or a
        different one) may refuse the writer's data: an incompatibility naming it."""
        ref = reader.get("$ref")
        outside = isinstance(ref, str) and not ref.startswith("#")
        w_ref = writer.get("$ref")
        if isinstance(ref, str) and outside and ref != w_ref:
            self.add(
                path,
                f"$ref {ref[:300]!r} in the {self.r} schema, not followed",
                f"may refuse data the {self.w} schema allows: a reference outside the document cannot be "
                "compared (references resolve only inside the registry; nothing is fetched)",
            )
        if outside:
            reader = _without(reader, "$ref")
        if isinstance(w_ref, str) and not w_ref.startswith("#"):
            writer = _without(writer, "$ref")
        return reader, writer

    def combinators(self, reader: dict, writer: dict, path: str, depth: int) -> bool:
        """anyOf / oneOf / allOf; True when the pair was fully decided here."""
        if isinstance(writer.get("allOf"), list):
            self.check(reader, merge(_without(writer, "allOf"), *writer["allOf"]), path, depth + 1)
            return True
        if isinstance(reader.get("allOf"), list):
            for index, branch in enumerate(reader["allOf"]):
                self.check(branch, writer, _join(path, f"allOf[{index}]"), depth + 1)
            rest = _without(reader, "allOf")
            if _strip(rest):
                self.check(rest, writer, path, depth + 1)
            return True
        for keyword in ("anyOf", "oneOf"):
            if isinstance(writer.get(keyword), list) and not any(k in reader for k in ("anyOf", "oneOf")):
                for branch in writer[keyword]:
                    self.check(reader, merge(_without(writer, keyword), branch), path, depth + 1)
                return True
        for keyword in ("anyOf", "oneOf"):
            if not isinstance(reader.get(keyword), list):
                continue
            base = _without(reader, keyword)
            branches = [merge(base, b) for b in reader[keyword]]
            written = writer.get("anyOf") or writer.get("oneOf") or [{}]
            for index, w_branch in enumerate(written):
                w_schema = merge(_without(writer, "anyOf", "oneOf"), w_branch)
                if not any(self.accepts(branch, w_schema, depth) for branch in branches):
                    self.add(
                        _join(path, keyword),
                        f"{keyword} of the {self.r} schema narrowed",
                        f"matches no branch for data of the {self.w} schema's branch {index}",
                    )
            if keyword == "oneOf" and "oneOf" not in writer and not disjoint(reader["oneOf"]):
                self.add(
                    _join(path, "oneOf"),
                    f"oneOf in the {self.r} schema where the {self.w} schema does not have it",
                    "refuses data matching more than one of its overlapping branches",
                )
            return True
        return False

    def check_types(self, reader: dict, writer: dict, path: str) -> None:
        reader_types, writer_types = types_of(reader), types_of(writer)
        if reader_types is None:
            return
        if writer_types is None:
            self.add(
                path,
                f"type {'/'.join(sorted(reader_types))} set by the {self.r} schema only",
                f"refuses other types the {self.w} schema allows",
            )
            return
        if "number" in reader_types:
            reader_types = reader_types | {"integer"}
        missing = writer_types - reader_types
        if missing:
            self.add(
                path,
                f"type {'/'.join(sorted(writer_types))} in the {self.w} schema, "
                f"{'/'.join(sorted(reader_types - {'integer'} if 'number' in reader_types else reader_types))}"
                f" in the {self.r}",
                f"refuses values of type {'/'.join(sorted(missing))}",
            )

    def check_values(self, reader: dict, writer: dict, path: str) -> None:
        if "enum" not in reader and "const" not in reader:
            return
        allowed = reader["enum"] if isinstance(reader.get("enum"), list) else [reader.get("const")]
        if "enum" in writer or "const" in writer:
            written = writer["enum"] if isinstance(writer.get("enum"), list) else [writer.get("const")]
        else:
            self.add(path, f"enum or const only in the {self.r} schema", f"refuses values the {self.w} schema allows")
            return
        accepted = canonical_set(allowed)
        missing = [v for v in written if canonical(v) not in accepted]
        if missing:
            self.add(
                path,
                f"values {missing!r} missing from the {self.r} schema's enum"[:300]
                .replace("{", "{{")
                .replace("{self.r}", f"{self.r}"),
                "refuses data holding these values",
            )

    def check_object(self, reader: dict, writer: dict, path: str, depth: int) -> None:
        for name in sorted(set(reader.get("required") or []) - set(writer.get("required") or [])):
            self.add(
                _join(path, f"properties.{name}"),
                f"property '{name}' required by the {self.r} schema only",
                "refuses data written without it",
            )
        reader_props, writer_props = reader.get("properties") or {}, writer.get("properties") or {}
        reader_patterns = reader.get("patternProperties") or {}
        writer_patterns = writer.get("patternProperties") or {}
        reader_extra, writer_extra = reader.get("additionalProperties", True), writer.get("additionalProperties", True)
        for name, schema in writer_props.items():
            sub = _join(path, f"properties.{name}")
            if name in reader_props:
                self.check(reader_props[name], schema, sub, depth + 1)
            elif _matches_pattern(name, reader_patterns):
                continue  # checked by patternProperties below only when patterns are shared
            elif reader_extra is False:
                self.add(
                    sub,
                    f"property '{name}' not allowed by the closed {self.r} schema",
                    "refuses data carrying it (additionalProperties is false)",
                )
            elif isinstance(reader_extra, dict):
                self.check(reader_extra, schema, sub, depth + 1)
        for pattern, schema in reader_patterns.items():
            sub = _join(path, f"patternProperties.{pattern}")
            if pattern in writer_patterns:
                self.check(schema, writer_patterns[pattern], sub, depth + 1)
            else:
                self.add(
                    sub,
                    f"pattern property {pattern!r} only in the {self.r} schema",
                    f"may refuse properties the {self.w} schema allows",
                )
        if reader_extra is not True and reader_extra != writer_extra and writer_extra is not False:
            sub = _join(path, "additionalProperties")
            if reader_extra is False or isinstance(writer_extra, bool):
                self.add(
                    sub,
                    f"additional properties restricted by the {self.r} schema",
                    f"refuses objects with properties the {self.w} schema allows",
                )
            else:
                self.check(reader_extra, writer_extra, sub, depth + 1)
        if "propertyNames" in reader and reader["propertyNames"] != writer.get("propertyNames"):
            self.check(
                reader["propertyNames"], writer.get("propertyNames", {}), _join(path, "propertyNames"), depth + 1
            )
        self.check_dependencies(reader, writer, path, depth)

    def check_dependencies(self, reader: dict, writer: dict, path: str, depth: int) -> None:
        def split(schema):
            arrays, schemas = dict(schema.get("dependentRequired") or {}), dict(schema.get("dependentSchemas") or {})
            for name, value in (schema.get("dependencies") or {}).items():
                (arrays if isinstance(value, list) else schemas)[name] = value
            return arrays, schemas

        (r_arrays, r_schemas), (w_arrays, w_schemas) = split(reader), split(writer)
        for name, needed in r_arrays.items():
            extra = set(needed) - set(w_arrays.get(name, [])) - set(writer.get("required") or [])
            if extra:
                self.add(
                    _join(path, f"dependencies.{name}"),
                    f"'{name}' needs {sorted(extra)} in the {self.r} schema",
                    f"refuses data with '{name}' but without them",
                )
        for name, schema in r_schemas.items():
            self.check(
                schema,
                merge(_without(writer, "dependencies", "dependentSchemas"), w_schemas.get(name, {})),
                _join(path, f"dependencies.{name}"),
                depth + 1,
            )

    def check_array(self, reader: dict, writer: dict, path: str, depth: int) -> None:
        reader_items, writer_items = reader.get("items"), writer.get("items")
        sub = _join(path, "items")
        if "prefixItems" in reader or "prefixItems" in writer:  # 2020-12 tuples
            reader = {**reader, "items": reader.get("prefixItems", []), "additionalItems": reader.get("items", True)}
            writer = {**writer, "items": writer.get("prefixItems", []), "additionalItems": writer.get("items", True)}
            reader_items, writer_items = reader["items"], writer["items"]
        if isinstance(reader_items, list) or isinstance(writer_items, list):
            reader_list = reader_items if isinstance(reader_items, list) else None
            writer_list = writer_items if isinstance(writer_items, list) else None
            if reader_list is not None and writer_list is not None:
                reader_rest, writer_rest = reader.get("additionalItems", True), writer.get("additionalItems", True)
                for index in range(max(len(reader_list), len(writer_list)) + 1):
                    written = writer_list[index] if index < len(writer_list) else writer_rest
                    target = reader_list[index] if index < len(reader_list) else reader_rest
                    if written is False or target is True:
                        continue
                    if target is False:
                        self.add(
                            f"{sub}[{index}]",
                            f"tuple shortened in the {self.r} schema",
                            f"refuses the longer arrays the {self.w} schema allows",
                        )
                        break
                    self.check(target, {} if written is True else written, f"{sub}[{index}]", depth + 1)
            elif reader_list is not None:
                self.add(
                    sub,
                    f"items is a tuple in the {self.r} schema only",
                    f"may refuse arrays the {self.w} schema allows",
                )
            elif reader_items is not None:
                for index, schema in enumerate(writer_list or []):
                    self.check(reader_items, schema, f"{sub}[{index}]", depth + 1)
                if writer.get("additionalItems", True) is not False:
                    self.check(reader_items, writer.get("additionalItems", {}), sub, depth + 1)
        elif reader_items is not None:
            self.check(reader_items, writer_items if writer_items is not None else {}, sub, depth + 1)
        if "contains" in reader and reader["contains"] != writer.get("contains"):
            # an array holding an item valid under the writer's `contains` must hold one valid under the reader's
            if "contains" not in writer or not self.accepts(reader["contains"], writer["contains"], depth):
                self.add(
                    _join(path, "contains"),
                    f"contains of the {self.r} schema narrowed",
                    f"may refuse arrays the {self.w} schema allows",
                )

    def check_conditional(self, reader: dict, writer: dict, path: str, depth: int) -> None:
        if not any(k in reader for k in ("if", "then", "else")):
            return
        if reader.get("if") != writer.get("if"):
            self.add(
                _join(path, "if"),
                f"condition changed in the {self.r} schema",
                f"may refuse data the {self.w} schema allows",
            )
            return
        base_r, base_w = _without(reader, "if", "then", "else"), _without(writer, "if", "then", "else")
        for branch in ("then", "else"):
            if branch in reader and reader[branch] != writer.get(branch):
                self.check(
                    merge(base_r, reader[branch]), merge(base_w, writer.get(branch, {})), _join(path, branch), depth + 1
                )


def _matches_pattern(name: str, patterns: dict) -> bool:
    for pattern in patterns:
        try:
            if pattern_search(pattern, name):
                return True
        except PatternError:
            continue
    return False


def incompatibilities(
    reader: Schema, writer: Schema, reader_role: str = "new", writer_role: str = "old"
) -> list[Incompatibility]:
    """Why a reader using `reader` may refuse data valid under `writer` ([] when it accepts all of it)."""
    checker = _Checker(reader.root, writer.root, reader_role, writer_role, reader.has_refs or writer.has_refs)
    checker.check(reader.root, writer.root, "")
    return list(checker.found)


def compare(old: Schema, new: Schema, direction: str) -> list[Incompatibility]:
    """backward: the new schema accepts old data; forward: the old schema accepts new data."""
    return compare_as_reader(old, new, direction, incompatibilities)
