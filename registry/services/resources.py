"""Writes of resources and versions: create, update in place, new version, metadata, retention (deletes are in
deletions.py).

Every function runs in one transaction that also writes the change events (docs/api-contract.md section 9).
Epochs: a version's epoch is 1 when created and grows by 1 with each change of that version.
"""
from __future__ import annotations

import uuid

from django.db import IntegrityError, connection, transaction

from ..attributes import check_common, check_id, unstorable, version_sort_key
from ..documents.formats import is_yaml_media_type, yaml_document_problem
from ..errors import Problem, epoch_mismatch, not_found
from ..json_text import json_document_problem
from ..model import GroupType, ResourceType, registry_model
from ..models import Group, Resource, Version
from ..representations import is_json_media_type
from ..selectors import entity_attributes, exists_ignoring_case
from ..validation import Invalid, VersionCheck
from .context import WriteContext
from .events import emit_deleted, emit_updated
from .groups import group_exists
from .inputs import UNSET, VersionInput, absorb_document

COMMON_COLUMNS = ("name", "description", "tags", "docs")


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
        found = list(Group.objects.raw(
            f"SELECT * FROM {connection.ops.quote_name(Group._meta.db_table)} "
            "WHERE group_type = %s AND gid = %s FOR KEY SHARE", [plural, gid]))
        if found:
            return found[0]
        raise not_found(f"/{plural}/{gid}")
    try:
        return Group.objects.get(group_type=plural, gid=gid)
    except Group.DoesNotExist:
        raise not_found(f"/{plural}/{gid}")


def lock_resource(group: Group, rplural: str, rid: str) -> Resource:
    resource = (Resource.objects.select_for_update().filter(group=group, resource_type=rplural, rid=rid).first())
    if resource is None:
        raise not_found(f"{group.path}/{rplural}/{rid}")
    resource.group = group
    return resource


def guard(ctx: WriteContext, group: Group, resource: Resource | None = None) -> None:
    """Synced groups and resources only change through their sync."""
    path = resource.path if resource is not None else group.path
    ctx.guard(path, group, *([resource] if resource is not None else []))


def version_attributes(version: Version) -> dict:
    """A version's own metadata as one dict (common columns and extensions)."""
    attrs = {k: getattr(version, k) for k in COMMON_COLUMNS if getattr(version, k) not in (None, {})}
    attrs.update(version.extensions)
    return attrs


def resource_attributes(resource: Resource) -> dict:
    attrs = {k: getattr(resource, k) for k in COMMON_COLUMNS if getattr(resource, k) not in (None, {})}
    attrs.update(resource.extensions)
    return attrs


def _set_attributes(version: Version, attrs: dict) -> None:
    version.name = attrs.get("name")
    version.description = attrs.get("description")
    version.tags = attrs.get("tags") or {}
    version.docs = attrs.get("docs")
    version.extensions = {k: v for k, v in attrs.items() if k not in COMMON_COLUMNS and v is not None}


def check_epoch(path: str, entity, epoch) -> None:
    if epoch is None:
        return
    if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch != entity.epoch:
        raise epoch_mismatch(path, epoch, entity.epoch)


def _ordered_versions(resource: Resource, *, with_content: bool = False) -> list[Version]:
    """The resource's versions, oldest first; without their documents unless asked (most callers order or
    delete them by id only, and documents are the bulk of a version row)."""
    versions = Version.objects.filter(resource=resource)
    versions = list(versions.only("pk", "vid", "resource_id", "content", "extensions") if with_content
                    else versions.only("pk", "vid", "resource_id"))
    versions.sort(key=lambda v: version_sort_key(v.vid))
    return versions


def _validate(ctx: WriteContext, resource: Resource, rt: ResourceType, version: Version, attrs: dict,
              is_update: bool) -> None:
    errors = check_common(attrs)
    path = f"{resource.path}/versions/{version.vid}"
    problem = unstorable(attrs)
    if problem:
        errors.append(problem)
    if version.content and is_json_media_type(version.media_type):
        # what is stored as JSON is served and exported as JSON: it must parse strictly and be storable
        problem = json_document_problem(bytes(version.content))
        if problem:
            errors.append(f"{problem} (sent as {version.media_type})")
    elif version.content and is_yaml_media_type(version.media_type):
        problem = yaml_document_problem(bytes(version.content))
        if problem:
            errors.append(f"{problem} (sent as {version.media_type})")
    if errors:
        raise Problem("invalid-attribute", f"{path}: " + "; ".join(errors), errors=errors)
    if rt.validate is None:
        return
    r_attrs = resource_attributes(resource)

    def previous():
        out = []
        for v in _ordered_versions(resource, with_content=True):
            if v.pk == version.pk or v.content is None:
                continue
            fmt = v.extensions.get("format") or r_attrs.get("format")
            out.append((fmt, bytes(v.content)))
        return out

    check = VersionCheck(
        group_type=resource.group.group_type, group_id=resource.group.gid, resource_type=rt.plural,
        resource_id=resource.rid, version_id=version.vid,
        document=bytes(version.content) if version.content is not None else None,
        media_type=version.media_type, resource_uri=version.resource_uri,
        attributes={**r_attrs, **attrs}, resource_attributes=r_attrs,
        group_attributes={**resource.group.extensions}, base_url=ctx.base_url,
        previous_documents=previous, is_update=is_update, group_exists=group_exists, lookup=entity_attributes,
        binding=ctx.binding)
    try:
        rt.validate(check)
    except Invalid as exc:
        raise Problem(exc.kind, f"{path}: " + "; ".join(exc.errors), errors=exc.details or exc.errors,
                      status=exc.status)


def merge_attributes(base: dict, inp: VersionInput) -> dict:
    """Base attributes (the latest version's, for a new one) with the input's: an empty or null value removes
    one; ids, epoch and self are not attributes to merge."""
    attrs = dict(base)
    for key, value in inp.attributes.items():
        if key in ("id", "version", "epoch", "self"):
            continue
        if value is None or value == "":
            attrs.pop(key, None)
        else:
            attrs[key] = value
    return attrs


def _apply_input(version: Version, rt: ResourceType, inp: VersionInput, base: dict, *, replace_document: bool) -> dict:
    """Merge the input into base attributes; set document/URI on the version; return the new attributes."""
    attrs = merge_attributes(base, inp)
    if inp.resource_uri is not UNSET:
        version.resource_uri = inp.resource_uri or None
        if inp.resource_uri:
            version.content = None
            version.media_type = None
    uri_given = inp.resource_uri not in (UNSET, None, "")
    if replace_document and inp.document is not None and not (uri_given and not inp.document):
        version.content = inp.document
        version.media_type = inp.media_type or "application/octet-stream"
        if inp.resource_uri is UNSET:
            version.resource_uri = None
    _set_attributes(version, attrs)
    return attrs


def _next_version_id(resource: Resource) -> str:
    existing = {v.lower() for v in Version.objects.filter(resource=resource).values_list("vid", flat=True)}
    counter = resource.version_counter
    while True:
        counter += 1
        if str(counter) not in existing:
            resource.version_counter = counter
            return str(counter)


def _refresh_latest(resource: Resource) -> None:
    """Point the resource at its latest version (the spec's order of version ids)."""
    vids = Version.objects.filter(resource=resource).values_list("pk", "vid")
    latest = max(vids, key=lambda row: version_sort_key(row[1]), default=None)
    latest_pk = latest[0] if latest else None
    if resource.latest_id != latest_pk:
        resource.latest_id = latest_pk
        resource.save(update_fields=["latest"])


def _apply_retention(ctx: WriteContext, resource: Resource, rt: ResourceType) -> bool:
    """Delete the oldest versions beyond the type's `versions`; True when some were deleted."""
    if rt.versions < 0:
        return False
    versions = _ordered_versions(resource)
    excess = versions[: max(0, len(versions) - (rt.versions + 1))]
    for version in excess:
        path = f"{resource.path}/versions/{version.vid}"
        version.delete()
        emit_deleted(ctx, path)
    return bool(excess)


def _new_version(ctx: WriteContext, resource: Resource, rt: ResourceType, inp: VersionInput, base: dict,
                 vid: str | None) -> Version:
    version = _prepared_version(ctx, resource, rt, inp, base, vid)
    try:
        with transaction.atomic():
            version.save()
    except IntegrityError:
        raise Problem("id-exists", f"{resource.path}/versions/{version.vid} already exists")
    resource.save(update_fields=["version_counter", "modified_on", "modified_by"])
    return version


def _prepared_version(ctx: WriteContext, resource: Resource, rt: ResourceType, inp: VersionInput, base: dict,
                      vid: str | None) -> Version:
    """A new version of `resource`, validated and not saved (its id taken, the counter moved in memory)."""
    if vid is None:
        vid = _next_version_id(resource)
    else:
        check_id(vid, "version")
        if exists_ignoring_case(Version.objects.filter(resource=resource), "vid", vid):
            raise Problem("id-exists", f"{resource.path}/versions/{vid} already exists")
        if vid.isdigit():
            resource.version_counter = max(resource.version_counter, int(vid))
    version = Version(resource=resource, vid=vid, epoch=1, created_by=ctx.user, created_on=ctx.now,
                      modified_by=ctx.user, modified_on=ctx.now)
    if inp.document is None and inp.resource_uri in (UNSET, None, ""):
        inp.document = b""
    attrs = _apply_input(version, rt, inp, base, replace_document=True)
    _validate(ctx, resource, rt, version, attrs, is_update=False)
    return version


def _create_resource(ctx: WriteContext, group: Group, rt: ResourceType, rid: str, inp: VersionInput) -> Resource:
    if exists_ignoring_case(Resource.objects.filter(group=group, resource_type=rt.plural), "rid", rid):
        raise Problem("id-exists", f"{group.path}/{rt.plural}/{rid} already exists")
    guard(ctx, group)
    resource = Resource(group=group, resource_type=rt.plural, rid=rid, created_by=ctx.user, created_on=ctx.now,
                        modified_by=ctx.user, modified_on=ctx.now, origin=ctx.origin)
    try:
        with transaction.atomic():
            resource.save()
    except IntegrityError:
        raise Problem("id-exists", f"{group.path}/{rt.plural}/{rid} already exists")
    version = _new_version(ctx, resource, rt, inp, {}, inp.version_id)
    resource.latest = version
    resource.save(update_fields=["latest"])
    emit_updated(ctx, resource.path, version.modified_on)
    emit_updated(ctx, f"{resource.path}/versions/{version.vid}", version.modified_on)
    return resource


def _check_input_ids(inp: VersionInput, rid: str, vid: str | None = None):
    if inp.resource_id is not None and inp.resource_id != rid:
        raise Problem("invalid-attribute", f"id {inp.resource_id!r} does not match the URL's id {rid!r}")
    if vid is not None and inp.version_id is not None and inp.version_id != vid:
        raise Problem("conflict", f"version {inp.version_id!r} does not match the version {vid!r}")


@transaction.atomic
def create_resource(ctx: WriteContext, plural: str, gid: str, rplural: str, rid: str | None,
                    inp: VersionInput) -> Resource:
    """POST /GROUPs/gID/RESOURCEs: a resource with its first version; 409 when the id exists."""
    _gt, rt = resolve_types(plural, rplural)
    group = get_group(plural, gid)
    absorb_document(rt, inp, rid)
    rid = rid or inp.resource_id
    rid = check_id(rid) if rid is not None else str(uuid.uuid4())
    _check_input_ids(inp, rid)
    return _create_resource(ctx, group, rt, rid, inp)


@transaction.atomic
def put_resource(ctx: WriteContext, plural: str, gid: str, rplural: str, rid: str,
                 inp: VersionInput) -> tuple[Resource, Version, bool]:
    """PUT /GROUPs/gID/RESOURCEs/rID: update the latest version in place, or create the resource."""
    _gt, rt = resolve_types(plural, rplural)
    group = get_group(plural, gid)
    check_id(rid)
    _check_input_ids(inp, rid)
    absorb_document(rt, inp, rid)
    resource = Resource.objects.select_for_update().filter(group=group, resource_type=rplural, rid=rid).first()
    if resource is None:
        if inp.epoch is not None:
            raise not_found(f"{group.path}/{rplural}/{rid}")
        resource = _create_resource(ctx, group, rt, rid, inp)
        return resource, resource.latest, True
    resource.group = group
    version = resource.latest
    version = _update_version(ctx, resource, rt, version, inp, resource.path)
    return resource, version, False


def _update_version(ctx: WriteContext, resource: Resource, rt: ResourceType, version: Version,
                    inp: VersionInput, event_path: str) -> Version:
    guard(ctx, resource.group, resource)
    version = Version.objects.select_for_update().get(pk=version.pk)
    path = f"{resource.path}/versions/{version.vid}"
    check_epoch(path, version, inp.epoch)
    if inp.version_id is not None and inp.version_id != version.vid:
        raise Problem("conflict", f"version {inp.version_id!r} does not match the version {version.vid!r}")
    attrs = _apply_input(version, rt, inp, version_attributes(version), replace_document=True)
    _validate(ctx, resource, rt, version, attrs, is_update=True)
    version.epoch += 1
    version.modified_by = ctx.user
    version.modified_on = ctx.now
    version.save()
    emit_updated(ctx, event_path, version.modified_on)
    return version


def _new_version_base(ctx: WriteContext, group: Group, resource: Resource, rt: ResourceType, rid: str,
                      inp: VersionInput) -> dict:
    """What a new version of a resource starts from, after the checks every new version passes (origin guard,
    ids, the document read, the expected epoch): the latest version's attributes."""
    guard(ctx, group, resource)
    _check_input_ids(inp, rid)
    absorb_document(rt, inp, rid)
    latest = resource.latest
    if latest is not None:
        check_epoch(f"{resource.path}/versions/{latest.vid}", latest, inp.epoch)
    return version_attributes(latest) if latest is not None else {}


@transaction.atomic
def create_version(ctx: WriteContext, plural: str, gid: str, rplural: str, rid: str,
                   inp: VersionInput) -> tuple[Resource, Version]:
    """POST /GROUPs/gID/RESOURCEs/rID: a new version inheriting the latest's attributes; then retention."""
    _gt, rt = resolve_types(plural, rplural)
    group = get_group(plural, gid)
    resource = lock_resource(group, rplural, rid)
    base = _new_version_base(ctx, group, resource, rt, rid, inp)
    version = _new_version(ctx, resource, rt, inp, base, inp.version_id)
    emit_updated(ctx, f"{resource.path}/versions/{version.vid}", version.modified_on)
    _refresh_latest(resource)
    if _apply_retention(ctx, resource, rt):
        _refresh_latest(resource)
    return resource, version


def check_new_version(ctx: WriteContext, plural: str, gid: str, rplural: str, rid: str,
                      inp: VersionInput) -> tuple[Resource, Version]:
    """A dry run of `create_version`: the same reading of the input and the same checks (the resource type's
    validation hook included), raising the same Problem a real POST would, and writing nothing. Returns the
    resource and the new version, unsaved (its attributes merged with the latest version's as a POST would)."""
    _gt, rt = resolve_types(plural, rplural)
    group = get_group(plural, gid)
    resource = Resource.objects.filter(group=group, resource_type=rplural, rid=rid).select_related("latest").first()
    if resource is None:
        raise not_found(f"{group.path}/{rplural}/{rid}")
    resource.group = group
    base = _new_version_base(ctx, group, resource, rt, rid, inp)  # a synced schema's dry run is refused too
    return resource, _prepared_version(ctx, resource, rt, inp, base, inp.version_id)


@transaction.atomic
def put_version(ctx: WriteContext, plural: str, gid: str, rplural: str, rid: str, vid: str,
                inp: VersionInput) -> tuple[Resource, Version, bool]:
    """PUT .../versions/V: update that version in place, or create it."""
    _gt, rt = resolve_types(plural, rplural)
    group = get_group(plural, gid)
    resource = lock_resource(group, rplural, rid)
    guard(ctx, group, resource)
    _check_input_ids(inp, rid, vid)
    absorb_document(rt, inp, rid)
    version = Version.objects.filter(resource=resource, vid=vid).first()
    if version is None:
        if inp.epoch is not None:
            raise not_found(f"{resource.path}/versions/{vid}")
        base = version_attributes(resource.latest) if resource.latest else {}
        version = _new_version(ctx, resource, rt, inp, base, vid)
        emit_updated(ctx, f"{resource.path}/versions/{vid}", version.modified_on)
        _refresh_latest(resource)
        if _apply_retention(ctx, resource, rt):
            _refresh_latest(resource)
        return resource, version, True
    version = _update_version(ctx, resource, rt, version, inp, f"{resource.path}/versions/{vid}")
    return resource, version, False


@transaction.atomic
def put_meta(ctx: WriteContext, plural: str, gid: str, rplural: str, rid: str, vid: str | None,
             body: dict, epoch=None) -> tuple[Resource, Version]:
    """PUT ...?meta: replace a version's metadata (missing attributes removed), no new version, epoch + 1."""
    _gt, rt = resolve_types(plural, rplural)
    group = get_group(plural, gid)
    resource = lock_resource(group, rplural, rid)
    guard(ctx, group, resource)
    version = resource.latest if vid is None else Version.objects.filter(resource=resource, vid=vid).first()
    if version is None:
        raise not_found(f"{resource.path}/versions/{vid}")
    version = Version.objects.select_for_update().get(pk=version.pk)
    path = f"{resource.path}/versions/{version.vid}"
    if "id" in body and body["id"] != rid:
        raise Problem("invalid-attribute", f"id {body['id']!r} does not match the URL's id {rid!r}")
    if "version" in body and body["version"] != version.vid:
        raise Problem("conflict", f"{path}: version {body['version']!r} differs from {version.vid!r}")
    for given in (epoch, body.get("epoch")):
        check_epoch(path, version, given)
    ignored = {"id", "version", "epoch", "self", "createdBy", "createdOn", "modifiedBy", "modifiedOn",
               "versionsURL", "versionsCount", "versions", rt.singular, rt.base64_attribute}
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
    _set_attributes(version, attrs)
    _validate(ctx, resource, rt, version, attrs, is_update=True)
    version.epoch += 1
    version.modified_by = ctx.user
    version.modified_on = ctx.now
    version.save()
    emit_updated(ctx, resource.path if vid is None else path, version.modified_on)
    return resource, version
