"""Writes of resources and versions: create, update in place, new version, metadata, retention (deletes are in
deletions.py).

Every function runs in one transaction that also writes the change events (docs/api-contract.md section 9).
Epochs: a version's epoch is 1 when created and grows by 1 with each change of that version.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

from django.db import IntegrityError, connection, transaction

from ..compiled_reads import row_of, row_with
from ..domain import extension_attributes
from ..domain.attributes import Attributes, check_id
from ..domain.errors import Problem, not_found
from ..domain.model import GroupType, ResourceType, registry_model
from ..models import Group, Resource, Version
from ..sent_together import parts_collected
from ..store import audit
from ..store.selectors import exists_ignoring_case
from .address import EntityAddress
from .context import WriteContext
from .epochs import check_epoch
from .events import emit_updated
from .inputs import VersionInput, absorb_document, inherited
from .integrity import insert_refused
from .versions import (
    apply_input,
    apply_retention,
    latest_after_insert,
    new_version,
    not_older_than_latest,
    prepared_version,
    refresh_latest,
    resource_attributes,
    set_resource_attributes,
    set_version_attributes,
    validate_version,
    version_attributes,
    write_new_version,
)

# a PATCH's input: computed from the stored resource and version (None when they do not exist) under their locks
InputOf = Callable[[Resource | None, Version | None], VersionInput]


def _resource_parts(address: EntityAddress) -> tuple[str, str, str, str]:
    """The parts of a resource's (or a version's) address."""
    return address.group_type, address.gid, address.rtype, address.rid


def resolve_types(plural: str, rplural: str) -> tuple[GroupType, ResourceType]:
    gt = registry_model[plural]
    return gt, gt.resource_type(rplural)


def get_group(plural: str, gid: str) -> Group:
    """The group a write below it needs, kept from being deleted until this transaction ends.

    On PostgreSQL the row is locked FOR KEY SHARE: a concurrent delete of the group (FOR UPDATE) waits for this
    write, or this write waits and then finds no group (404), instead of failing on the foreign key at commit
    (a 500). Writes below the same group share the lock and do not wait for each other. Django's ORM has no
    FOR KEY SHARE, hence the one raw statement; SQLite serializes writers anyway."""
    if connection.vendor == "postgresql" and connection.in_atomic_block:
        found = row_of(Group, "group_type = %s AND gid = %s", [plural, gid], lock="FOR KEY SHARE")
        if found is not None:
            return found
        raise not_found(f"/{plural}/{gid}")
    try:
        return Group.objects.get(group_type=plural, gid=gid)
    except Group.DoesNotExist:
        raise not_found(f"/{plural}/{gid}")


def lock_resource(group: Group, rplural: str, rid: str) -> Resource:
    """The resource, its row locked FOR UPDATE until this transaction ends (writes of its versions wait for each other:
    what they read after it, in statements of their own, is what the previous holder committed); 404 when there is
    none. Its latest version is read after the lock (`resource.latest`): a version joined in the lock's statement
    would be read in that statement's snapshot, from before the previous holder committed."""
    return _locked(group, rplural, rid, "")[0]


def lock_for_new_version(group: Group, rplural: str, rid: str) -> tuple[Resource, bool]:
    """`lock_resource`, and whether the numbers after its counter are free as version ids (no version's id is a
    number above it): on PostgreSQL read with the lock from the row's `highest_numeric_vid` (registry migration 0013,
    too high at worst), which is the row its previous holder committed, so that the next id needs no query of its
    own (`versions.next_version_id`); False elsewhere (the numbers are looked up)."""
    if connection.vendor != "postgresql":
        return lock_resource(group, rplural, rid), False
    resource, (free,) = _locked(group, rplural, rid, ", COALESCE(t.highest_numeric_vid <= t.version_counter, true)")
    return resource, bool(free)


def _locked(group: Group, rplural: str, rid: str, more: str) -> tuple[Resource, list[object]]:
    resource, *values = row_with(
        Resource, more, "group_id = %s AND resource_type = %s AND rid = %s", [group.pk, rplural, rid], lock="FOR UPDATE"
    )
    if resource is None:
        raise not_found(f"{group.path}/{rplural}/{rid}")
    resource.group = group
    return resource, values


def guard(ctx: WriteContext, group: Group, resource: Resource | None = None) -> None:
    """Synced groups and resources only change through their sync."""
    path = resource.path if resource is not None else group.path
    ctx.guard(path, group, *([resource] if resource is not None else []))


def insert_resource(ctx: WriteContext, group: Group, rt: ResourceType, rid: str, inp: VersionInput) -> Resource:
    ctx.authorize("resource", "create", f"{group.path}/{rt.plural}/{rid}")
    if exists_ignoring_case(Resource.objects.filter(group=group, resource_type=rt.plural), "rid", rid):
        raise Problem("id-exists", "{subject} already exists", subject=f"{group.path}/{rt.plural}/{rid}")
    guard(ctx, group)
    resource = _saved_new_resource(ctx, group, rt, rid, {})
    version = new_version(ctx, resource, rt, inp, {}, inp.version_id)
    resource.latest = version
    resource.save(update_fields=["latest"])
    created = audit.changes(None, audit.state(resource, resource.path))
    emit_updated(ctx, resource.path, version.modified_on, created=True, epochs=(None, resource.epoch), changes=created)
    path = f"{resource.path}/versions/{version.vid}"
    created = audit.changes(None, audit.state(version, path))
    emit_updated(ctx, path, version.modified_on, created=True, epochs=(None, version.epoch), changes=created)
    return resource


def _saved_new_resource(ctx: WriteContext, group: Group, rt: ResourceType, rid: str, attrs: Attributes) -> Resource:
    """A new resource row, written by `ctx`'s user; a concurrent insert of the same id (or one differing only by
    case) is the kernel's 409, not the database's error."""
    resource = Resource(
        group=group,
        resource_type=rt.plural,
        rid=rid,
        created_by=ctx.user,
        created_on=ctx.now,
        modified_by=ctx.user,
        modified_on=ctx.now,
        origin=ctx.origin,
    )
    set_resource_attributes(resource, attrs)
    try:
        with transaction.atomic():
            resource.save()
    except IntegrityError as exc:
        raise insert_refused(exc, constraint="resource_id_unique_ci", path=f"{group.path}/{rt.plural}/{rid}")
    return resource


def _check_input_ids(inp: VersionInput, rid: str, vid: str | None = None) -> None:
    if inp.resource_id is not None and inp.resource_id != rid:
        raise Problem("invalid-attribute", f"id {inp.resource_id!r} does not match the URL's id {rid!r}")
    if vid is not None and inp.version_id is not None and inp.version_id != vid:
        raise Problem("conflict", f"version {inp.version_id!r} does not match the version {vid!r}")


@transaction.atomic
def create_resource(*, ctx: WriteContext, address: EntityAddress, data: VersionInput) -> Resource:
    """POST /GROUPs/gID/RESOURCEs: a resource with its first version; 409 when the id exists. The id comes from
    the address (an import's, the admin's) or the input, else a new UUID."""
    address.need("resources", "resource")
    plural, gid, rplural, rid, inp = address.group_type, address.gid, address.rtype, address.resource_id, data
    _gt, rt = resolve_types(plural, rplural)
    group = get_group(plural, gid)
    absorb_document(rt, inp, rid)
    rid = rid or inp.resource_id
    rid = check_id(rid) if rid is not None else str(uuid.uuid4())
    _check_input_ids(inp, rid)
    return insert_resource(ctx, group, rt, rid, inp)


@transaction.atomic
def put_resource(
    *, ctx: WriteContext, address: EntityAddress, data: VersionInput | InputOf
) -> tuple[Resource, Version, bool]:
    """PUT /GROUPs/gID/RESOURCEs/rID: update the latest version in place, or create the resource.

    `data` may be a function of the stored resource and version (None, None when the resource does not exist) that
    gives the input: a PATCH, computed while both rows are locked."""
    address.need("resource")
    plural, gid, rplural, rid = _resource_parts(address)
    _gt, rt = resolve_types(plural, rplural)
    group = get_group(plural, gid)
    check_id(rid)
    resource = row_of(
        Resource, "group_id = %s AND resource_type = %s AND rid = %s", [group.pk, rplural, rid], lock="FOR UPDATE"
    )
    version = (
        Version.objects.select_for_update().filter(pk=resource.latest_id).first()
        if resource and resource.latest_id
        else None
    )
    inp = data(resource, version) if callable(data) else data
    _check_input_ids(inp, rid)
    absorb_document(rt, inp, rid)
    if resource is None:
        if inp.epoch is not None:
            raise not_found(f"{group.path}/{rplural}/{rid}")
        try:
            with transaction.atomic():
                resource = insert_resource(ctx, group, rt, rid, inp)
                return resource, _latest(resource), True
        except Problem as problem:  # another PUT created it meanwhile: this one updates what that one wrote
            resource = row_of(
                Resource,
                "group_id = %s AND resource_type = %s AND rid = %s",
                [group.pk, rplural, rid],
                lock="FOR UPDATE",
            )
            if problem.kind != "id-exists" or resource is None:
                raise
    resource.group = group
    version = _update_version(ctx, resource, rt, _latest(resource), inp, resource.path)
    return resource, version, False


def _latest(resource: Resource) -> Version:
    """A stored resource's latest version: every write keeps one (a resource is created with its first version and
    its last version cannot be deleted)."""
    latest = resource.latest
    if latest is None:
        raise Problem("not-found", "{subject} has no version", subject=resource.path)
    return latest


def _update_version(
    ctx: WriteContext, resource: Resource, rt: ResourceType, version: Version, inp: VersionInput, event_path: str
) -> Version:
    guard(ctx, resource.group, resource)
    version = Version.objects.select_for_update().get(pk=version.pk)
    path = f"{resource.path}/versions/{version.vid}"
    ctx.authorize("version", "update", path)
    check_epoch(path, version, inp.epoch)
    if inp.version_id is not None and inp.version_id != version.vid:
        raise Problem("conflict", f"version {inp.version_id!r} does not match the version {version.vid!r}")
    stored = bytes(version.content) if version.content is not None else None
    before = audit.state(version, path)
    attrs = apply_input(version, rt, inp, version_attributes(version), replace_document=True)
    validate_version(ctx, resource, rt, version, attrs, is_update=True, stored_document=stored)
    version.epoch += 1
    version.modified_by = ctx.user
    version.modified_on = ctx.now
    version.save()
    changes = audit.changes(before, audit.state(version, path))
    emit_updated(ctx, event_path, version.modified_on, epochs=(version.epoch - 1, version.epoch), changes=changes)
    return version


def _new_version_base(
    ctx: WriteContext, group: Group, resource: Resource, rt: ResourceType, rid: str, inp: VersionInput
) -> Attributes:
    """What a new version of a resource starts from, after the checks every new version passes (origin guard,
    ids, the document read, the expected epoch): the latest version's attributes."""
    guard(ctx, group, resource)
    _check_input_ids(inp, rid)
    absorb_document(rt, inp, rid)
    latest = resource.latest
    if latest is not None:
        check_epoch(f"{resource.path}/versions/{latest.vid}", latest, inp.epoch)
    return inherited(version_attributes(latest), inp) if latest is not None else {}


@transaction.atomic
def create_version(*, ctx: WriteContext, address: EntityAddress, data: VersionInput) -> tuple[Resource, Version]:
    """POST /GROUPs/gID/RESOURCEs/rID (`address` names the resource): a new version inheriting the latest's
    attributes; then retention."""
    address.need("resource")
    plural, gid, rplural, rid, inp = *_resource_parts(address), data
    _gt, rt = resolve_types(plural, rplural)
    group = get_group(plural, gid)
    ctx.saw_group(group)  # its owners and id, read with the group: no query of their own
    resource, numbers_free = lock_for_new_version(group, rplural, rid)
    if resource.latest_id is not None:  # (read after the lock: `lock_resource`)
        resource.latest = row_of(Version, "id = %s", [resource.latest_id])
    ctx.authorize("version", "create", f"{resource.path}/versions")
    not_older_than_latest(ctx, resource)
    base = _new_version_base(ctx, group, resource, rt, rid, inp)
    version = prepared_version(ctx, resource, rt, inp, base, inp.version_id, numbers_free=numbers_free)
    path = f"{resource.path}/versions/{version.vid}"
    with parts_collected() as parts:  # its event, audit row and change count, written with the version
        created = audit.changes(None, audit.state(version, path))
        emit_updated(ctx, path, version.modified_on, created=True, epochs=(None, version.epoch), changes=created)
    try:
        # no savepoint: the lock keeps the checked id free; should the insert still meet the unique constraint, the
        # 409 rolls the whole write back
        write_new_version(resource, version, parts)
    except IntegrityError as exc:
        raise insert_refused(exc, constraint="version_id_unique_ci", path=path)
    if apply_retention(ctx, resource, rt):
        refresh_latest(resource)
    return resource, version


def check_new_version(*, ctx: WriteContext, address: EntityAddress, data: VersionInput) -> tuple[Resource, Version]:
    """A dry run of `create_version`: the same reading of the input and the same checks (the resource type's
    validation hook included), raising the same Problem a real POST would, and writing nothing. Returns the
    resource and the new version, unsaved (its attributes merged with the latest version's as a POST would)."""
    address.need("resource")
    plural, gid, rplural, rid, inp = *_resource_parts(address), data
    _gt, rt = resolve_types(plural, rplural)
    group = get_group(plural, gid)
    resource = Resource.objects.filter(group=group, resource_type=rplural, rid=rid).select_related("latest").first()
    if resource is None:
        raise not_found(f"{group.path}/{rplural}/{rid}")
    resource.group = group
    base = _new_version_base(ctx, group, resource, rt, rid, inp)  # a synced schema's dry run is refused too
    return resource, prepared_version(ctx, resource, rt, inp, base, inp.version_id)


@transaction.atomic
def put_version(
    *, ctx: WriteContext, address: EntityAddress, data: VersionInput | InputOf
) -> tuple[Resource, Version, bool]:
    """PUT .../versions/V: update that version in place, or create it. `data` may be a function of the stored
    resource and version (see put_resource), called while they are locked."""
    address.need("version")
    plural, gid, rplural, rid = _resource_parts(address)
    vid = address.version_id
    _gt, rt = resolve_types(plural, rplural)
    group = get_group(plural, gid)
    resource = lock_resource(group, rplural, rid)
    guard(ctx, group, resource)
    version = Version.objects.select_for_update().filter(resource=resource, vid=vid).first()
    inp = data(resource, version) if callable(data) else data
    _check_input_ids(inp, rid, vid)
    absorb_document(rt, inp, rid)
    if version is None:
        if inp.epoch is not None:
            raise not_found(f"{resource.path}/versions/{vid}")
        ctx.authorize("version", "create", f"{resource.path}/versions/{vid}")
        not_older_than_latest(ctx, resource)
        base = inherited(version_attributes(resource.latest), inp) if resource.latest else {}
        version = new_version(ctx, resource, rt, inp, base, vid)
        path = f"{resource.path}/versions/{vid}"
        created = audit.changes(None, audit.state(version, path))
        emit_updated(ctx, path, version.modified_on, created=True, epochs=(None, version.epoch), changes=created)
        latest_after_insert(resource, version)
        if apply_retention(ctx, resource, rt):
            refresh_latest(resource)
        return resource, version, True
    version = _update_version(ctx, resource, rt, version, inp, f"{resource.path}/versions/{vid}")
    return resource, version, False


@transaction.atomic
def put_meta(
    *, ctx: WriteContext, address: EntityAddress, data: Attributes, expected_epoch: int | None = None
) -> tuple[Resource, Version]:
    """PUT ...?meta: replace a version's metadata (missing attributes removed), no new version, epoch + 1. A
    resource's address means its latest version."""
    address.need("resource", "version")
    plural, gid, rplural, rid = _resource_parts(address)
    vid, body, epoch = address.version_id, data, expected_epoch
    _gt, rt = resolve_types(plural, rplural)
    group = get_group(plural, gid)
    resource = lock_resource(group, rplural, rid)
    guard(ctx, group, resource)
    version = resource.latest if vid is None else Version.objects.filter(resource=resource, vid=vid).first()
    if version is None:
        raise not_found(f"{resource.path}/versions/{vid}")
    version = Version.objects.select_for_update().get(pk=version.pk)
    path = f"{resource.path}/versions/{version.vid}"
    ctx.authorize("version", "update", path)
    if "id" in body and body["id"] != rid:
        raise Problem("invalid-attribute", f"id {body['id']!r} does not match the URL's id {rid!r}")
    if "version" in body and body["version"] != version.vid:
        raise Problem(
            "conflict", f"{{subject}}: version {body['version']!r} differs from {version.vid!r}", subject=path
        )
    for given in (epoch, body.get("epoch")):
        check_epoch(path, version, given)
    before = audit.state(version, path)
    ignored = {
        "id",
        "version",
        "epoch",
        "self",
        "createdBy",
        "createdOn",
        "modifiedBy",
        "modifiedOn",
        "versionsURL",
        "versionsCount",
        "versions",
        rt.singular,
        rt.base64_attribute,
    }
    attrs = {k: v for k, v in body.items() if k not in ignored and v is not None}
    uri = attrs.pop(rt.uri_attribute, None)
    if uri is not None and not isinstance(uri, str):
        raise Problem("invalid-attribute", f"{rt.uri_attribute} must be a string")
    if uri:
        version.resource_uri = uri
        version.content = None
        version.media_type = None
    elif version.resource_uri:
        version.resource_uri = None
        version.content = b""
    set_version_attributes(version, attrs)
    validate_version(ctx, resource, rt, version, attrs, is_update=True)
    version.epoch += 1
    version.modified_by = ctx.user
    version.modified_on = ctx.now
    version.save()
    emit_updated(
        ctx,
        resource.path if vid is None else path,
        version.modified_on,
        epochs=(version.epoch - 1, version.epoch),
        changes=audit.changes(before, audit.state(version, path)),
    )
    return resource, version


def replace_resource(
    *, ctx: WriteContext, group: Group, rt: ResourceType, rid: str, attrs: Attributes
) -> tuple[Resource, str]:
    """A registry document's resource (its versions come after, through `versions.replace_version`): created
    without versions, or its attributes made exactly `attrs`. Returns the resource and "created", "updated" or
    "unchanged". Synced groups and resources change only through their sync; a sync only what it brought."""
    resource = Resource.objects.select_for_update().filter(group=group, resource_type=rt.plural, rid=rid).first()
    path = f"{group.path}/{rt.plural}/{rid}"
    errors = extension_attributes.errors_of(group.group_type, rt.plural, attrs)  # those apps give a meaning to
    if errors:
        raise Problem("invalid-attribute", "{subject}: " + "; ".join(errors), subject=path, errors=errors)
    if resource is None:
        same_type = Resource.objects.filter(group=group, resource_type=rt.plural)
        if exists_ignoring_case(same_type.exclude(rid=rid), "rid", rid):  # the same id: the insert refuses it
            raise Problem("id-exists", f"{{subject}} differs only by case from an existing {rt.singular}", subject=path)
        guard(ctx, group)
        ctx.authorize("resource", "create", path)
        resource = _saved_new_resource(ctx, group, rt, rid, attrs)
        created = audit.changes(None, audit.state(resource, path))
        emit_updated(ctx, path, resource.modified_on, created=True, epochs=(None, resource.epoch), changes=created)
        return resource, "created"
    resource.group = group
    if ctx.origin:  # a sync skips what it did not bring, changed or not (it never takes it over)
        guard(ctx, group, resource)
    if resource_attributes(resource) == attrs:
        return resource, "unchanged"
    guard(ctx, group, resource)
    ctx.authorize("resource", "update", path)
    before = audit.state(resource, path)
    set_resource_attributes(resource, attrs)
    resource.modified_by, resource.modified_on = ctx.user, ctx.now
    resource.save()
    changes = audit.changes(before, audit.state(resource, path))
    # its own attributes: its epoch stays
    emit_updated(ctx, path, resource.modified_on, epochs=(resource.epoch, resource.epoch), changes=changes)
    return resource, "updated"
