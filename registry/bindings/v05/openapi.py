"""The 0.5-wip binding's OpenAPI declarations: what each of its views' methods does and what each query flag means,
written in the kernel's vocabulary (registry/http/openapi.py), which builds the description from them (an
operation's flags are those its view declares). `declare()` attaches them to the views and declares the bodies the
kernel describes from the model (urls.py calls it once; every group type's routes share the views)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes

from ...domain.model import registry_model
from ...http.openapi import (
    DOCUMENT,
    EPOCH,
    FILTER,
    ID_SCHEMA,
    LIMIT,
    LISTING_ERRORS,
    OBJECT,
    READ_ERRORS,
    WRITE_ERRORS,
    common_properties,
    describe,
    flag,
    group_body_schema,
    operation,
    register_body,
    register_group_body,
)

INLINE = flag("inline", "include nested entities (any value but false/0 turns it on)")
META = flag("meta", "metadata as JSON instead of the document")
MODEL = flag("model", "answer with the registry model")
REFERENCEDBY = flag(
    "referencedby",
    "answer with the entities that reference this one or something beneath it, as {path: {attribute, reference}} "
    "(JSON)",
)
OWNERS = flag(
    "owners",
    "the groups' owners: `keep` (the default; a registry admin's import makes the teams they name that do not exist, "
    "empty) or `drop` (left out: a copy into another organisation; groups already here keep theirs)",
    enum=["keep", "drop"],
)
FORCE = flag(
    "force",
    "`true` deletes even when entities outside this request still reference what is deleted (without it: 409 with "
    "a `referencedby` member naming them); any value but false/0 turns it on",
)
FORCE_IMPORT = flag(
    "force",
    "`true` imports references that name nothing (an entity, or a `:Name` in a schema) as written, each a warning "
    "of the report (without it: 400 naming each, nothing imported); any value but false/0 turns it on",
)
MEANINGS = {
    **{f.name: f for f in (INLINE, META, EPOCH, FILTER, LIMIT, MODEL, REFERENCEDBY, OWNERS, FORCE)},
    "page": None,  # tokens come from Link headers only: not offered
}
ELSEWHERE = (307, None, "stored elsewhere: Location")


def read(summary: str, *ok, errors=READ_ERRORS, **options):
    return operation(summary, ok=ok, errors=errors, **options)


def write(summary: str, *ok, **options):
    return operation(summary, ok=ok, errors=WRITE_ERRORS, **options)


ROOT = {
    "get": read(
        "Registry root, model (?model) or everything (?inline)",
        (200, OBJECT, "registry"),
        errors=LISTING_ERRORS,
        tags=["registry"],
    ),
    "post": write(
        "Import a registry document (JSON as described; the same in YAML as application/cloudevents-registry+yaml)",
        (
            200,
            OBJECT,
            "the import report: created, updated and unchanged paths, warnings ({path, reason}: references that name "
            "nothing, taken as written by a forced import) and teamsCreated (the teams the owners named that were made)",
        ),
        meanings={"force": FORCE_IMPORT},
        body={"application/json": OBJECT, "application/cloudevents-registry+json": OBJECT},
        tags=["registry"],
    ),
}
GROUPS = {
    "get": read("List groups (map id -> group)", (200, OBJECT, "groups"), errors=LISTING_ERRORS),
    "post": write("Create a group", (201, OBJECT, "created"), body=OBJECT),
    "delete": write("Delete listed groups, or all", (200, OBJECT, "deleted groups"), body=OpenApiTypes.ANY),
}
GROUP = {
    "get": read("Get a group (or ?referencedby)", (200, OBJECT, "group")),
    "put": write("Replace or create a group", (200, OBJECT, "updated"), (201, OBJECT, "created"), body=OBJECT),
    "delete": write("Delete a group and everything beneath", (200, OBJECT, "last state")),
}
RESOURCES = {
    "get": read("List resources (map id -> metadata)", (200, OBJECT, "resources")),
    "post": write(
        "Create a resource with its first version (document in the body, metadata in Registry-* headers)",
        (201, DOCUMENT, "created"),
        body={"*/*": DOCUMENT},
    ),
    "delete": write("Delete listed resources, or all", (200, OBJECT, "deleted"), body=OpenApiTypes.ANY),
}
RESOURCE = {
    "get": read(
        "The latest version's document (or ?meta, ?referencedby)", (200, DOCUMENT, "document or metadata"), ELSEWHERE
    ),
    "put": write(
        "Update the latest version (or ?meta), or create the resource",
        (200, DOCUMENT, "updated"),
        (201, DOCUMENT, "created"),
        body={"*/*": DOCUMENT},
    ),
    "post": write("Create a new version", (201, DOCUMENT, "created"), body={"*/*": DOCUMENT}),
    "delete": write("Delete the resource with all versions", (200, OBJECT, "last state")),
}
VERSIONS = {
    "get": read("List versions (map version id -> metadata)", (200, OBJECT, "versions")),
    "delete": write("Delete listed versions, or all but the latest", (200, OBJECT, "deleted"), body=OpenApiTypes.ANY),
}
VERSION = {
    "get": read("A version's document (or ?meta, ?referencedby)", (200, DOCUMENT, "document or metadata"), ELSEWHERE),
    "put": write(
        "Update the version (or ?meta), or create it",
        (200, DOCUMENT, "updated"),
        (201, DOCUMENT, "created"),
        body={"*/*": DOCUMENT},
    ),
    "delete": write("Delete the version", (200, OBJECT, "last state")),
}


def document_schema() -> dict:
    """A registry document (`POST /`): the top-level attributes and a map of id to group for each type."""
    properties = {
        "$schema": {"type": "string"},
        "specversion": {"type": "string"},
        **{k: v for k, v in common_properties().items() if k != "epoch"},
        "id": {"description": "the exporting registry's id; not imported"},
    }
    for gt in registry_model.group_types:
        properties[gt.plural] = {
            "type": "object",
            "propertyNames": dict(ID_SCHEMA),
            "additionalProperties": group_body_schema(gt, with_id=False, seed=False),
        }
    return {"type": "object", "properties": properties, "additionalProperties": False}


def declare(root, groups, group, resources, resource, versions, version) -> None:
    """Attach the operations to the binding's views, and declare the bodies described from the model: group bodies,
    definition documents (JSON objects: resource types with shared attributes) and the registry document."""
    for view, operations in (
        (root, ROOT),
        (groups, GROUPS),
        (group, GROUP),
        (resources, RESOURCES),
        (resource, RESOURCE),
        (versions, VERSIONS),
        (version, VERSION),  # (its view inherits the resource view's methods: describe gives it its own copies)
    ):
        describe(view, operations, MEANINGS)
    register_body("/", "post", document_schema)
    for gt in registry_model.group_types:
        register_group_body(f"/{gt.plural}", "post", gt.plural, with_id=True)
        register_group_body(f"/{gt.plural}/{{gid}}", "put", gt.plural)
        for rt in (rt for rt in gt.resources if rt.shared_attributes):
            base = f"/{gt.plural}/{{gid}}/{rt.plural}"
            for path, method in ((base, "post"), (base + "/{rid}", "put"), (base + "/{rid}", "post")):
                register_body(path, method, lambda: {"type": "object"}, json_only=True)
            register_body(base + "/{rid}/versions/{vid}", "put", lambda: {"type": "object"}, json_only=True)
