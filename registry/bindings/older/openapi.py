"""The older bindings' OpenAPI declarations (the Schema Registry and Message Catalog APIs), written in the kernel's
vocabulary (registry/http/openapi.py): one table per base view of base.py, the same for both bindings but for their
words and attributes, and the Message Catalog's own operations. `declare()` attaches them (urls.py calls it)."""

from __future__ import annotations

from ...http.openapi import DOCUMENT, EPOCH, FILTER, LIMIT, OBJECT, describe, flag, operation, register_group_body
from ...http.openapi import READ_ERRORS as READ
from ...http.openapi import WRITE_ERRORS as WRITE
from . import messagecatalog as mc
from . import schemaregistry as sr
from .base import OlderBinding

IDS = (200, {"type": "array", "items": {"type": "string"}}, "ids")
NUMBERS = (200, {"type": "array", "items": {"type": "integer"}}, "versions")
ATTRIBUTES = (200, OBJECT, "attributes")
FOUND = ((200, DOCUMENT, "the document, with attributes as headers"), (307, None, "stored elsewhere: Location"))
LIST = [FILTER, LIMIT]
URI = flag("uri", "a version URI (authority + version id)", required=True)
FEATURES = {
    "type": "object",
    "required": ["filterattributes"],
    "properties": {
        "filterattributes": {"type": "array", "items": {"type": "string"}},
        "pagination": {"type": "boolean"},
        "update": {"type": "boolean"},
    },
}


def post_flags(binding: OlderBinding) -> list:
    return [EPOCH, *(flag(name, f"the {name} attribute (or a header of that name)") for name in binding.attributes)]


def operations(what: str, binding: OlderBinding, tags: list[str]) -> dict:
    """The descriptions of each base view's operations for one binding (`what`: "schema", "definition")."""

    def read(summary: str, *ok, flags=()):
        return operation(summary, ok=ok, errors=READ, flags=flags, tags=tags)

    def write(summary: str, *ok, flags=(), **options):
        return operation(summary, ok=ok, errors=WRITE, flags=flags, tags=tags, **options)

    return {
        "groups": {"get": read(f"List {what} group ids", IDS, flags=LIST)},
        "group": {
            "get": read(f"Get a {what} group", ATTRIBUTES),
            "put": write(f"Create or update a {what} group", ATTRIBUTES, (201, OBJECT, ""), flags=[EPOCH], body=OBJECT),
            "delete": write(f"Delete a {what} group", ATTRIBUTES, flags=[EPOCH]),
        },
        "resources": {
            "get": read(f"List {what} ids of a group", IDS, flags=LIST),
            "delete": write(f"Delete all {what}s of a group", IDS),
        },
        "resource": {
            "get": read(f"The latest version of a {what}", *FOUND),
            "post": write(
                f"Add a {what} version (the first creates the {what})",
                (201, DOCUMENT, "created"),
                flags=post_flags(binding),
                body={"*/*": DOCUMENT},
            ),
            "delete": write(f"Delete a {what} with all versions", ATTRIBUTES, flags=[EPOCH]),
        },
        "versions": {"get": read(f"List the version numbers of a {what}", NUMBERS, flags=LIST)},
        "version": {
            "get": read(f"A {what} version", *FOUND),
            "delete": write(f"Delete a {what} version", ATTRIBUTES, flags=[EPOCH]),
        },
        "lookup": {"get": read(f"A {what} version by its version URI", *FOUND, flags=[URI])},
    }


def declare() -> None:
    """Attach the operations to both bindings' views; their group PUTs take a core group body (its id from the URL)."""
    schemas = operations("schema", sr.SCHEMA_REGISTRY, sr.TAGS)
    definitions = operations("definition", mc.MESSAGE_CATALOG, mc.TAGS)
    definitions["groups"]["options"] = operation(
        "The catalog's features", ok=[(200, FEATURES, "the features document")], tags=mc.TAGS
    )
    definitions["resources"]["post"] = operation(
        "Add a definition version from a definition object with its id (the first creates it)",
        ok=[(201, OBJECT, "created")],
        errors=WRITE,
        flags=post_flags(mc.MESSAGE_CATALOG),
        body={"application/json": OBJECT},
        tags=mc.TAGS,
    )
    definitions["lookup"] = {  # without `uri`, the group of that id
        "get": operation(
            "A definition version by its version URI",
            ok=FOUND[:1],
            errors=READ,
            flags=[flag("uri", "a version URI; without it, the group named messagedefinition")],
            tags=mc.TAGS,
        ),
        "put": definitions["group"]["put"],
        "delete": definitions["group"]["delete"],
    }
    for names, views, described in (
        (sr.SCHEMA_REGISTRY, sr.VIEWS, schemas),
        (mc.MESSAGE_CATALOG, mc.VIEWS, definitions),
    ):
        for level, view in views.items():
            describe(view, described[level])
        register_group_body(f"/{names.groups_base}/{{gid}}", "put", names.group_plural)
