"""The 0.5-wip binding's reading of a resource or version write: metadata from `Registry-*` headers, the document
from the body (docs/api-contract.md section 5)."""

from __future__ import annotations

from ...domain.attributes import V10_NAMES
from ...domain.errors import Problem
from ...domain.model import ResourceType
from ...http.headers import prefixed_headers
from ...http.requests import body_bytes, parse_epoch, query_epoch
from ...services.inputs import UNSET, VersionInput

KNOWN_ATTRIBUTES = {
    name.lower(): name
    for name in (
        "id",
        "name",
        "description",
        "docs",
        "version",
        "epoch",
        "self",
        "createdBy",
        "createdOn",
        "modifiedBy",
        "modifiedOn",
        "format",
        "compatibility",
    )
}
IGNORED_HEADER_ATTRIBUTES = {
    "self",
    "createdBy",
    "createdOn",
    "modifiedBy",
    "modifiedOn",
    "versionsURL",
    "versionsCount",
}


def version_input(request, rt: ResourceType) -> VersionInput:
    """Metadata from `Registry-*` headers (empty value = remove) and the document from the body."""
    inp = VersionInput()
    uri_key = rt.uri_attribute.lower()
    headers, tags = prefixed_headers(request, "registry", "tags")
    for name, value in headers.items():
        if name == uri_key:
            inp.resource_uri = value or None
            continue
        canonical = KNOWN_ATTRIBUTES.get(name, name)
        if canonical in IGNORED_HEADER_ATTRIBUTES:
            continue
        if canonical in V10_NAMES or canonical.startswith("labels-"):
            instead = (
                "Registry-tags-KEY"
                if canonical.startswith("labels")
                else (f"Registry-{V10_NAMES[canonical]}" if V10_NAMES[canonical] else None)
            )
            raise Problem(
                "invalid-attribute",
                f"Registry-{name} names an attribute of xRegistry 1.0 (the /registry "
                "binding), not of the 0.5-wip binding" + (f"; here it is {instead}" if instead else ""),
            )
        if canonical == "id":
            inp.resource_id = value or None
        elif canonical == "version":
            inp.version_id = value or None
        elif canonical == "epoch":
            inp.epoch = parse_epoch(value, "Registry-epoch") if value else None
        else:
            inp.attributes[canonical] = value if value != "" else None
    if tags is not None:
        inp.attributes["tags"] = tags
    query = query_epoch(request)
    if query is not None:
        inp.epoch = query
    raw = body_bytes(request)
    if inp.resource_uri not in (UNSET, None) and raw:
        raise Problem("bad-request", f"Registry-{rt.uri_attribute} is given, so the body must be empty")
    metadata_only = not raw and (inp.attributes or inp.resource_uri is not UNSET or inp.version_id or inp.resource_id)
    # an empty body with Registry-* headers changes metadata only; an empty body alone erases the content
    inp.document = None if metadata_only else raw
    inp.media_type = request.META.get("CONTENT_TYPE") or None
    return inp
