"""OpenAPI descriptions of the core binding's operations (drf-spectacular), kept apart from the views.

`document(view_class, operations)` decorates each view class once (urls.py); every group type's
routes share them. Rules that hold for the whole document (ids, parameter bounds, bodies from the model) are
applied afterwards by the postprocessing hook in openapi_document.py.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema

from ...http.openapi import problem_responses

ENTITY = OpenApiTypes.OBJECT
DOCUMENT = {"*/*": OpenApiTypes.BINARY}


def _query(name: str, type_, description: str, many: bool = False, enum: list[str] | None = None) -> OpenApiParameter:
    return OpenApiParameter(name, type_, OpenApiParameter.QUERY, description=description, many=many, enum=enum)


INLINE = _query("inline", OpenApiTypes.STR, "include nested entities (any value but false/0 turns it on)")
META = _query("meta", OpenApiTypes.STR, "metadata as JSON instead of the document")
EPOCH = _query("epoch", OpenApiTypes.INT, "the entity's current epoch; 409 when it differs")
FILTER = _query("filter", OpenApiTypes.STR, "ATTR=VALUE, '*' wildcards, dotted paths; repeatable (AND)", many=True)
LIMIT = _query("limit", OpenApiTypes.INT, "page size")
MODEL = _query("model", OpenApiTypes.STR, "answer with the registry model")
REFERENCEDBY = _query(
    "referencedby",
    OpenApiTypes.STR,
    "answer with the entities that reference this one or "
    "something beneath it, as {path: {attribute, reference}} (JSON)",
)
OWNERS = _query(
    "owners",
    OpenApiTypes.STR,
    "the groups' owners: `keep` (the default; a registry admin's import makes the teams they name that do not exist, "
    "empty) or `drop` (left out: a copy into another organisation; groups already here keep theirs)",
    enum=["keep", "drop"],
)
FORCE = _query(
    "force",
    OpenApiTypes.STR,
    "`true` deletes even when entities outside this request still reference "
    "what is deleted (without it: 409 with a `referencedby` member naming them); any value but "
    "false/0 turns it on",
)
FORCE_IMPORT = _query(
    "force",
    OpenApiTypes.STR,
    "`true` imports references that name nothing (an entity, or a `:Name` in a schema) as written, each a warning "
    "of the report (without it: 400 naming each, nothing imported); any value but false/0 turns it on",
)
COLLECTION = [INLINE, FILTER, LIMIT]  # `page` tokens come from Link headers only: not offered

READ_ERRORS = problem_responses(400, 401, 404)
WRITE_ERRORS = problem_responses(400, 401, 403, 404, 409, 413, 415)


def _ok(status: int, response, description: str, writes: bool) -> dict:
    errors = WRITE_ERRORS if writes else READ_ERRORS
    if response is DOCUMENT:
        return {(status, "*/*"): OpenApiResponse(response=OpenApiTypes.BINARY, description=description), **errors}
    return {(status, "application/json"): OpenApiResponse(response=response, description=description), **errors}


def _doc(status: int, description: str) -> dict:
    return {(status, "*/*"): OpenApiResponse(response=OpenApiTypes.BINARY, description=description)}


ROOT = {
    "get": extend_schema(
        summary="Registry root, model (?model) or everything (?inline)",
        parameters=[MODEL, INLINE],
        responses=_ok(200, ENTITY, "registry", False),
        tags=["registry"],
    ),
    "post": extend_schema(
        summary="Import a registry document (JSON as described; the same in YAML as "
        "application/cloudevents-registry+yaml)",
        parameters=[OWNERS, FORCE_IMPORT],
        request={"application/json": ENTITY, "application/cloudevents-registry+json": ENTITY},
        responses=_ok(
            200,
            ENTITY,
            "the import report: created, updated and unchanged paths, warnings ({path, reason}: references that name "
            "nothing, taken as written by a forced import) and teamsCreated (the teams the owners named that were made)",
            True,
        ),
        tags=["registry"],
    ),
}
GROUPS = {
    "get": extend_schema(
        summary="List groups (map id -> group)", parameters=COLLECTION, responses=_ok(200, ENTITY, "groups", False)
    ),
    "post": extend_schema(summary="Create a group", request=ENTITY, responses=_ok(201, ENTITY, "created", True)),
    "delete": extend_schema(
        summary="Delete listed groups, or all",
        request=OpenApiTypes.ANY,
        parameters=[FORCE],
        responses=_ok(200, ENTITY, "deleted groups", True),
    ),
}
GROUP = {
    "get": extend_schema(
        summary="Get a group (or ?referencedby)",
        parameters=[INLINE, REFERENCEDBY],
        responses=_ok(200, ENTITY, "group", False),
    ),
    "put": extend_schema(
        summary="Replace or create a group",
        parameters=[EPOCH],
        request=ENTITY,
        responses={**_ok(200, ENTITY, "updated", True), (201, "application/json"): OpenApiResponse(ENTITY, "created")},
    ),
    "delete": extend_schema(
        summary="Delete a group and everything beneath",
        parameters=[EPOCH, FORCE],
        responses=_ok(200, ENTITY, "last state", True),
    ),
}
RESOURCES = {
    "get": extend_schema(
        summary="List resources (map id -> metadata)",
        parameters=COLLECTION,
        responses=_ok(200, ENTITY, "resources", False),
    ),
    "post": extend_schema(
        summary="Create a resource with its first version (document in the body, metadata in Registry-* headers)",
        request=DOCUMENT,
        responses=_ok(201, DOCUMENT, "created", True),
    ),
    "delete": extend_schema(
        summary="Delete listed resources, or all",
        request=OpenApiTypes.ANY,
        parameters=[FORCE],
        responses=_ok(200, ENTITY, "deleted", True),
    ),
}
RESOURCE = {
    "get": extend_schema(
        summary="The latest version's document (or ?meta, ?referencedby)",
        parameters=[META, INLINE, REFERENCEDBY],
        responses={
            **_ok(200, DOCUMENT, "document or metadata", False),
            (307, "*/*"): OpenApiResponse(description="stored elsewhere: Location"),
        },
    ),
    "put": extend_schema(
        summary="Update the latest version (or ?meta), or create the resource",
        parameters=[META, EPOCH],
        request=DOCUMENT,
        responses={**_ok(200, DOCUMENT, "updated", True), **_doc(201, "created")},
    ),
    "post": extend_schema(
        summary="Create a new version",
        parameters=[EPOCH],
        request=DOCUMENT,
        responses=_ok(201, DOCUMENT, "created", True),
    ),
    "delete": extend_schema(
        summary="Delete the resource with all versions",
        parameters=[EPOCH, FORCE],
        responses=_ok(200, ENTITY, "last state", True),
    ),
}
VERSIONS = {
    "get": extend_schema(
        summary="List versions (map version id -> metadata)",
        parameters=COLLECTION,
        responses=_ok(200, ENTITY, "versions", False),
    ),
    "delete": extend_schema(
        summary="Delete listed versions, or all but the latest",
        request=OpenApiTypes.ANY,
        parameters=[FORCE],
        responses=_ok(200, ENTITY, "deleted", True),
    ),
}
VERSION = {
    "get": extend_schema(
        summary="A version's document (or ?meta, ?referencedby)",
        parameters=[META, REFERENCEDBY],
        responses={
            **_ok(200, DOCUMENT, "document or metadata", False),
            (307, "*/*"): OpenApiResponse(description="stored elsewhere: Location"),
        },
    ),
    "put": extend_schema(
        summary="Update the version (or ?meta), or create it",
        parameters=[META, EPOCH],
        request=DOCUMENT,
        responses={**_ok(200, DOCUMENT, "updated", True), **_doc(201, "created")},
    ),
    "delete": extend_schema(
        summary="Delete the version", parameters=[EPOCH, FORCE], responses=_ok(200, ENTITY, "last state", True)
    ),
}


def document(view_class, operations: dict):
    """Apply the operations' descriptions to a view class's methods."""
    for method, decorator in operations.items():
        setattr(view_class, method, decorator(getattr(view_class, method)))
    return view_class
