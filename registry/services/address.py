"""Where a write goes: the typed address of a group, a resource or a version, or of one of their collections.

Every service takes one `EntityAddress` instead of the positional `plural, gid, rplural, rid, vid` of the
HTTP path: `EntityAddress("schemagroups", "g", "schemas", "s", "2")` is the version `/schemagroups/g/schemas/s/
versions/2`; `EntityAddress("schemagroups")` the collection of schema groups. Built by the bindings from their
URLs, by the admin from a model instance (`of`) and by bulk deletes from a path (`parse`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..domain.errors import Problem
from ..models import Group, Resource, Version


@dataclass(frozen=True, slots=True)
class EntityAddress:
    group_type: str
    group_id: str | None = None
    resource_type: str | None = None
    resource_id: str | None = None
    version_id: str | None = None

    def __post_init__(self) -> None:
        parts = (self.group_type, self.group_id, self.resource_type, self.resource_id, self.version_id)
        seen_gap = False
        for part in parts:
            if part is None:
                seen_gap = True
            elif seen_gap:
                raise ValueError(f"an address names its parents first: {parts}")

    @classmethod
    def parse(cls, path: str) -> EntityAddress:
        """`/GROUPS[/g[/RESOURCES[/r[/versions/v]]]]`; 400 for anything else (a versions collection too)."""
        segments = [s for s in path.split("/") if s]
        if (
            not segments
            or len(segments) == 5
            or len(segments) > 6
            or (len(segments) == 6 and segments[4] != "versions")
        ):
            raise Problem("bad-request", "{subject}: not the path of a group, a resource or a version", subject=path)
        ids = segments[:4] + segments[5:]
        return cls(*ids)

    @classmethod
    def of(cls, entity: Group | Resource | Version) -> EntityAddress:
        """The address of a stored group, resource or version (model instances)."""
        if isinstance(entity, Version):
            return cls.of(entity.resource).version(entity.vid)
        if isinstance(entity, Resource):
            return cls(entity.group.group_type, entity.group.gid, entity.resource_type, entity.rid)
        return cls(entity.group_type, entity.gid)

    # the parts an address of a given kind has (services call `need` first): typed as present
    @property
    def gid(self) -> str:
        return _present(self.group_id, self, "a group id")

    @property
    def rtype(self) -> str:
        return _present(self.resource_type, self, "a resource type")

    @property
    def rid(self) -> str:
        return _present(self.resource_id, self, "a resource id")

    def resource(self, resource_type: str, resource_id: str | None = None) -> EntityAddress:
        return EntityAddress(self.group_type, self.group_id, resource_type, resource_id)

    def version(self, version_id: str | None) -> EntityAddress:
        return EntityAddress(self.group_type, self.group_id, self.resource_type, self.resource_id, version_id)

    @property
    def resource_address(self) -> EntityAddress:
        """The resource this address is of or below (the version's resource)."""
        return self.version(None)

    @property
    def kind(self) -> str:
        """What the address names: "groups", "group", "resources", "resource", "version" (or "versions")."""
        if self.version_id is not None:
            return "version"
        if self.resource_id is not None:
            return "resource"
        if self.resource_type is not None:
            return "resources"
        return "group" if self.group_id is not None else "groups"

    def need(self, *kinds: str) -> None:
        """A service's guard against a caller's mistake (not the client's: the bindings build addresses)."""
        if self.kind not in kinds:
            raise ValueError(f"{self.path} names {self.kind}, not {' or '.join(kinds)}")

    @property
    def path(self) -> str:
        parts = [self.group_type, self.group_id, self.resource_type, self.resource_id]
        path = "/" + "/".join(p for p in parts if p is not None)
        return path if self.version_id is None else f"{path}/versions/{self.version_id}"


def _present(part: str | None, address: EntityAddress, what: str) -> str:
    if part is None:
        raise ValueError(f"{address.path} has no {what}")  # a caller's mistake: the bindings build addresses
    return part
