"""OpenAPI descriptions of the 1.0 binding's operations (drf-spectacular), applied to its views in urls.py.

Bodies and answers are xRegistry 1.0 entities (JSON objects) or, for a document resource without
`$details`, the document itself; failures are 1.0 problem documents (`application/problem+json`).
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view

from ..http.openapi import PROBLEM

TAG = ["xregistry-1.0"]


def _flag(name: str, description: str, type_=OpenApiTypes.STR) -> OpenApiParameter:
    return OpenApiParameter(name, type_, OpenApiParameter.QUERY, description=description)


INLINE = _flag("inline", "comma-separated paths to inline (`*`, `messagegroups.messages`, `model`, `capabilities`)")
DOC = _flag("doc", "document view: relative links, resources without their default version's attributes")
EPOCH = _flag("epoch", "the entity's current epoch (400 mismatched_epoch when it differs)", OpenApiTypes.INT)
FILTER = _flag("filter", "ATTR=VALUE in dot notation, `*` wildcards")
LIMIT = _flag("limit", "page size (pages are linked by `Link: <...>;rel=next;count=N`)", OpenApiTypes.INT)
SETDEFAULT = _flag("setdefaultversionid", "make this version the sticky default")
COLLECTIONS = _flag("collections", "only the nested collection maps, everything below inlined (registry and groups)")
SORT = _flag("sort", "ATTR[=asc|desc]: the whole collection in that order, then paged")
OWNERS = _flag(
    "owners",
    "an import's groups' owners: `keep` (the default; a registry admin's import makes the teams they name that do not "
    "exist) or `drop` (left out: a copy into another organisation)",
)
FORCE_IMPORT = _flag(
    "force",
    "an import's references that name nothing: `true` takes them as written (without it: 400 naming each, nothing "
    "imported)",
)
READ = [INLINE, DOC, FILTER, LIMIT]
ERRORS = {
    (code, "application/problem+json"): OpenApiResponse(PROBLEM, text)
    for code, text in (
        (400, "bad request (1.0 error type)"),
        (401, "authentication required"),
        (403, "permission denied"),
        (404, "not_found"),
        (409, "conflict"),
        (415, "the body is not of the media type this request takes"),
    )
}


def _json(text: str, *statuses: int) -> dict:
    return {
        **{(status, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, text) for status in statuses},
        **ERRORS,
    }


def _ops(
    summary: str,
    *,
    read: list | None = None,
    methods: tuple[str, ...] = ("get",),
    document: bool = False,
    created: tuple[str, ...] = ("put", "patch"),
    post_flags: tuple = (),
):
    """Operations of one view: `created` names the methods that answer 201 when they create the entity; `post_flags`
    are the POST's own flags."""
    ops = {}
    for method in methods:
        if method == "get":
            responses = (
                {
                    (200, "*/*"): OpenApiResponse(
                        OpenApiTypes.BINARY, "the document, metadata in xRegistry-* headers (JSON with $details)"
                    ),
                    303: OpenApiResponse(description="stored elsewhere: Location"),
                    **ERRORS,
                }
                if document
                else _json(summary, 200)
            )
            ops[method] = extend_schema(summary=summary, parameters=read or [], responses=responses, tags=TAG)
        elif method == "delete":
            ops[method] = extend_schema(
                summary=f"Delete: {summary}",
                parameters=[EPOCH],
                request=OpenApiTypes.OBJECT,
                responses={204: OpenApiResponse(description="deleted"), **ERRORS},
                tags=TAG,
            )
        else:
            statuses = (200, 201) if method in created else (200,)
            if document and method in ("put", "post"):  # the document itself (JSON metadata with $details)
                request = {"*/*": OpenApiTypes.BINARY}
                responses = {
                    **{(status, "*/*"): OpenApiResponse(OpenApiTypes.BINARY, summary) for status in statuses},
                    **ERRORS,
                }
            else:
                request = {"application/json": OpenApiTypes.OBJECT}
                responses = _json(summary, *statuses)
            ops[method] = extend_schema(
                summary=f"{method.upper()}: {summary}",
                parameters=[EPOCH, SETDEFAULT, *(post_flags if method == "post" else ())],
                request=request,
                responses=responses,
                tags=TAG,
            )
    return extend_schema_view(**ops)


OPERATIONS = {
    "RootView": _ops(
        "Registry root (POST: import a 1.0 document)",
        read=[*READ, COLLECTIONS],
        methods=("get", "post", "put", "patch"),
        created=(),
        post_flags=(OWNERS, FORCE_IMPORT),
    ),
    "ExportView": _ops("The registry as a 1.0 document (?doc&inline=*,capabilities,modelsource)"),
    "ModelView": _ops(
        "The model (fixed: writes answer model_error)", methods=("get", "put", "patch", "post"), created=()
    ),
    "ModelSourceView": _ops(
        "The model source (fixed: writes answer model_error)", methods=("get", "put", "patch", "post"), created=()
    ),
    "CapabilitiesView": _ops(
        "Capabilities (changes the server does not offer are refused)", methods=("get", "put", "patch"), created=()
    ),
    "CapabilitiesOfferedView": _ops("Capabilities offered"),
    "DiscoveryView": _ops("Where the xRegistry 1.0 binding is, and the spec versions served"),
    "GroupCollectionView": _ops(
        "Groups (map id -> group)", read=[*READ, SORT], methods=("get", "post", "patch", "delete"), created=()
    ),
    "GroupView": _ops("A group", read=[*READ, COLLECTIONS], methods=("get", "put", "patch", "post", "delete")),
    "ResourceCollectionView": _ops(
        "Resources (map id -> resource)", read=[*READ, SORT], methods=("get", "post", "patch", "delete"), created=()
    ),
    "ResourceView": _ops(
        "A resource: its default version's document (or metadata with $details)",
        read=READ,
        methods=("get", "put", "patch", "post", "delete"),
        document=True,
        created=("put", "patch", "post"),
    ),
    "MetaView": _ops("A resource's meta entity", methods=("get", "put", "patch"), created=()),
    "VersionCollectionView": _ops(
        "Versions (map id -> version)", read=[*READ, SORT], methods=("get", "post", "patch", "delete"), created=()
    ),
    "VersionView": _ops(
        "A version: its document (or metadata with $details)",
        read=READ,
        methods=("get", "put", "patch", "delete"),
        document=True,
    ),
}


def describe(*view_modules) -> None:
    """Decorate each view class named in OPERATIONS, from whichever of the modules defines it."""
    for name, decorate in OPERATIONS.items():
        decorate(next(getattr(m, name) for m in view_modules if hasattr(m, name)))
