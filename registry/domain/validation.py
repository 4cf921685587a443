"""The hook through which apps validate what is written: the contexts they receive and the error they raise.

The engine calls a group type's `validate(GroupCheck)` and a resource type's `validate(VersionCheck)`
inside the write's transaction, before anything is saved. A hook raises `Invalid` with every problem it
found; each message starts with the attribute path (`metadata.attributes.type.required must not be false`),
and a hook that knows which attribute an error is about says so with `at(attribute, rest)` (a Finding), so that
each binding names the attribute in its own words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import Finding, at  # noqa: F401 - hooks build their errors with these


class Invalid(Exception):
    """Validation failed; `errors` lists every problem, each naming its attribute. `status` 400 or 409."""

    def __init__(
        self,
        errors: list[str] | str,
        *,
        status: int = 400,
        kind: str = "invalid-attribute",
        details: list[dict] | None = None,
    ):
        self.errors = [errors] if isinstance(errors, str) else list(errors)
        self.status = status
        self.kind = kind
        self.details = details or []
        super().__init__("; ".join(self.errors))


class Unresolved(Invalid):
    """A reference names no stored entity (a version's referenced documents, registry.domain.referenced_documents): the
    write is refused as invalid (400); a document import tries it again after the document's other entities, which
    may hold what it references."""


@dataclass
class GroupCheck:
    """What a group type's validator sees: the group's attributes after the write."""

    group_type: str
    group_id: str
    attributes: dict[str, Any]
    base_url: str
    stored_attributes: dict | None = None  # the group's attributes before the write (None: it is created)
    resource_counts: Callable[[], dict[str, int]] = field(default=lambda: {})  # plural -> count of the group
    group_exists: Callable[[str, str], bool] = field(default=lambda plural, gid: False)
    dangling_references: bool = False  # a reference to no entity is accepted (WriteContext.dangling_references)
    # the group is created or replaced through a binding that follows the 0.5-wip seed (the 0.5 binding, the Message
    # Catalog API): the attributes the seed makes REQUIRED must be given (CONTRACT 18; other doors: the 1.0 binding,
    # document imports, the admin, may leave them out)
    seed_binding: bool = False


@dataclass
class VersionCheck:
    """What a resource type's validator sees: one version about to be written.

    document: the bytes (None with a RESOURCEURI); media_type: as sent.
    attributes: the version's metadata after the write (inherited ones included), `format` among them.
    resource_attributes: the resource-level attributes; group_attributes: the group's.
    previous_documents: earlier versions of the resource, oldest first, as (format, bytes) for compatibility
        checks (a sequence, not to be changed); excludes the version being replaced by an update.
    previous_formats: the formats of those versions alone (each once), without reading their documents: for a
        check that needs no comparison (level `none`); None when only previous_documents can say.
    is_update: the version exists and is being changed in place.
    referenced_documents: documents the version's document refers to by name, deepest first: resolved by the
        writer (VersionInput.referenced_documents), else by the resolvers apps register for the type
        (registry.domain.referenced_documents) from the version's attributes; () when neither gave any.
    history: the version is an import's history (made together with its resource, CONTRACT 18): it is checked
        alone, not against the resource's other versions (previous_documents is not to be read).
    checked_level: set by the hook: the compatibility level the version was found to meet against the earlier
        versions (stored as `Version.compatibility_check`); None when it compared nothing (no level applied, a
        format it does not check, a document kept elsewhere, history).
    """

    group_type: str
    group_id: str
    resource_type: str
    resource_id: str
    version_id: str
    document: bytes | None
    media_type: str | None
    resource_uri: str | None
    attributes: dict[str, Any]
    resource_attributes: dict[str, Any]
    group_attributes: dict[str, Any]
    base_url: str
    previous_documents: Callable[[], Sequence[tuple[str | None, bytes]]] = field(default=lambda: [])
    previous_formats: Callable[[], list[str | None]] | None = None
    is_update: bool = False
    group_exists: Callable[[str, str], bool] = field(default=lambda plural, gid: False)
    lookup: Callable[[str], dict | None] = field(default=lambda path: None)  # API path -> latest attributes
    dangling_references: bool = False  # a reference to no entity is accepted (WriteContext.dangling_references)
    resolves: Callable[[object], bool] = field(default=lambda reference: True)  # an in-registry reference names one
    stored_document: bytes | None = None  # an update: the version's document before this write
    referenced_documents: tuple[bytes, ...] = ()
    history: bool = False
    checked_level: str | None = None
