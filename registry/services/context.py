"""Who writes and where: the context every service receives."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from types import EllipsisType
from typing import TYPE_CHECKING

from django.conf import settings
from django.utils import timezone

from ..access.permissions import AnonymousActor, authorize, group_path_of, owners_of_group, stored_group
from ..domain.attributes import Owners
from ..domain.errors import Problem

if TYPE_CHECKING:
    from django.http import HttpRequest

    from ..models import Group


class OriginRefused(Problem):
    """The origin guard's refusal (409): a local write to a synced entity, or a sync's write to an entity it did not
    bring. A sync skips the entity and reports it (sync/services.py)."""


@dataclass
class WriteContext:
    """The acting user's name and the registry's base URL (event `source`, `self` links).

    origin: set by a sync from another registry; entities it creates record it, entities that carry an origin can
    only be changed by a write with the same origin (local edits are refused), and a write with an origin changes
    only entities that carry it (a sync never takes over what it did not create).

    actor: the signed-in user a write is made for (a request's, a sync source's owner); every write checks the
    permission it needs (registry.access.permissions) for this user. None: the system itself (a command), trusted.

    door: where the write came in, as the audit trail records it: a binding's name for HTTP writes
    ("cloudevents-registry-0.5", "xregistry-1.0", "schemaregistry", "messagecatalog", "confluent"), or "admin",
    "asyncapi", "import" (the import commands), "spark", "sync"; empty: the binding's name.

    via: which one of its door the write came through, as the audit trail records it beside the door: a sync's
    source name.
    """

    user: str | None = None
    actor: object = None
    base_url: str = ""
    now: datetime = field(default_factory=timezone.now)
    origin: str | None = None
    binding: str = "0.5"  # the binding the write came through: "0.5" or "xregistry-1.0" (validators may differ)
    emitted: int = 0  # change events this context has written
    changes: int = 0  # its committed transactions that wrote events: each moved the change marker by one
    # a reference that names no entity is accepted, not refused: a document import (its report lists them as
    # warnings), so that an export of a registry holding dangling references (after a forced delete) imports
    dangling_references: bool = False
    door: str = ""
    via: str = ""
    # the owners of the groups this context's writes touched (group path -> owners, None: no such group), so that
    # an import's thousands of writes look each group's owners up once
    owners_seen: dict[str, Owners | None] = field(default_factory=dict, repr=False)
    # the row ids of the same groups (group path -> id, None: no such group), which name them in the audit trail
    group_pks: dict[str, int | None] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self.base_url:
            self.base_url = getattr(settings, "REGISTRY_BASE_URL", "http://127.0.0.1:8000")
        self.base_url = self.base_url.rstrip("/")

    def guard(self, path: str, *entities: object) -> None:
        """Refuse a write to an entity synced from elsewhere unless this write is that sync, and a sync's write to an
        entity it did not bring (`OriginRefused`)."""
        for entity in entities:
            self.guard_origin(path, getattr(entity, "origin", None))

    def guard_origin(self, path: str, origin: str | None) -> None:
        """`guard` for an entity known by its origin only (the Spark import reads origins, not rows)."""
        if (origin or None) == (self.origin or None):
            return
        if origin:
            raise OriginRefused(
                "conflict",
                f"{{subject}} is synced from {origin}; change it there (local edits are refused)",
                subject=path,
            )
        # a sync never takes over what exists here without its origin (issue 37): made here, or by another door
        raise OriginRefused(
            "conflict",
            f"{{subject}} exists here and was not brought by the sync from {self.origin}: a sync changes only what it "
            "created",
            subject=path,
        )

    def authorize(self, kind: str, operation: str, path: str, *, owners: Owners | None | EllipsisType = ...) -> None:
        """403 unless this write's actor may do `operation` on the `kind` at `path` (registry.access.permissions). The
        group's owners are looked up once per context (`owners`: the caller knows them)."""
        if self.actor is None:
            return
        if owners is ...:
            owners = self.group_owners(path)
        authorize(self.actor, kind, operation, path, owners=owners)

    def group_owners(self, path: str) -> Owners | None:
        """The owners of the group of the entity at `path` as this context last saw them (looked up once; None: no
        such group)."""
        group_path = group_path_of(path)
        if group_path not in self.owners_seen:
            self._look_up(group_path)
        return self.owners_seen[group_path]

    def group_pk(self, path: str) -> int | None:
        """The row id of the group of the entity at `path` as this context last saw it (looked up once, with its
        owners; None: no such group)."""
        group_path = group_path_of(path)
        if group_path not in self.group_pks:
            self._look_up(group_path)
        return self.group_pks[group_path]

    def saw_group(self, group: Group) -> None:
        """`group`'s row, read or written by this context: its owners and id as they now are, for the writes that
        follow (their authorization, events and audit rows look nothing up)."""
        self.owners_seen[group.path] = owners_of_group(group)
        self.group_pks[group.path] = group.pk

    def _look_up(self, group_path: str) -> None:
        # what is known already stays (a group's owners are kept before it is deleted, for its last events)
        pk, owners = stored_group(group_path) or (None, None)
        self.owners_seen.setdefault(group_path, owners)
        self.group_pks.setdefault(group_path, pk)

    @property
    def audit_door(self) -> str:
        return self.door or self.binding

    @classmethod
    def from_request(cls, request: HttpRequest, *, door: str = "") -> WriteContext:
        """The context of a request's writes; the admin's requests are the door "admin"."""
        signed_in = bool(request.user and request.user.is_authenticated)
        user = request.user.get_username() if signed_in else None
        match = getattr(request, "resolver_match", None)
        if not door and match is not None and "admin" in (match.namespaces or ()):
            door = "admin"
        return cls(
            user=user or None,
            actor=request.user if signed_in else AnonymousActor,
            base_url=request.build_absolute_uri(settings.REGISTRY_CORE_PATH).rstrip("/"),
            door=door,
        )
