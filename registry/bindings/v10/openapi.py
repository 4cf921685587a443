"""The 1.0 binding's OpenAPI declarations, written in the kernel's vocabulary (registry/http/openapi.py) and attached
to its views in urls.py (`describe`).

Bodies and answers are xRegistry 1.0 entities (JSON objects) or, for a document resource without
`$details`, the document itself; failures are 1.0 problem documents (`application/problem+json`).
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes

from ...http import openapi
from ...http.openapi import DOCUMENT, OBJECT, flag, operation, problem_responses

TAG = ["xregistry-1.0"]
# what each flag means; an operation's are those its view declares (flags.LEVELS)
MEANINGS = {
    f.name: f
    for f in (
        flag("inline", "comma-separated paths to inline (`*`, `messagegroups.messages`, `model`, `capabilities`)"),
        flag("doc", "document view: relative links, resources without their default version's attributes"),
        flag("epoch", "the entity's current epoch (400 mismatched_epoch when it differs)", OpenApiTypes.INT),
        flag("filter", "ATTR=VALUE in dot notation, `*` wildcards"),
        flag("limit", "page size (pages are linked by `Link: <...>;rel=next;count=N`)", OpenApiTypes.INT),
        flag("setdefaultversionid", "make this version the sticky default"),
        flag("collections", "only the nested collection maps, everything below inlined (registry and groups)"),
        flag("sort", "ATTR[=asc|desc]: the whole collection in that order, then paged"),
        flag("binary", "inlined documents as `<RESOURCE>base64`, their bytes untouched, whatever their media type"),
        flag("specversion", "the spec version asked for: 1.0-rc4 (1.0 and its earlier candidates are taken as it)"),
        flag(
            "ignore", "comma-separated attributes of the body a write leaves out (`epoch`, `defaultversionid`, ... `*`)"
        ),
        flag(
            "owners",
            "an import's groups' owners: `keep` (the default; a registry admin's import makes the teams they name "
            "that do not exist) or `drop` (left out: a copy into another organisation)",
        ),
        flag(
            "force",
            "an import's references that name nothing: `true` takes them as written (without it: 400 naming each, "
            "nothing imported)",
        ),
    )
}
WORDS = {
    400: "bad request (1.0 error type)",
    404: "not_found",
    409: "conflict",
    415: "the body is not of the media type this request takes",
}
ERRORS = problem_responses(400, 401, 403, 404, 409, 415, words=WORDS)
WRITE_ERRORS = problem_responses(400, 401, 403, 404, 409, 413, 415, words=WORDS)  # a body past its limit: 413


def _ops(view, summary: str, *, document: bool = False, created=("put", "patch"), write_errors=WRITE_ERRORS) -> dict:
    """Operations of one view, a method each it answers: `created` names the methods that answer 201 when they
    create the entity; `write_errors` those of its PUT, PATCH and POST; their query parameters are the flags the view
    declares (flags.LEVELS)."""
    ops = {}
    for method in (m for m in ("get", "put", "patch", "post", "delete") if m in view.http_method_names):
        if not hasattr(view, method):
            continue
        if method == "get" and document:
            found = (200, DOCUMENT, "the document, metadata in xRegistry-* headers (JSON with $details)")
            ops[method] = operation(
                summary, ok=[found, (303, None, "stored elsewhere: Location")], errors=ERRORS, tags=TAG
            )
        elif method == "get":
            ops[method] = operation(summary, ok=[(200, OBJECT, summary)], errors=ERRORS, tags=TAG)
        elif method == "delete":
            ops[method] = operation(
                f"Delete: {summary}", ok=[(204, None, "deleted")], errors=ERRORS, body=OBJECT, tags=TAG
            )
        else:
            shape = DOCUMENT if document and method in ("put", "post") else OBJECT  # the document, or JSON metadata
            ops[method] = operation(
                f"{method.upper()}: {summary}",
                ok=[(status, shape, summary) for status in ((200, 201) if method in created else (200,))],
                errors=write_errors,
                body={"*/*" if shape is DOCUMENT else "application/json": shape},
                tags=TAG,
            )
    return ops


FIXED = {"created": ()}  # a fixed API, or a collection: no write of it creates the entity it addresses
REFUSED = {"created": (), "write_errors": ERRORS}  # a fixed API whose writes are refused before a body is read
OPERATIONS: dict[str, tuple[str, dict]] = {  # view class -> its summary, and how its answers are shaped
    "RootView": ("Registry root (POST: import a 1.0 document)", FIXED),
    "ExportView": ("The registry as a 1.0 document (?doc&inline=*,capabilities,modelsource)", {}),
    "ModelView": ("The model (fixed: writes answer model_error)", REFUSED),
    "ModelSourceView": ("The model source (fixed: writes answer model_error)", REFUSED),
    "CapabilitiesView": ("Capabilities (changes the server does not offer are refused)", FIXED),
    "CapabilitiesOfferedView": ("Capabilities offered", {}),
    "DiscoveryView": ("Where the xRegistry 1.0 binding is, and the spec versions served", {}),
    "GroupCollectionView": ("Groups (map id -> group)", FIXED),
    "GroupView": ("A group", {}),
    "ResourceCollectionView": ("Resources (map id -> resource)", FIXED),
    "ResourceView": (
        "A resource: its default version's document (or metadata with $details)",
        {"document": True, "created": ("put", "patch", "post")},
    ),
    "MetaView": ("A resource's meta entity", FIXED),
    "VersionCollectionView": ("Versions (map id -> version)", FIXED),
    "VersionView": ("A version: its document (or metadata with $details)", {"document": True}),
}


def describe(*view_modules) -> None:
    """Attach each view class's operations, from whichever of the modules defines it."""
    for name, (summary, shape) in OPERATIONS.items():
        view = next(getattr(m, name) for m in view_modules if hasattr(m, name))
        openapi.describe(view, _ops(view, summary, **shape), MEANINGS)
