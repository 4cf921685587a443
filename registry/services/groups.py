"""Writes of groups: create and replace (deletes are in deletions.py). Each runs in one transaction with its
events."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from django.db import IntegrityError, transaction

from ..access import owners
from ..access.permissions import group_path_of, owners_of_group
from ..domain import extension_attributes
from ..domain.attributes import (
    Attributes,
    Owners,
    check_common,
    check_id,
    group_attribute_names,
    split_attributes,
    stored_attributes,
    text_of,
)
from ..domain.errors import Problem, not_found
from ..domain.model import GroupType, registry_model
from ..domain.validation import GroupCheck, Invalid
from ..models import Group, Resource
from ..store import audit
from ..store.selectors import exists_ignoring_case
from .address import EntityAddress
from .context import WriteContext
from .epochs import check_epoch
from .events import emit_updated
from .integrity import insert_refused
from .registry_state import touch_registry


def group_exists(plural: str, gid: str) -> bool:
    return Group.objects.filter(group_type=plural, gid=gid).exists()


def _validate(
    ctx: WriteContext,
    gt: GroupType,
    gid: str,
    common: Attributes,
    extensions: Attributes,
    existing: Group | None,
    *,
    seed_binding: bool = False,
) -> None:
    # names of extension attributes are checked too: none may differ from one of the type's only by case (`OWNERS`)
    errors = check_common({**common, **extensions}, known=group_attribute_names(gt))
    errors += extension_attributes.errors_of(gt.plural, None, extensions)  # those apps give a meaning to
    if errors:
        raise Problem("invalid-attribute", "{subject}: {errors}", subject=f"/{gt.plural}/{gid}", errors=errors)
    if gt.validate is None:
        return
    attributes = {**{k: v for k, v in common.items() if v is not None}, **extensions}

    def counts() -> dict[str, int]:
        if existing is None:
            return {}
        return {r.plural: Resource.objects.filter(group=existing, resource_type=r.plural).count() for r in gt.resources}

    check = GroupCheck(
        group_type=gt.plural,
        group_id=gid,
        attributes=attributes,
        base_url=ctx.base_url,
        stored_attributes=stored_attributes(existing) if existing is not None else None,
        resource_counts=counts,
        group_exists=group_exists,
        dangling_references=ctx.dangling_references,
        seed_binding=seed_binding,
    )
    try:
        gt.validate(check)
    except Invalid as exc:
        raise Problem(
            exc.kind,
            "{subject}: {errors}",
            subject=f"/{gt.plural}/{gid}",
            errors=exc.errors,
            status=exc.status,
        )


def _body_parts(gt: GroupType, body: Attributes, gid: str | None) -> tuple[Attributes, Attributes]:
    if "id" in body and gid is not None and body["id"] != gid:
        raise Problem("invalid-attribute", f"id {body['id']!r} in the body does not match the URL's id {gid!r}")
    ignore = {r.plural for r in gt.resources}
    ignore |= {f"{r.plural}URL" for r in gt.resources} | {f"{r.plural}Count" for r in gt.resources}
    common, extensions = split_attributes(body, ignore=ignore)
    common.pop("id", None)
    return common, extensions


def _apply(group: Group, common: Attributes, extensions: Attributes) -> None:
    group.name = text_of(common, "name")
    group.description = text_of(common, "description")
    group.tags = common.get("tags") or {}
    group.docs = text_of(common, "docs")
    group.extensions = extensions


def lock_group(plural: str, gid: str) -> Group:
    try:
        return Group.objects.select_for_update().get(group_type=plural, gid=gid)
    except Group.DoesNotExist:
        raise not_found(f"/{plural}/{gid}")


@transaction.atomic
def create_group(*, ctx: WriteContext, address: EntityAddress, data: Attributes, seed_binding: bool = False) -> Group:
    """POST /GROUPs (`address` names the collection): a new group; 409 when the id exists (irrespective of
    case). `seed_binding`: written through a binding that follows the seed (`GroupCheck.seed_binding`)."""
    address.need("groups")
    plural = address.group_type
    gt = registry_model[plural]
    body = data
    gid = body.get("id")
    gid = check_id(gid) if gid is not None else str(uuid.uuid4())
    if exists_ignoring_case(Group.objects.filter(group_type=plural), "gid", gid):
        raise Problem("id-exists", "{subject} already exists", subject=f"/{plural}/{gid}")
    common, extensions = _body_parts(gt, body, None)
    return insert_group(ctx, gt, gid, common, extensions, seed_binding=seed_binding)


def insert_group(
    ctx: WriteContext,
    gt: GroupType,
    gid: str,
    common: Attributes,
    extensions: Attributes,
    *,
    seed_binding: bool = False,
) -> Group:
    """A new group, validated by its type's hook (the id is checked and free: the caller's part)."""
    ctx.authorize("group", "create", f"/{gt.plural}/{gid}", owners=None)
    owners.new_group(ctx, f"/{gt.plural}/{gid}", extensions)
    _validate(ctx, gt, gid, common, extensions, None, seed_binding=seed_binding)
    return _insert(ctx, gt, gid, common, extensions)


def _insert(ctx: WriteContext, gt: GroupType, gid: str, common: Attributes, extensions: Attributes) -> Group:
    group = Group(
        group_type=gt.plural,
        gid=gid,
        epoch=1,
        created_by=ctx.user,
        created_on=ctx.now,
        modified_by=ctx.user,
        modified_on=ctx.now,
        origin=ctx.origin,
    )
    _apply(group, common, extensions)
    try:
        with transaction.atomic():
            group.save()
    except IntegrityError as exc:
        raise insert_refused(exc, constraint="group_id_unique_ci", path=f"/{gt.plural}/{gid}")
    owners.remember(ctx, group)
    touch_registry(ctx)
    changes = audit.changes(None, audit.state(group, group.path))
    emit_updated(ctx, group.path, group.modified_on, created=True, epochs=(None, group.epoch), changes=changes)
    return group


@transaction.atomic
def put_group(
    *,
    ctx: WriteContext,
    address: EntityAddress,
    data: Attributes | None = None,
    expected_epoch: int | None = None,
    merge: Callable[[Attributes | None], Attributes] | None = None,
    seed_binding: bool = False,
) -> tuple[Group, bool]:
    """PUT /GROUPs/gID: replace the attributes (missing ones removed) or create. Returns (group, created).

    `merge` (a PATCH): computes the new attributes from the stored ones (None when the group does not exist yet)
    while the group's row is locked, so concurrent PATCHes each see the other's change (read-merge-write in one
    locked step); `data` is then not given. `seed_binding`: written through a binding that follows the seed
    (`GroupCheck.seed_binding`)."""
    address.need("group")
    plural, gid, epoch = address.group_type, address.gid, expected_epoch
    gt = registry_model[plural]
    check_id(gid)
    group = Group.objects.select_for_update().filter(group_type=plural, gid=gid).first()
    body = merge(stored_attributes(group) if group is not None else None) if merge is not None else data or {}
    common, extensions = _body_parts(gt, body, gid)
    body_epoch = body.get("epoch")
    if group is None:
        # the same id committed since the read above is not "another case": the insert's refusal below handles it
        if exists_ignoring_case(Group.objects.filter(group_type=plural).exclude(gid=gid), "gid", gid):
            raise Problem(
                "id-exists", "{subject} differs only by case from an existing group", subject=f"/{plural}/{gid}"
            )
        if epoch is not None:
            raise not_found(f"/{plural}/{gid}")
        try:
            with transaction.atomic():
                return insert_group(ctx, gt, gid, common, extensions, seed_binding=seed_binding), True
        except Problem as problem:  # another PUT created it meanwhile: this one replaces what that one wrote
            group = Group.objects.select_for_update().filter(group_type=plural, gid=gid).first()
            if problem.kind != "id-exists" or group is None:
                raise
            if merge is not None:
                common, extensions = _body_parts(gt, merge(stored_attributes(group)), gid)
    ctx.guard(group.path, group)
    check_epoch(group.path, group, epoch)
    check_epoch(group.path, group, body_epoch)
    _change(ctx, gt, group, common, extensions, seed_binding=seed_binding)
    return group, False


def update_group_attributes(ctx: WriteContext, group: Group, common: Attributes, extensions: Attributes) -> bool:
    """Set a locked group's attributes as an import does; True when something changed (epoch + 1, event)."""
    gt = registry_model[group.group_type]
    new_tags = common.get("tags") or {}
    same = (
        group.name == common.get("name")
        and group.description == common.get("description")
        and group.tags == new_tags
        and group.docs == common.get("docs")
        and group.extensions == extensions
    )
    if same:
        return False
    ctx.guard(group.path, group)
    _change(ctx, gt, group, common, extensions)
    return True


@transaction.atomic
def set_group_extensions(
    *,
    ctx: WriteContext,
    address: EntityAddress,
    changes: Attributes | Callable[[Attributes], Attributes],
    authorized_as: tuple[str, str] | None = None,
) -> Group:
    """Change some of a group's extension attributes, the others kept (a value None removes one), under the group's
    row lock: epoch + 1 and its `updated` event when something changed. `changes` may be a function of the stored
    extension attributes (called under the lock: a read-merge-write that concurrent writers do not undo).

    The write is the group's update (its owners' where it has some); with `authorized_as` (kind, store path) it is
    authorized as the update of that entity of the group instead: an app's setting of an entity that does not exist
    yet, which the group keeps for it (the Confluent API's settings of a subject that has no schema yet:
    confluent/attributes.py). Owners are not changed this way."""
    address.need("group")
    group = lock_group(address.group_type, address.gid)
    if callable(changes):
        changes = changes(dict(group.extensions))
    if "owners" in changes:
        raise ValueError("a group's owners are changed by put_group or update_group_attributes")
    extensions = dict(group.extensions)
    for name, value in changes.items():
        if value is None:
            extensions.pop(name, None)
        else:
            extensions[name] = value
    if extensions == group.extensions:
        return group
    ctx.guard(group.path, group)
    if authorized_as is not None:
        kind, path = authorized_as
        if group_path_of(path) != group.path:
            raise ValueError(f"{path} is not in {group.path}")
        ctx.authorize(kind, "update", path, owners=owners_of_group(group))
    common = {k: getattr(group, k) for k in ("name", "description", "docs") if getattr(group, k) is not None}
    if group.tags:
        common["tags"] = group.tags
    _change(ctx, registry_model[group.group_type], group, common, extensions, authorized=authorized_as is not None)
    return group


def replace_owners(ctx: WriteContext, group: Group, new_owners: Owners) -> None:
    """A locked group's owners replaced when a team they name is renamed (registry/services/teams.py, which
    authorized the change): epoch + 1, its `updated` event and audit row. The origin guard does not apply: a group's
    owners are this registry's own, never synced (sync/services.py leaves them as they are)."""
    common = {k: getattr(group, k) for k in ("name", "description", "docs") if getattr(group, k) is not None}
    if group.tags:
        common["tags"] = group.tags
    extensions = {**group.extensions, owners.ATTRIBUTE: new_owners}
    _change(ctx, registry_model[group.group_type], group, common, extensions, authorized=True)


def _change(
    ctx: WriteContext,
    gt: GroupType,
    group: Group,
    common: Attributes,
    extensions: Attributes,
    *,
    authorized: bool = False,
    seed_binding: bool = False,
) -> None:
    """A stored group's new attributes, validated: epoch + 1, modified by and on, its `updated` event. `authorized`:
    the caller authorized the write (set_group_extensions, which leaves the owners as they are; replace_owners, which
    carries a team's new name into them)."""
    if not authorized:
        owners.changed_group(ctx, group, extensions)
    _validate(ctx, gt, group.gid, common, extensions, group, seed_binding=seed_binding)
    before = audit.state(group, group.path)
    _apply(group, common, extensions)
    group.epoch += 1
    group.modified_by = ctx.user
    group.modified_on = ctx.now
    group.save()
    owners.remember(ctx, group)
    changes = audit.changes(before, audit.state(group, group.path))
    emit_updated(ctx, group.path, group.modified_on, epochs=(group.epoch - 1, group.epoch), changes=changes)


@transaction.atomic
def ensure_parents(*, ctx: WriteContext, address: EntityAddress) -> None:
    """Create the group a write below it needs when it does not exist yet (xRegistry 1.0 creates missing parents
    implicitly: core/spec.md "Implicit Creation of Parent Entities"), with no attributes; a resource is created by
    the write of its first version."""
    if address.group_id is None or address.kind == "group":
        return
    if not group_exists(address.group_type, address.gid):
        try:
            with transaction.atomic():
                put_group(ctx=ctx, address=EntityAddress(address.group_type, address.gid), data={})
        except Problem as problem:
            if problem.kind != "id-exists":  # created meanwhile by a concurrent write: it exists, as needed
                raise
