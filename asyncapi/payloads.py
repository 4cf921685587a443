"""Message payloads as schema documents of the registry: the AsyncAPI `schemaFormat` as a registry format, and the
schema as one self-contained document.

Formats: the AsyncAPI schema and JSON Schema (`application/vnd.aai.asyncapi...`, `application/schema+json...`,
`+yaml`) are `JsonSchema/draft-07` (the AsyncAPI Schema Object is a superset of draft-07, and its additions are
keywords draft-07 ignores); `application/vnd.apache.avro;version=V` is `Avro/V`; `application/vnd.google.protobuf;
version=V` is `Protobuf/V`; OpenAPI and RAML schemas keep their names (`OpenAPI/3.0.0`, `RAML/1.0`) and are stored
unvalidated, like any format the registry does not know; `application/vnd.xregistry.NAME;version=V` (what this
server's export writes for other formats) is `NAME/V`.

A JSON Schema's `$ref`s are inlined, so the stored schema stands alone; a schema that refers to itself, directly or
through others (a tree, a linked list), keeps those references as `#/definitions/NAME` inside the document. A
schema whose inlined form would exceed MAX_NODES values (references that fan out exponentially) is refused.
Written by hand: the inlining must follow AsyncAPI's references (files beside the document, the setting for remote
ones), which the resolver of `sources.py` does.
"""

from __future__ import annotations

import json
import re

from .sources import AsyncAPIError, Loc, Resolver, escape

MAX_NODES = 200_000  # values in one inlined schema
MEDIA_TYPE = re.compile(r"^\s*([A-Za-z0-9.+\-]+/[A-Za-z0-9.+\-]+)\s*(;.*)?$")
# keywords whose values are data, not schemas: a "$ref" inside them is not a reference
DATA_KEYWORDS = {"const", "enum", "default", "examples", "example"}


def _params(text: str) -> dict[str, str]:
    out = {}
    for part in (text or "").split(";"):
        name, eq, value = part.partition("=")
        if eq:
            out[name.strip().lower()] = value.strip().strip('"')
    return out


def registry_format(schema_format: str | None, place: str) -> str:
    """The registry's schema format for an AsyncAPI `schemaFormat` (None: the AsyncAPI schema)."""
    if schema_format is None:
        return "JsonSchema/draft-07"
    match = MEDIA_TYPE.match(schema_format) if isinstance(schema_format, str) else None
    if not match:
        raise AsyncAPIError(place, f"schemaFormat {schema_format!r} is not a media type")
    media, params = match.group(1).lower(), _params(match.group(2) or "")
    version = params.get("version")
    base = media.split("+", 1)[0]
    if base in ("application/vnd.aai.asyncapi", "application/schema"):
        draft = version if base == "application/schema" and version else "draft-07"
        return f"JsonSchema/{draft}"
    if base == "application/vnd.apache.avro":
        return f"Avro/{version or '1.9.0'}"
    if base == "application/vnd.google.protobuf":
        return f"Protobuf/{version or '3'}"
    if base == "application/vnd.oai.openapi":
        return f"OpenAPI/{version or '3.0.0'}"
    if base == "application/raml":
        return f"RAML/{version or '1.0'}"
    if base.startswith("application/vnd.xregistry.") and version:
        return f"{params.get('name') or base.removeprefix('application/vnd.xregistry.')}/{version}"
    raise AsyncAPIError(
        place,
        f"schemaFormat {schema_format!r} is not one the registry stores (JSON Schema, the AsyncAPI schema, Avro, "
        "Protobuf, OpenAPI, RAML)",
    )


def family(fmt: str) -> str:
    return fmt.split("/", 1)[0].lower()


class _Bundler:
    """A JSON Schema with the references that leave it inlined (two passes when some are recursive)."""

    def __init__(self, resolver: Resolver, root: Loc):
        self.resolver = resolver
        self.root = root  # where the schema itself is: references into it stay references
        self.recursive: set[Loc] = set()
        self.definitions: dict[str, object] = {}
        self.names: dict[Loc, str] = {}
        self.nodes = 0

    def inside(self, loc: Loc) -> bool:
        return loc.file == self.root.file and loc.path[: len(self.root.path)] == self.root.path

    def name_for(self, loc: Loc) -> str:
        if loc not in self.names:
            base = re.sub(r"[^A-Za-z0-9_.\-]", "_", str(loc.path[-1]) if loc.path else "schema") or "schema"
            name, n = base, 1
            while name in self.names.values():
                n += 1
                name = f"{base}{n}"
            self.names[loc] = name
        return self.names[loc]

    def count(self):
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise AsyncAPIError(
                str(self.root), f"the schema holds more than {MAX_NODES} values once its $refs are inlined"
            )

    def walk(self, node, at: Loc, stack: tuple, final: bool):
        self.count()
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                target = self.resolver.target(node["$ref"], at)
                if self.inside(target):
                    self.resolver.get(target, at)  # it must exist
                    return {**node, "$ref": "#" + "".join("/" + escape(p) for p in target.path[len(self.root.path) :])}
                if target in stack or (final and target in self.recursive):
                    self.recursive.add(target)
                    if final and self.names.get(target) not in self.definitions:
                        name = self.name_for(target)
                        self.definitions[name] = None  # taken: a reference met while walking it stays a reference
                        self.definitions[name] = self.walk(
                            self.resolver.get(target, at), target, (*stack, target), final
                        )
                    return {"$ref": f"#/definitions/{self.name_for(target)}"}
                if len(stack) > 200:
                    raise AsyncAPIError(str(at), "$refs nested more than 200 deep")
                return self.walk(self.resolver.get(target, at), target, (*stack, target), final)
            out = {}
            for key, value in node.items():
                if key in DATA_KEYWORDS:
                    out[key] = value
                else:
                    out[key] = self.walk(value, at / key, stack, final)
            return out
        if isinstance(node, list):
            return [self.walk(value, at / index, stack, final) for index, value in enumerate(node)]
        return node


def bundle_json_schema(resolver: Resolver, node, at: Loc):
    """The schema at `at` as one document: references into it kept (relative to it), references out of it
    inlined, recursive ones as `#/definitions/NAME`."""
    node, at = resolver.deref(node, at)
    bundler = _Bundler(resolver, at)
    first = bundler.walk(node, at, (), final=False)
    if not bundler.recursive:
        return first
    bundler.nodes = 0
    out = bundler.walk(node, at, (), final=True)
    if not isinstance(out, dict):
        raise AsyncAPIError(str(at), "a recursive schema must be an object")
    out = dict(out)
    definitions = dict(out.get("definitions") or {})
    for name, value in bundler.definitions.items():
        definitions[name] = value
    out["definitions"] = definitions
    return out


def payload_document(resolver: Resolver, fmt: str, node, at: Loc):
    """The schema document of a payload: a JSON value (JSON Schema, Avro) or a text (Protobuf)."""
    kind = family(fmt)
    if kind == "jsonschema":
        schema = bundle_json_schema(resolver, node, at)
        if not isinstance(schema, dict | bool):
            raise AsyncAPIError(str(at), "a JSON Schema must be an object or a boolean")
        return schema
    value, where = resolver.deref(node, at)
    if kind == "protobuf":
        if not isinstance(value, str):
            raise AsyncAPIError(str(where), "a Protobuf schema must be the text of a .proto file")
        return value
    if kind == "avro" and isinstance(value, str):
        return json.dumps(value)  # a primitive type's name ("string") is the JSON text "\"string\""
    return value
