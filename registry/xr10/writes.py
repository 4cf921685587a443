"""Writes of the 1.0 binding: a 1.0 request translated into the stored shape, then the registry's services.

Each request runs in one transaction: a map of groups, resources or versions is written whole or not at
all. Whole documents (`POST /registry/`) go through the document importer, as a 0.5 import does.
"""

from __future__ import annotations

import json

from django.conf import settings
from django.db import transaction

from .. import services
from ..attributes import check_id, stored_attributes
from ..documents.imports import import_document
from ..documents.precheck import check_size
from ..errors import Problem
from ..model import effective_compatibility
from ..models import Group, Resource, Version
from ..services.address import EntityAddress
from ..services.meta import set_resource_meta
from .bodies import json_body
from .capabilities import capabilities
from .documents import (
    META_ATTRIBUTES,
    _group_to_v05,
    group_to_v10,
    to_v05_document,
)
from .errors import V1Problem
from .inputs import request_input, translate, version_input
from .mapping import GroupMapping, ResourceMapping, ordered_mappings
from .representations import _version_attributes, default_version


def without_inherited_levels(doc05: dict) -> dict:
    """A 1.0 document shows every resource's effective `meta.compatibility` (registry.model.effective_compatibility),
    so an export re-imported names the level of resources that only inherit it: a level equal to what the resource
    inherits (its group's, in the document or stored, else the registry's) is left out, and the resource keeps
    inheriting. What was read is written back unchanged."""
    for gm in ordered_mappings():
        for gid, group in (doc05.get(gm.plural) or {}).items():
            if not isinstance(group, dict):
                continue
            stored = Group.objects.filter(group_type=gm.plural, gid=gid).values_list("extensions", flat=True).first()
            inherited = effective_compatibility(group.get("compatibility"), (stored or {}).get("compatibility"))
            for rm in gm.resources:
                resources = group.get(rm.plural)
                if not isinstance(resources, dict):
                    continue
                level = rm.default_compatibility or inherited  # a fixed level for types without compatibility rules
                for resource in resources.values():
                    if isinstance(resource, dict) and resource.get("compatibility") == level:
                        del resource["compatibility"]
    return doc05


def import_v10(ctx, doc: dict) -> None:
    doc05 = without_inherited_levels(translate(to_v05_document, doc))
    check_size(doc05, max_entities=settings.REGISTRY_IMPORT_MAX_ENTITIES)
    import_document(ctx, doc05)


def refuse_registry_changes(body: dict) -> None:
    for key in ("model", "modelsource"):
        if key in body:
            raise V1Problem(
                "model_error",
                "the model of this registry is fixed",
                subject="/model",
                args={"error_detail": "the model of this registry is fixed"},
            )
    if "capabilities" in body:
        refuse_capability_changes(body["capabilities"], capabilities(), partial=False)
    changed = [k for k in body if k in ("name", "description", "documentation", "labels", "icon")]
    if changed:
        raise V1Problem(
            "readonly",
            f"the registry's {', '.join(changed)} come from the server's settings "
            "(REGISTRY_NAME, REGISTRY_DESCRIPTION, REGISTRY_DOCS)",
            subject="/",
        )


def refuse_capability_changes(body, current: dict, *, partial: bool) -> None:
    if not isinstance(body, dict):
        raise V1Problem(
            "capability_error",
            "capabilities must be an object",
            subject="/capabilities",
            args={"error_detail": "capabilities must be an object"},
        )
    for key, value in body.items():
        if key not in current:
            raise V1Problem(
                "capability_unknown",
                f"the capability {key!r} is not offered",
                subject="/capabilities",
                args={"field": key},
            )
        same = (
            sorted(value) == sorted(current[key])
            if isinstance(value, list) and isinstance(current[key], list)
            else value == current[key]
        )
        if not same:
            raise V1Problem(
                "capability_value",
                f"the capability {key!r} cannot be changed on this server",
                subject="/capabilities",
                args={"value": json.dumps(value), "field": key, "list": json.dumps(current[key])},
            )
    if not partial and set(body) != set(current):
        missing = sorted(set(current) - set(body))
        raise V1Problem(
            "capability_missing_value",
            f"a PUT of the capabilities must give them all; missing: {', '.join(missing)}",
            subject="/capabilities",
            args={"name": missing[0], "value": json.dumps(current[missing[0]])},
        )


# groups ------------------------------------------------------------------------------------------------
def _group_body(gm: GroupMapping, gid: str, body: dict) -> tuple[dict, dict]:
    """(0.5 group attributes, {resource plural: 0.5 resources}) of a 1.0 group body."""
    if not isinstance(body, dict):
        raise V1Problem("bad_request", f"/{gm.v1_plural}/{gid}: a group must be an object")
    given_id = body.get(f"{gm.v1_singular}id")
    if given_id is not None and given_id != gid:
        raise V1Problem(
            "mismatched_id",
            f"{gm.v1_singular}id {given_id!r} does not match {gid!r}",
            subject=f"/{gm.v1_plural}/{gid}",
            args={"singular": gm.v1_singular, "invalid_id": given_id, "expected_id": gid},
        )
    nested = {rm.plural: body[rm.v1_plural] for rm in gm.resources if body.get(rm.v1_plural) is not None}
    data = translate(
        _group_to_v05, gm, gid, {k: v for k, v in body.items() if k not in {rm.v1_plural for rm in gm.resources}}
    )
    data.pop("id", None)
    return data, nested


def put_group(ctx, gm: GroupMapping, gid: str, body: dict, *, epoch=None, patch: bool = False) -> bool:
    with transaction.atomic():
        epoch = body.get("epoch", epoch)
        if patch:
            existing = Group.objects.filter(group_type=gm.plural, gid=gid).first()
            if existing is not None:
                current = group_to_v10(gm, stored_attributes(existing))
                body = {**current, **{k: v for k, v in body.items()}}
                body = {k: v for k, v in body.items() if v is not None}
        attrs, nested = _group_body(gm, gid, body)
        _group, created = services.put_group(
            ctx=ctx, address=_at(gm, gid), data={"id": gid, **attrs}, expected_epoch=epoch
        )
        for rplural, resources in nested.items():
            _write_resources(ctx, gm, gm.by_plural[rplural], gid, resources)
    return created


def upsert_groups(ctx, gm: GroupMapping, body: dict) -> None:
    with transaction.atomic():
        for gid, data in body.items():
            check_id(gid, f"{gm.v1_singular}id")
            put_group(ctx, gm, gid, data or {})


def post_group_resources(ctx, gm: GroupMapping, gid: str, body: dict) -> None:
    with transaction.atomic():
        for key, resources in body.items():
            rm = gm.by_v1_plural.get(key)
            if rm is None:
                raise V1Problem(
                    "unknown_resource_type",
                    f"{key!r} is not a resource type of {gm.v1_plural}",
                    subject=f"/{gm.v1_plural}/{gid}",
                    args={"name": key, "group": gm.v1_plural},
                )
            upsert_resources(ctx, gm, rm, gid, resources)


def delete_group(ctx, gm: GroupMapping, gid: str, epoch, *, force: bool = False) -> None:
    services.delete_group(ctx=ctx, address=_at(gm, gid), expected_epoch=epoch, force=force)


def delete_groups(ctx, gm: GroupMapping, body: dict) -> None:
    with transaction.atomic():
        for gid, data in body.items():
            check_id(gid, f"{gm.v1_singular}id")
            epoch = data.get("epoch") if isinstance(data, dict) else None
            services.delete_group(ctx=ctx, address=_at(gm, gid), expected_epoch=epoch)


# resources and versions ---------------------------------------------------------------------------------
def _missing(path: str):
    raise Problem("not-found", f"{path} does not exist")


def _exists(gm: GroupMapping, rm: ResourceMapping, gid: str, rid: str) -> bool:
    return Resource.objects.filter(
        group__group_type=gm.plural, group__gid=gid, resource_type=rm.plural, rid=rid
    ).exists()


def _at(
    gm: GroupMapping, gid: str, rm: ResourceMapping | None = None, rid: str | None = None, vid: str | None = None
) -> EntityAddress:
    """The registry's address of a 1.0 entity (the store's type names)."""
    return EntityAddress(gm.plural, gid, rm.plural if rm is not None else None, rid, vid)


def _ensure_group(ctx, gm: GroupMapping, gid: str) -> None:
    """1.0 creates missing parents implicitly (core/spec.md "Implicit Creation of Parent Entities")."""
    if not Group.objects.filter(group_type=gm.plural, gid=gid).exists():
        services.put_group(ctx=ctx, address=_at(gm, gid), data={"id": gid})


def _write_resource(ctx, gm: GroupMapping, rm: ResourceMapping, gid: str, rid: str, data: dict) -> bool:
    """PUT semantics for one resource body (its default version's attributes, or a `versions` map)."""
    if not isinstance(data, dict):
        raise V1Problem("bad_request", f"{rid}: a resource must be an object")
    created = not _exists(gm, rm, gid, rid)
    meta = dict(data.get("meta") or {}) if isinstance(data.get("meta"), dict) else {}
    for key in META_ATTRIBUTES:
        if key in data and key not in meta:
            meta[key] = data[key]
    versions = data.get("versions")
    if isinstance(versions, dict) and versions:
        for vid, vdata in versions.items():
            services.put_version(ctx=ctx, address=_at(gm, gid, rm, rid, vid), data=version_input(rm, rid, vid, vdata))
    else:
        own = {k: v for k, v in data.items() if k not in ("meta", "versions") and k not in META_ATTRIBUTES}
        services.put_resource(ctx=ctx, address=_at(gm, gid, rm, rid), data=version_input(rm, rid, None, own))
    if meta:
        set_resource_meta(ctx=ctx, address=_at(gm, gid, rm, rid), meta=meta, announced=created)
    return created


def _new_resource(ctx, gm, rm, gid: str, rid: str, inp) -> Resource:
    """A resource created by a 1.0 write: its first version; its compatibility level the one it inherits."""
    return services.create_resource(ctx=ctx, address=_at(gm, gid, rm, rid), data=inp)


def _write_resources(ctx, gm, rm, gid, resources: dict) -> None:
    if not isinstance(resources, dict):
        raise V1Problem("bad_request", f"{rm.v1_plural} must be a map of resources")
    for rid, data in resources.items():
        check_id(rid, f"{rm.v1_singular}id")
        _write_resource(ctx, gm, rm, gid, rid, data)


def upsert_resources(ctx, gm: GroupMapping, rm: ResourceMapping, gid: str, body: dict) -> None:
    with transaction.atomic():
        _ensure_group(ctx, gm, gid)
        _write_resources(ctx, gm, rm, gid, body)


def put_resource(ctx, gm, rm, gid: str, rid: str, request, *, details: bool, patch: bool = False) -> bool:
    with transaction.atomic():
        _ensure_group(ctx, gm, gid)
        created = not _exists(gm, rm, gid, rid)
        if rm.hasdocument and not details:
            inp = request_input(rm, rid, None, request, details=False)
            if created:
                _new_resource(ctx, gm, rm, gid, rid, inp)
            else:
                services.put_resource(ctx=ctx, address=_at(gm, gid, rm, rid), data=inp)
            return created
        body = json_body(request, required=False) or {}
        if patch and not created:
            body = _patched(gm, rm, gid, rid, None, body)
        _write_resource(ctx, gm, rm, gid, rid, body)
        return created


def _patched(gm, rm, gid, rid, vid, body: dict) -> dict:
    """PATCH: the stored attributes (1.0 names) with the body's over them; a null removes one."""
    resource = Resource.objects.get(group__group_type=gm.plural, group__gid=gid, resource_type=rm.plural, rid=rid)
    versions = list(resource.versions.all())
    version = default_version(resource, versions) if vid is None else next((v for v in versions if v.vid == vid), None)
    if version is None:
        return body
    current = _version_attributes(rm, resource, version)
    merged = {**current, **body}
    return {k: v for k, v in merged.items() if v is not None}


def post_version(ctx, gm, rm, gid: str, rid: str, request, *, details: bool) -> str:
    with transaction.atomic():
        _ensure_group(ctx, gm, gid)
        inp = request_input(rm, rid, None, request, details=details)
        if not _exists(gm, rm, gid, rid):
            resource = _new_resource(ctx, gm, rm, gid, rid, inp)
            return resource.latest.vid
        _resource, version = services.create_version(ctx=ctx, address=_at(gm, gid, rm, rid), data=inp)
        return version.vid


def put_version(ctx, gm, rm, gid: str, rid: str, vid: str, request, *, details: bool, patch: bool = False) -> bool:
    with transaction.atomic():
        _ensure_group(ctx, gm, gid)
        if patch and details and _exists(gm, rm, gid, rid):
            body = _patched(gm, rm, gid, rid, vid, json_body(request, required=False) or {})
            inp = version_input(rm, rid, vid, body)
        else:
            inp = request_input(rm, rid, vid, request, details=details)
        if not _exists(gm, rm, gid, rid):
            _new_resource(ctx, gm, rm, gid, rid, inp)
            return True
        _resource, _version, created = services.put_version(ctx=ctx, address=_at(gm, gid, rm, rid, vid), data=inp)
        return created


def upsert_versions(ctx, gm, rm, gid: str, rid: str, body: dict, *, setdefault: str | None = None) -> None:
    with transaction.atomic():
        _ensure_group(ctx, gm, gid)
        for vid, data in body.items():
            check_id(vid, "versionid")
            inp = version_input(rm, rid, vid, data)
            if not _exists(gm, rm, gid, rid):
                _new_resource(ctx, gm, rm, gid, rid, inp)
            else:
                services.put_version(ctx=ctx, address=_at(gm, gid, rm, rid, vid), data=inp)
        if setdefault:
            set_resource_meta(
                ctx=ctx,
                address=_at(gm, gid, rm, rid),
                meta={"defaultversionid": setdefault, "defaultversionsticky": True},
            )


def put_meta(ctx, gm, rm, gid: str, rid: str, body: dict, *, patch: bool) -> None:
    meta = {k: v for k, v in body.items() if k in META_ATTRIBUTES or k == "epoch"}
    unknown = [
        k
        for k in body
        if k not in META_ATTRIBUTES
        and k not in {f"{rm.v1_singular}id", "self", "xid", "epoch", "createdat", "modifiedat", "defaultversionurl"}
    ]
    if unknown:
        raise V1Problem(
            "unknown_attribute",
            f"the meta entity has no attribute {unknown[0]!r}",
            subject=f"/{gm.v1_plural}/{gid}/{rm.v1_plural}/{rid}/meta",
            args={"name": unknown[0]},
        )
    set_resource_meta(ctx=ctx, address=_at(gm, gid, rm, rid), meta=meta, replace=not patch)


def delete_resource(ctx, gm, rm, gid: str, rid: str, epoch, *, force: bool = False) -> None:
    services.delete_resource(ctx=ctx, address=_at(gm, gid, rm, rid), expected_epoch=epoch, force=force)


def delete_resources(ctx, gm, rm, gid: str, body: dict) -> None:
    with transaction.atomic():
        Group.objects.filter(group_type=gm.plural, gid=gid).exists() or _missing(f"/{gm.v1_plural}/{gid}")
        for rid in body:
            services.delete_resource(ctx=ctx, address=_at(gm, gid, rm, rid))


def delete_version(ctx, gm, rm, gid: str, rid: str, vid: str, epoch) -> None:
    services.delete_version(ctx=ctx, address=_at(gm, gid, rm, rid, vid), expected_epoch=epoch)


def delete_versions(ctx, gm, rm, gid: str, rid: str, body: dict) -> None:
    with transaction.atomic():
        _exists(gm, rm, gid, rid) or _missing(f"/{gm.v1_plural}/{gid}/{rm.v1_plural}/{rid}")
        for vid in body:
            services.delete_version(ctx=ctx, address=_at(gm, gid, rm, rid, vid))


__all__ = ["Problem", "Version"]
