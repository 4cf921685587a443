"""OpenAPI descriptions of the older bindings' operations (drf-spectacular)."""
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema

from registry.api.openapi import FILTER, LIMIT, PAGE, document, problem_responses

from . import legacy

IDS = {(200, "application/json"): OpenApiResponse({"type": "array", "items": {"type": "string"}}, "ids")}
OBJECT = {(200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, "attributes")}
DOC = {(200, "*/*"): OpenApiResponse(OpenApiTypes.BINARY, "the document, attributes in headers"),
       (307, "*/*"): OpenApiResponse(description="stored elsewhere: Location")}
READ = problem_responses(400, 401, 404)
WRITE = problem_responses(400, 401, 403, 404, 409, 413, 415)
ATTRS = [OpenApiParameter(name, OpenApiTypes.STR, OpenApiParameter.QUERY, description=f"the version's {name}")
         for name in legacy.ATTRIBUTE_HEADERS]
TAGS = ["older bindings"]


def describe() -> None:
    document(legacy.GroupsView, {"get": extend_schema(summary="List group ids", parameters=[FILTER, LIMIT, PAGE],
                                                      responses={**IDS, **READ}, tags=TAGS)})
    document(legacy.FeaturesView, {"get": extend_schema(summary="List definition group ids",
                                                        parameters=[FILTER, LIMIT, PAGE],
                                                        responses={**IDS, **READ}, tags=TAGS),
                                   "options": extend_schema(summary="Features document",
                                                            responses={**OBJECT}, tags=TAGS)})
    document(legacy.GroupView, {
        "get": extend_schema(summary="Get a group", responses={**OBJECT, **READ}, tags=TAGS),
        "put": extend_schema(summary="Create or update a group", request=OpenApiTypes.OBJECT,
                             responses={**OBJECT, (201, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT),
                                        **WRITE}, tags=TAGS),
        "delete": extend_schema(summary="Delete a group", responses={**OBJECT, **WRITE}, tags=TAGS),
    })
    document(legacy.ResourcesView, {
        "get": extend_schema(summary="List ids in the group", parameters=[FILTER, LIMIT, PAGE],
                             responses={**IDS, **READ}, tags=TAGS),
        "delete": extend_schema(summary="Delete all in the group", responses={**IDS, **WRITE}, tags=TAGS),
    })
    document(legacy.ResourceView, {
        "get": extend_schema(summary="The latest version's document", responses={**DOC, **READ}, tags=TAGS),
        "post": extend_schema(summary="Add a version (the first creates it)", parameters=ATTRS,
                              request={"*/*": OpenApiTypes.BINARY},
                              responses={(201, "*/*"): OpenApiResponse(OpenApiTypes.BINARY), **WRITE}, tags=TAGS),
        "delete": extend_schema(summary="Delete with all versions", responses={**OBJECT, **WRITE}, tags=TAGS),
    })
    document(legacy.VersionsView, {"get": extend_schema(
        summary="List version numbers", tags=TAGS,
        responses={(200, "application/json"): OpenApiResponse({"type": "array", "items": {"type": "integer"}}),
                   **READ})})
    document(legacy.VersionView, {
        "get": extend_schema(summary="A version's document", responses={**DOC, **READ}, tags=TAGS),
        "delete": extend_schema(summary="Delete a version", responses={**OBJECT, **WRITE}, tags=TAGS),
    })
    document(legacy.LookupView, {"get": extend_schema(
        summary="A version by its version URI", tags=TAGS, responses={**DOC, **READ},
        parameters=[OpenApiParameter("uri", OpenApiTypes.STR, OpenApiParameter.QUERY, required=True)])})
