"""The OpenAPI descriptions of the older bindings' operations (the Schema Registry and Message Catalog APIs):
one set of descriptions per base view of base.py, attached to each binding's concrete views."""

from __future__ import annotations

from typing import TYPE_CHECKING

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema

from ..v05.openapi import EPOCH, FILTER, LIMIT, problem_responses

if TYPE_CHECKING:
    from .base import Binding


def described(cls, operations: dict):
    """Attach OpenAPI descriptions to a concrete view class. Each method gets its own wrapper, so two
    bindings sharing a base method keep their own descriptions."""
    for method, schema in operations.items():
        base = getattr(cls, method)

        def wrapper(self, request, *args, _base=base, **kwargs):
            return _base(self, request, *args, **kwargs)

        wrapper.__name__, wrapper.__doc__ = method, base.__doc__
        setattr(cls, method, schema(wrapper))
    return cls


IDS = {(200, "application/json"): OpenApiResponse({"type": "array", "items": {"type": "string"}}, "ids")}
NUMBERS = {(200, "application/json"): OpenApiResponse({"type": "array", "items": {"type": "integer"}}, "versions")}
OBJECT = {(200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, "attributes")}
DOCUMENT = {
    (200, "*/*"): OpenApiResponse(OpenApiTypes.BINARY, "the document, with attributes as headers"),
    (307, "*/*"): OpenApiResponse(description="stored elsewhere: Location"),
}
READ = problem_responses(400, 401, 404)
WRITE = problem_responses(400, 401, 403, 404, 409, 413, 415)
LIST = [FILTER, LIMIT]
URI = OpenApiParameter(
    "uri", OpenApiTypes.STR, OpenApiParameter.QUERY, required=True, description="a version URI (authority + version id)"
)


def post_parameters(binding: Binding) -> list:
    return [
        EPOCH,
        *[
            OpenApiParameter(
                name,
                OpenApiTypes.STR,
                OpenApiParameter.QUERY,
                description=f"the {name} attribute (or a header of that name)",
            )
            for name in binding.attributes
        ],
    ]


def operations(what: str, binding: Binding, tags: list[str]) -> dict:
    """The descriptions of each base view's operations for one binding (`what`: "schema", "definition")."""
    return {
        "groups": {
            "get": extend_schema(
                summary=f"List {what} group ids", parameters=LIST, responses={**IDS, **READ}, tags=tags
            )
        },
        "group": {
            "get": extend_schema(summary=f"Get a {what} group", responses={**OBJECT, **READ}, tags=tags),
            "put": extend_schema(
                summary=f"Create or update a {what} group",
                parameters=[EPOCH],
                request=OpenApiTypes.OBJECT,
                tags=tags,
                responses={**OBJECT, (201, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT), **WRITE},
            ),
            "delete": extend_schema(
                summary=f"Delete a {what} group", parameters=[EPOCH], responses={**OBJECT, **WRITE}, tags=tags
            ),
        },
        "resources": {
            "get": extend_schema(
                summary=f"List {what} ids of a group", parameters=LIST, responses={**IDS, **READ}, tags=tags
            ),
            "delete": extend_schema(summary=f"Delete all {what}s of a group", responses={**IDS, **WRITE}, tags=tags),
        },
        "resource": {
            "get": extend_schema(summary=f"The latest version of a {what}", responses={**DOCUMENT, **READ}, tags=tags),
            "post": extend_schema(
                summary=f"Add a {what} version (the first creates the {what})",
                parameters=post_parameters(binding),
                request={"*/*": OpenApiTypes.BINARY},
                responses={(201, "*/*"): OpenApiResponse(OpenApiTypes.BINARY, "created"), **WRITE},
                tags=tags,
            ),
            "delete": extend_schema(
                summary=f"Delete a {what} with all versions",
                parameters=[EPOCH],
                responses={**OBJECT, **WRITE},
                tags=tags,
            ),
        },
        "versions": {
            "get": extend_schema(
                summary=f"List the version numbers of a {what}",
                parameters=LIST,
                responses={**NUMBERS, **READ},
                tags=tags,
            )
        },
        "version": {
            "get": extend_schema(summary=f"A {what} version", responses={**DOCUMENT, **READ}, tags=tags),
            "delete": extend_schema(
                summary=f"Delete a {what} version", parameters=[EPOCH], responses={**OBJECT, **WRITE}, tags=tags
            ),
        },
        "lookup": {
            "get": extend_schema(
                summary=f"A {what} version by its version URI",
                parameters=[URI],
                responses={**DOCUMENT, **READ},
                tags=tags,
            )
        },
    }
