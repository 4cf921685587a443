"""The older bindings' OpenAPI declarations (the Schema Registry and Message Catalog APIs), written in the kernel's
vocabulary (registry/http/openapi.py): one table per base view of base.py, the same for both bindings but for their
words, the Message Catalog's own operations, and what each query flag means (an operation's flags are those its view
declares, `RegistryView.flags`). `declare()` attaches them (urls.py calls it)."""

from __future__ import annotations

from dataclasses import replace

from ...http.openapi import DOCUMENT, EPOCH, FILTER, LIMIT, OBJECT, describe, flag, operation, register_group_body
from ...http.openapi import LISTING_ERRORS as LISTING
from ...http.openapi import READ_ERRORS as READ
from ...http.openapi import WRITE_ERRORS as WRITE
from . import messagecatalog as mc
from . import schemaregistry as sr

IDS = (200, {"type": "array", "items": {"type": "string"}}, "ids")
NUMBERS = (200, {"type": "array", "items": {"type": "integer"}}, "versions")
ATTRIBUTES = (200, OBJECT, "attributes")
FOUND = ((200, DOCUMENT, "the document, with attributes as headers"), (307, None, "stored elsewhere: Location"))
URI = flag("uri", "a version URI (authority + version id)", required=True)
MEANINGS = {
    **{f.name: f for f in (EPOCH, FILTER, LIMIT, URI)},
    **{
        name: flag(name, f"the {name} attribute (or a header of that name)")
        for name in {*sr.SCHEMA_REGISTRY.attributes, *mc.MESSAGE_CATALOG.attributes}
    },
    "page": None,  # tokens come from Link headers only: not offered
}
FEATURES = {
    "type": "object",
    "required": ["filterattributes"],
    "properties": {
        "filterattributes": {"type": "array", "items": {"type": "string"}},
        "pagination": {"type": "boolean"},
        "update": {"type": "boolean"},
    },
}


# the longer text of the operations the kernel's views answer (registry/http/entity_views.py; the binding's own methods
# have theirs in their docstrings)
DESCRIPTIONS = {
    "groups get": "The ids of the groups (`?filter`, `?limit` paging with a `Link` header).",
    "group get": "The group's attributes.",
    "group put": "Create (201) or update (200) the group: the body holds its attributes (missing ones are removed).",
    "group delete": "Delete the group and everything in it; answers its last attributes.",
    "resources get": "The ids in the group (`?filter` on the latest version's attributes, `?limit` paging).",
    "resource get": "The latest version's document with its Content-Type; attributes as headers.",
    "resource delete": "Delete the resource with all its versions; answers its last attributes and version numbers.",
    "versions get": "The version numbers, ascending (`?filter`, `?limit` paging).",
    "version get": "That version's document with its Content-Type; attributes as headers.",
    "version delete": "Delete that version (not the only one: delete the resource instead); answers its last "
    "attributes.",
}


def operations(what: str, tags: list[str]) -> dict:
    """The descriptions of each base view's operations for one binding (`what`: "schema", "definition")."""

    def read(summary: str, *ok, errors=READ):
        return operation(summary, ok=ok, errors=errors, tags=tags)

    def write(summary: str, *ok, **options):
        return operation(summary, ok=ok, errors=WRITE, tags=tags, **options)

    described = {
        "groups": {"get": read(f"List {what} group ids", IDS, errors=LISTING)},
        "group": {
            "get": read(f"Get a {what} group", ATTRIBUTES),
            "put": write(f"Create or update a {what} group", ATTRIBUTES, (201, OBJECT, ""), body=OBJECT),
            "delete": write(f"Delete a {what} group", ATTRIBUTES),
        },
        "resources": {
            "get": read(f"List {what} ids of a group", IDS),
            "delete": write(f"Delete all {what}s of a group", IDS),
        },
        "resource": {
            "get": read(f"The latest version of a {what}", *FOUND),
            "post": write(
                f"Add a {what} version (the first creates the {what})",
                (201, DOCUMENT, "created"),
                body={"*/*": DOCUMENT},
            ),
            "delete": write(f"Delete a {what} with all versions", ATTRIBUTES),
        },
        "versions": {"get": read(f"List the version numbers of a {what}", NUMBERS)},
        "version": {
            "get": read(f"A {what} version", *FOUND),
            "delete": write(f"Delete a {what} version", ATTRIBUTES),
        },
        "lookup": {"get": read(f"A {what} version by its version URI", *FOUND)},
    }
    return {
        level: {method: replace(op, description=DESCRIPTIONS.get(f"{level} {method}")) for method, op in ops.items()}
        for level, ops in described.items()
    }


def declare() -> None:
    """Attach the operations to both bindings' views; their group PUTs take a core group body (its id from the URL)."""
    schemas = operations("schema", sr.TAGS)
    definitions = operations("definition", mc.TAGS)
    definitions["groups"]["options"] = operation(
        "The catalog's features", ok=[(200, FEATURES, "the features document")], tags=mc.TAGS
    )
    definitions["resources"]["post"] = operation(
        "Add a definition version from a definition object with its id (the first creates it)",
        ok=[(201, OBJECT, "created")],
        errors=WRITE,
        body={"application/json": OBJECT},
        tags=mc.TAGS,
    )
    definitions["lookup"] = {  # without `uri`, the group of that id
        "get": operation(
            "A definition version by its version URI",
            ok=FOUND,
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
            describe(view, described[level], MEANINGS)
        register_group_body(f"/{names.groups_base}/{{gid}}", "put", names.group_plural)
