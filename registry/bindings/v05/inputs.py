"""The 0.5-wip binding's reading of a resource or version write: metadata from `Registry-*` headers, the document
from the body (docs/api-contract.md section 5)."""

from __future__ import annotations

from functools import partial

from ...domain.attributes import COMMON, SERVER_OWNED, V10_NAMES
from ...domain.errors import Problem
from ...domain.model import ResourceType
from ...http.requests import header_input, parse_epoch, query_epoch
from ...services.inputs import VersionInput
from .binding import CORE

# a header's name (lower case) -> the store's name of the attribute it carries (`createdby` -> `createdBy`); other
# names are read as they are (`specversion` among them: the registry's attribute, not an entity's)
KNOWN_ATTRIBUTES = {name.lower(): name for name in (*COMMON, *SERVER_OWNED) if name != "specVersion"}
# what the server owns, ignored when a client sends it back (`epoch` is the expected one, `version` the version's id)
IGNORED_HEADER_ATTRIBUTES = set(SERVER_OWNED) - {"epoch", "version", "specVersion"}


def version_input(request, rt: ResourceType) -> VersionInput:
    """Metadata from `Registry-*` headers (empty value = remove) and the document from the body
    (registry/http/requests.header_input)."""
    translate = partial(_attributes, request)
    return header_input(request, CORE, map_name="tags", uri_name=rt.uri_attribute, translate=translate)


def _attributes(request, headers: dict) -> VersionInput:
    """The services' input of the `Registry-*` headers' attributes: the store's names are the 0.5-wip binding's
    (`createdby` read as `createdBy`), those of xRegistry 1.0 refused."""
    inp = VersionInput()
    for name, value in headers.items():
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
            inp.resource_id = value
        elif canonical == "version":
            inp.version_id = value
        elif canonical == "epoch":
            inp.epoch = parse_epoch(value, "Registry-epoch") if value else None
        else:
            inp.attributes[canonical] = value
    query = query_epoch(request)
    if query is not None:
        inp.epoch = query
    return inp
