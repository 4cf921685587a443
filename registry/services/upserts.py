"""Writes that create what they need and writes of several entities at once, each whole or not at all.

xRegistry 1.0 creates the parents a write needs (core/spec.md "Implicit Creation of Parent Entities": a group with
no attributes, `groups.ensure_parents`; a resource with the version written), writes maps of groups, resources and versions as one request,
and sets a resource's `meta` with its versions; these services hold those rules, the bindings only translate their
bodies into the services' input (`ResourceWrite`, `VersionInput`). Every function runs in one transaction, so a
map's entity that is refused rolls back the whole request; the maps are iterables, read one entry at a time, so a
binding's translation of an entry (and its refusal) comes after the writes of the entries before it. A write of one
resource or version may give its input as `Read`, the binding's reading of the request: called once the parents
exist, so a missing group is created (and a refusal to create it answered) before the body is read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from django.db import transaction

from ..domain.attributes import Attributes
from ..models import Group, Resource, Version
from .address import EntityAddress
from .context import WriteContext
from .epochs import parse_epoch
from .groups import ensure_parents, put_group
from .inputs import VersionInput
from .meta import set_resource_meta
from .resources import InputOf, create_resource, create_version, put_resource, put_version

VersionWrites = Iterable[tuple[str, VersionInput | InputOf]]
T = TypeVar("T")
# a binding's reading of its request, called once the parents of the entity it writes exist
Read = Callable[[], T]


@dataclass
class ResourceWrite:
    """A resource as one write gives it: a map of its versions (each created or updated, in order), or the input
    of its default version; and its `meta` attributes (`epoch` among them: the meta's expected epoch)."""

    versions: VersionWrites | None = None
    data: VersionInput | InputOf | None = None
    meta: Attributes | None = None


def resource_exists(address: EntityAddress) -> bool:
    return Resource.objects.filter(
        group__group_type=address.group_type,
        group__gid=address.gid,
        resource_type=address.rtype,
        rid=address.rid,
    ).exists()


@transaction.atomic
def put_version_creating(
    *, ctx: WriteContext, address: EntityAddress, data: Read[VersionInput | InputOf]
) -> tuple[bool, bool]:
    """PUT of a version that creates its resource, and its group, when missing. Returns (the resource was created,
    the version was created)."""
    address.need("version")
    ensure_parents(ctx=ctx, address=address)
    return _put_version_creating(ctx, address, data())


def _put_version_creating(ctx: WriteContext, address: EntityAddress, data: VersionInput | InputOf) -> tuple[bool, bool]:
    if not resource_exists(address):
        create_resource(ctx=ctx, address=address.resource_address, data=data(None, None) if callable(data) else data)
        return True, True
    _resource, _version, created = put_version(ctx=ctx, address=address, data=data)
    return False, created


@transaction.atomic
def add_version(*, ctx: WriteContext, address: EntityAddress, data: Read[VersionInput]) -> Version:
    """POST of a new version to a resource, creating the resource (with this version), and its group, when
    missing."""
    address.need("resource")
    ensure_parents(ctx=ctx, address=address)
    inp = data()
    if not resource_exists(address):
        latest = create_resource(ctx=ctx, address=address, data=inp).latest
        assert latest is not None  # (made with its first version)
        return latest
    _resource, version = create_version(ctx=ctx, address=address, data=inp)
    return version


def _put_versions(ctx: WriteContext, address: EntityAddress, versions: VersionWrites) -> bool:
    created = False
    for vid, data in versions:
        created = _put_version_creating(ctx, address.version(vid), data)[0] or created
    return created


@transaction.atomic
def put_versions(
    *, ctx: WriteContext, address: EntityAddress, versions: VersionWrites, default_version: str | None = None
) -> bool:
    """A map of versions of one resource, each created or updated; a missing group or resource is created (the
    resource with the first). `default_version`: then made the resource's sticky default version. True when this
    write created the resource."""
    address.need("resource")
    ensure_parents(ctx=ctx, address=address)
    created = _put_versions(ctx, address, versions)
    if default_version:
        set_resource_meta(
            ctx=ctx, address=address, meta={"defaultversionid": default_version, "defaultversionsticky": True}
        )
    return created


@transaction.atomic
def put_resource_with_meta(
    *, ctx: WriteContext, address: EntityAddress, data: ResourceWrite | Read[ResourceWrite]
) -> bool:
    """A resource's versions (or its default version) and then its `meta`, the group and the resource created
    when missing. True when this write created the resource."""
    address.need("resource")
    ensure_parents(ctx=ctx, address=address)
    write = data() if callable(data) else data
    if write.versions is not None:
        created = _put_versions(ctx, address, write.versions)
    else:
        assert write.data is not None  # (a ResourceWrite gives its versions or its default version)
        _resource, _version, created = put_resource(ctx=ctx, address=address, data=write.data)
    if write.meta:
        meta = dict(write.meta)
        meta_epoch = parse_epoch(meta.pop("epoch", None), "meta.epoch")
        set_resource_meta(ctx=ctx, address=address, meta=meta, announced=created, expected_epoch=meta_epoch)
    return created


@transaction.atomic
def put_resources(*, ctx: WriteContext, address: EntityAddress, resources: Iterable[tuple[str, ResourceWrite]]) -> None:
    """A map of resources of one type in one group (created when missing), each with its versions and `meta`."""
    address.need("resources")
    ensure_parents(ctx=ctx, address=address)
    for rid, data in resources:
        put_resource_with_meta(ctx=ctx, address=address.resource(address.rtype, rid), data=data)


@transaction.atomic
def put_resource_maps(
    *, ctx: WriteContext, address: EntityAddress, maps: Iterable[tuple[str, Iterable[tuple[str, ResourceWrite]]]]
) -> None:
    """Maps of resources of several types in one group (resource type -> its map of resources), all or none."""
    address.need("group")
    for rtype, resources in maps:
        put_resources(ctx=ctx, address=address.resource(rtype), resources=resources)


@dataclass
class GroupWrite:
    """A group as one write gives it: its attributes as a function of the stored ones (None when it does not exist
    yet: services.put_group's `merge`, a PUT's or a PATCH's), the epoch it expects, and the resources its body nests
    (each resource's address and write)."""

    merge: Callable[[Attributes | None], Attributes]
    expected_epoch: int | None = None
    resources: Iterable[tuple[EntityAddress, ResourceWrite]] = ()


@transaction.atomic
def put_group_with_resources(*, ctx: WriteContext, address: EntityAddress, data: GroupWrite) -> tuple[Group, bool]:
    """PUT or PATCH of a group, then the resources its body nests. Returns (group, created)."""
    group, created = put_group(ctx=ctx, address=address, merge=data.merge, expected_epoch=data.expected_epoch)
    for resource_address, resource in data.resources:
        put_resource_with_meta(ctx=ctx, address=resource_address, data=resource)
    return group, created


@transaction.atomic
def put_groups(*, ctx: WriteContext, address: EntityAddress, groups: Iterable[tuple[str, GroupWrite]]) -> None:
    """A map of groups of one type, each created or updated with the resources it nests."""
    address.need("groups")
    for gid, group in groups:
        put_group_with_resources(ctx=ctx, address=EntityAddress(address.group_type, gid), data=group)
