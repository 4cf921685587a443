"""Deletes of groups, resources and versions: one, a listed set (all or none), or all; each answers the last
state.

Every function runs in one transaction that also writes the `deleted` change events (docs/api-contract.md
section 9); a synced entity is deleted only by its sync (the origin guard).
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from ..domain.attributes import Attributes
from ..domain.errors import Problem, not_found
from ..domain.model import registry_model
from ..domain.references import within
from ..models import Group, Resource, Version
from ..store import audit
from .address import EntityAddress
from .context import WriteContext
from .epochs import check_epoch
from .events import emit_deleted
from .groups import lock_group
from .references import CHECKED, check_unreferenced
from .registry_state import touch_registry
from .resources import get_group, guard, lock_resource, resolve_types
from .versions import refresh_latest


def _delete_resource(ctx: WriteContext, resource: Resource) -> None:
    guard(ctx, resource.group, resource)
    # what was there, as reads showed the resource: its default version's attributes and document, and its own
    latest = resource.latest
    shown = audit.state(latest, f"{resource.path}/versions/{latest.vid}") if latest is not None else {}
    shown.update(audit.state(resource, resource.path))
    resource.latest = None
    resource.save(update_fields=["latest"])
    _remove(ctx, resource, resource.path, shown)


def _remove(ctx: WriteContext, entity: Group | Resource | Version, path: str, shown: Attributes | None = None) -> None:
    """Delete a row and announce it; the caller keeps the object, with its primary key, as the last state. `shown`:
    what was there, for the audit trail, when it is more than the entity's own attributes."""
    if isinstance(entity, Group):  # its events name the owners it had (looked up once, before it goes)
        ctx.saw_group(entity)
    gone = audit.changes(shown if shown is not None else audit.state(entity, path), None)  # what was there
    pk = entity.pk
    entity.delete()
    entity.pk = pk
    emit_deleted(ctx, path, epoch=entity.__dict__.get("epoch"), changes=gone)  # (the epoch when loaded: no query)


@transaction.atomic
def delete_resource(
    *,
    ctx: WriteContext,
    address: EntityAddress,
    expected_epoch: int | None = None,
    expected_meta_epoch: int | None = None,
    force: bool | str = False,
) -> tuple[Resource, Version | None]:
    """DELETE .../RESOURCEs/rID: the resource with all versions; returns its last state. `expected_epoch` is
    the latest version's, `expected_meta_epoch` the resource's own (its 1.0 `meta` entity's)."""
    address.need("resource")
    plural, gid, rplural, rid = address.group_type, address.gid, address.rtype, address.rid
    epoch = expected_epoch
    resolve_types(plural, rplural)
    group = get_group(plural, gid)
    resource = lock_resource(group, rplural, rid)
    ctx.authorize("resource", "delete", resource.path)
    latest = resource.latest
    if latest is not None:
        check_epoch(f"{resource.path}/versions/{latest.vid}", latest, epoch)
    check_epoch(f"{resource.path}/meta", resource, expected_meta_epoch)
    check_unreferenced(ctx, [resource.path], force)
    _delete_resource(ctx, resource)
    return resource, latest


@transaction.atomic
def delete_resources(
    *,
    ctx: WriteContext,
    address: EntityAddress,
    items: Sequence[object] | None,
    force: bool | str = False,
    missing_ok: bool = False,
) -> list[tuple[Resource, Version | None]]:
    """DELETE .../RESOURCEs: the listed resources (all or none) or, without a list, all of them. Each item is
    `{"id", "epoch"?, "meta_epoch"?}` (the latest version's epoch, the resource's own); `missing_ok`: an id that
    names no resource is skipped (xRegistry 1.0), not a 404."""
    address.need("resources")
    plural, gid, rplural = address.group_type, address.gid, address.rtype
    resolve_types(plural, rplural)
    group = get_group(plural, gid)
    if items is None:
        resources = list(
            Resource.objects.select_for_update(of=("self",))
            .filter(group=group, resource_type=rplural)
            .select_related("latest")
            .order_by("rid")
        )
    else:
        resources = []
        for index, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("id"), str):
                raise Problem("bad-request", f"[{index}]: each entry must be an object with a string id")
            if missing_ok and not Resource.objects.filter(group=group, resource_type=rplural, rid=item["id"]).exists():
                continue
            resource = lock_resource(group, rplural, item["id"])
            if resource.latest is not None:
                check_epoch(f"{resource.path}/versions/{resource.latest.vid}", resource.latest, item.get("epoch"))
            check_epoch(f"{resource.path}/meta", resource, item.get("meta_epoch"))
            resources.append(resource)
    for resource in resources:
        resource.group = group
        ctx.authorize("resource", "delete", resource.path)
    check_unreferenced(ctx, [r.path for r in resources], force)
    out = []
    for resource in resources:
        resource.group = group
        latest = resource.latest
        _delete_resource(ctx, resource)
        out.append((resource, latest))
    return out


@transaction.atomic
def delete_version(
    *, ctx: WriteContext, address: EntityAddress, expected_epoch: int | None = None, force: bool | str = False
) -> tuple[Resource, Version]:
    """DELETE .../versions/V: one version; the greatest remaining becomes latest; the only one is 400."""
    address.need("version")
    deleted = _delete_versions(
        ctx,
        address.resource_address,
        [{"version": address.version_id, "epoch": expected_epoch}],
        single=True,
        force=force,
    )
    return deleted[0]


@transaction.atomic
def delete_versions(
    *,
    ctx: WriteContext,
    address: EntityAddress,
    items: Sequence[object] | None,
    force: bool | str = False,
    missing_ok: bool = False,
) -> list[tuple[Resource, Version]]:
    """DELETE .../versions (`address` names the resource): listed versions (all or none; all of them is 400)
    or all but the latest."""
    return _delete_versions(ctx, address, items, single=False, force=force, missing_ok=missing_ok)


def _delete_versions(
    ctx: WriteContext,
    address: EntityAddress,
    items: Sequence[object] | None,
    *,
    single: bool,
    force: bool | str,
    missing_ok: bool = False,
) -> list[tuple[Resource, Version]]:
    address.need("resource")
    plural, gid, rplural, rid = address.group_type, address.gid, address.rtype, address.rid
    resolve_types(plural, rplural)
    group = get_group(plural, gid)
    resource = lock_resource(group, rplural, rid)
    guard(ctx, group, resource)
    versions = {v.vid: v for v in Version.objects.select_for_update().filter(resource=resource)}
    if items is None:
        chosen = [v for v in versions.values() if v.pk != resource.latest_id]
    else:
        chosen = []
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                raise Problem("bad-request", f"[{index}]: each entry must be an object with a version")
            vid = item.get("version", item.get("id"))
            if "version" in item and "id" in item and item["id"] != item["version"]:
                raise Problem("bad-request", f"[{index}]: id and version differ")
            if not isinstance(vid, str):
                raise Problem("bad-request", f"[{index}]: version must be a string")
            version = versions.get(vid)
            if version is None:
                if missing_ok:
                    continue
                raise not_found(f"{resource.path}/versions/{vid}")
            check_epoch(f"{resource.path}/versions/{vid}", version, item.get("epoch"))
            chosen.append(version)
        if len({v.pk for v in chosen}) >= len(versions):
            what = "the only version" if single else "every version"
            raise Problem(
                "bad-request",
                f"{{subject}}: deleting {what} of a resource is not allowed; delete the resource instead",
                subject=resource.path,
            )
    for version in chosen:
        ctx.authorize("version", "delete", f"{resource.path}/versions/{version.vid}")
    check_unreferenced(ctx, [f"{resource.path}/versions/{v.vid}" for v in chosen], force)
    out = []
    for version in chosen:
        path = f"{resource.path}/versions/{version.vid}"
        if resource.latest_id == version.pk:
            resource.latest = None
            resource.save(update_fields=["latest"])
        _remove(ctx, version, path)
        out.append((resource, version))
    refresh_latest(resource)
    return out


@transaction.atomic
def delete_group(
    *, ctx: WriteContext, address: EntityAddress, expected_epoch: int | None = None, force: bool | str = False
) -> Group:
    """DELETE /GROUPs/gID: removes it and everything beneath; returns the last state (unsaved copy)."""
    address.need("group")
    group = lock_group(address.group_type, address.gid)
    ctx.guard(group.path, group)
    ctx.authorize("group", "delete", group.path)
    check_epoch(group.path, group, expected_epoch)
    check_unreferenced(ctx, [group.path], force)
    _delete_group(ctx, group)
    return group


def _delete_group(ctx: WriteContext, group: Group) -> None:
    Resource.objects.filter(group=group).update(latest=None)
    _remove(ctx, group, group.path)
    touch_registry(ctx)


@transaction.atomic
def delete_groups(
    *,
    ctx: WriteContext,
    address: EntityAddress,
    items: Sequence[object] | None,
    force: bool | str = False,
    missing_ok: bool = False,
) -> list[Group]:
    """DELETE /GROUPs: the listed groups (all or none) or, without a list, every group of the type; `missing_ok`:
    an id that names no group is skipped (xRegistry 1.0), not a 404."""
    address.need("groups")
    plural = address.group_type
    registry_model[plural]
    if items is None:
        groups = list(Group.objects.select_for_update().filter(group_type=plural).order_by("gid"))
    else:
        groups = []
        for index, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("id"), str):
                raise Problem("bad-request", f"[{index}]: each entry must be an object with a string id")
            if missing_ok and not Group.objects.filter(group_type=plural, gid=item["id"]).exists():
                continue
            group = lock_group(plural, item["id"])
            check_epoch(group.path, group, item.get("epoch"))
            groups.append(group)
    for group in groups:
        ctx.guard(group.path, group)
        ctx.authorize("group", "delete", group.path)
    check_unreferenced(ctx, [g.path for g in groups], force)
    for group in groups:
        _delete_group(ctx, group)
    return groups


@transaction.atomic
def delete_entities(*, ctx: WriteContext, paths: list[str], force: bool | str = False) -> list[str]:
    """Delete a set of groups, resources and versions (entity paths) all or none, as one request: references
    among them do not count (a whole reference set goes), references from outside refuse it (409) unless
    `force`. What lies beneath another listed entity goes with it. Returns the paths deleted."""
    parsed = []
    for path in dict.fromkeys(paths):
        address = EntityAddress.parse(path)
        if address.kind not in ("group", "resource", "version"):
            raise Problem("bad-request", "{subject}: not the path of a group, a resource or a version", subject=path)
        parsed.append((path, address))
    check_unreferenced(ctx, [p for p, _a in parsed], force)
    kept = [(p, a) for p, a in parsed if not any(o != p and within(p, o) for o, _a in parsed)]
    for _path, address in sorted(kept, key=lambda item: -len(item[1].path.split("/"))):  # versions first
        if address.kind == "version":
            delete_version(ctx=ctx, address=address, force=CHECKED)
        elif address.kind == "resource":
            delete_resource(ctx=ctx, address=address, force=CHECKED)
        else:
            delete_group(ctx=ctx, address=address, force=CHECKED)
    return [p for p, _a in kept]
