"""What a client sent for a resource or version write, independent of how it was sent (headers, body, ?meta)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..domain.attributes import Attributes
from ..domain.errors import Problem
from ..domain.json_text import json_document_problem, strict_loads
from ..domain.model import ResourceType

UNSET = object()
SHARED = ("id", "name", "description", "tags", "docs")


@dataclass
class VersionInput:
    """document: bytes, or None when the request carries no document (metadata-only change).

    attributes: metadata given by the client; a None value removes the attribute.
    resource_uri: a RESOURCEURI, None to remove it, UNSET when not given.
    version_id / epoch / resource_id: what the client said they are (checked, never stored blindly).
    referenced_documents: the documents this one refers to by name, resolved by the writer (the Confluent API's
        references, deepest first); the type's validator may read them (VersionCheck), nothing stores them.
    history: an import's version made together with its resource (or registered in the Confluent API's IMPORT
        mode): stored as given, checked alone and not against the resource's other versions (CONTRACT 18).
    """

    document: bytes | None = None
    media_type: str | None = None
    attributes: Attributes = field(default_factory=dict)
    resource_uri: object = UNSET
    version_id: str | None = None
    epoch: int | None = None
    resource_id: str | None = None
    # a new version starts from the latest version's attributes; without `inherit_descriptions` (xRegistry 1.0,
    # whose versions each have their own) not from its name, description, docs and tags
    inherit_descriptions: bool = True
    referenced_documents: tuple[bytes, ...] = ()
    history: bool = False


DESCRIPTIVE = ("name", "description", "docs", "tags")


def inherited(latest_attributes: Attributes, inp: VersionInput) -> Attributes:
    """The attributes a new version inherits from the latest one."""
    if inp.inherit_descriptions:
        return latest_attributes
    return {k: v for k, v in latest_attributes.items() if k not in DESCRIPTIVE}


def patched(stored: Attributes | None, changes: Attributes) -> Attributes:
    """A PATCH's attributes: the stored ones with the changes over them, a None among the changes removing one."""
    return {k: v for k, v in {**(stored or {}), **changes}.items() if v is not None}


def absorb_document(rt: ResourceType, inp: VersionInput, rid: str | None) -> None:
    """For resource types whose JSON document carries metadata (definitions): move the shared attributes
    out of the document into `inp.attributes` (400 where a header disagrees) and copy the document
    attributes (`format`) into the metadata. The stored document keeps only the rest."""
    if inp.document is None or not (rt.shared_attributes or rt.document_attributes):
        return
    if inp.document.strip() == b"":
        return
    problem = json_document_problem(bytes(inp.document))
    if problem:
        raise Problem("malformed-json", f"the {rt.singular} document: {problem}")
    doc = strict_loads(bytes(inp.document).decode("utf-8-sig"))
    if not isinstance(doc, dict):
        raise Problem("invalid-document", f"the {rt.singular} document must be a JSON object")
    if rt.shared_attributes and "epoch" in doc:
        # docs/api-contract.md section 2: an "epoch" in a body is the expected current epoch, never stored content
        body_epoch = doc.pop("epoch")
        if inp.epoch is not None and body_epoch != inp.epoch:
            raise Problem(
                "bad-request", f"epoch {body_epoch!r} in the document and the expected epoch {inp.epoch} disagree"
            )
        inp.epoch = body_epoch
    if rt.shared_attributes:
        for key in SHARED:
            if key not in doc:
                continue
            value = doc.pop(key)
            if key == "id":
                expected = inp.resource_id or rid
                if expected is None:
                    inp.resource_id = value
                elif value != expected:
                    raise Problem(
                        "invalid-attribute",
                        f"id {value!r} in the document does not match the {rt.singular} id {expected!r}",
                    )
                continue
            if key in inp.attributes and inp.attributes[key] != value:
                raise Problem("invalid-attribute", f"{key}: the Registry-{key} header and the document disagree")
            inp.attributes[key] = value
    for key in rt.document_attributes:
        if key in doc:
            if key in inp.attributes and inp.attributes[key] is not None and inp.attributes[key] != doc[key]:
                raise Problem("invalid-attribute", f"{key}: the Registry-{key} header and the document disagree")
            inp.attributes[key] = doc[key]
    inp.document = json.dumps(doc, ensure_ascii=False).encode()
    inp.media_type = inp.media_type or "application/json"
