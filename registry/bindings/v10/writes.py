"""Writes of the 1.0 binding: a 1.0 body translated into the services' input (`GroupWrite`, `ResourceWrite`,
`VersionInput`, delete items), which the views hand to the registry's services.

Each request runs in one transaction: a map of groups, resources or versions is written whole or not at
all. Whole documents (`POST /registry/`) go through the document importer, as a 0.5 import does.
"""

from __future__ import annotations

import json

from django.conf import settings

from ... import services
from ...documents.imports import import_document
from ...documents.precheck import check_size
from ...domain.attributes import V10_SERVER_OWNED, check_id, stored_attributes
from ...domain.model import effective_compatibility, registry_model
from ...http.requests import parse_epoch
from ...models import Group, Version
from ...services.address import EntityAddress
from ...services.inputs import patched
from .capabilities import capabilities
from .documents import (
    _group_to_v05,
    group_to_v10,
    meta_attribute_names,
    to_v05_document,
)
from .errors import V1Problem
from .inputs import check_same_id, version_input
from .mapping import GroupMapping, ResourceMapping, ordered_mappings
from .model_defaults import declares_defaults, group_model, resource_model, without_shown_defaults
from .representations import _version_attributes


def without_inherited_levels(doc05: dict) -> dict:
    """A 1.0 document shows every resource's effective `meta.compatibility` (registry.domain.model.effective_compatibility),
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
                rules = registry_model[gm.plural].resource_type(rm.plural).compatibility_levels is not None
                level = inherited if rules else "none"  # (`none`: no level, as a type without rules has)
                for rid, resource in resources.items():
                    if isinstance(resource, dict) and resource.get("compatibility") == level:
                        del resource["compatibility"]
                    elif isinstance(resource, dict) and not rules and resource.get("compatibility") is not None:
                        raise V1Problem(
                            "invalid_attribute",
                            f"compatibility {resource['compatibility']!r}: a {rm.v1_singular} has no compatibility "
                            "level",
                            subject=f"/{gm.v1_plural}/{gid}/{rm.v1_plural}/{rid}/meta",
                            args={"name": "compatibility", "error_detail": f"a {rm.v1_singular} has no level"},
                        )
    return doc05


def _shown_defaults_left_out(gm: GroupMapping, gid: str, group: Group, data: dict) -> dict:
    """A group of a 1.0 document (and its resources) less the model defaults that a read of the stored group shows
    without the store holding them (model_defaults.without_shown_defaults)."""
    model = group_model(gm.v1_plural)
    out = without_shown_defaults(model, data, group_to_v10(gm, stored_attributes(group)))
    for rm in gm.resources:
        resources = data.get(rm.v1_plural)
        model = resource_model(gm.v1_plural, rm.v1_plural)
        if not isinstance(resources, dict) or not declares_defaults(model):
            continue
        stored = {
            (v.resource.rid, v.vid): _version_attributes(rm, v.resource, v)
            for v in Version.objects.filter(
                resource__group=group, resource__resource_type=rm.plural, resource__rid__in=list(resources)
            ).select_related("resource")
        }
        kept = {}
        for rid, resource in resources.items():
            if isinstance(resource, dict) and isinstance(resource.get("versions"), dict):
                resource = {
                    **resource,
                    "versions": {
                        vid: without_shown_defaults(model, v, stored.get((rid, str(vid))))
                        for vid, v in resource["versions"].items()
                    },
                }
            elif isinstance(resource, dict) and resource.get("versions") is None:  # the one version's attributes
                resource = without_shown_defaults(
                    model, resource, stored.get((rid, str(resource.get("versionid", "1"))))
                )
            kept[rid] = resource
        out[rm.v1_plural] = kept
    return out


def without_shown_defaults_of_stored(doc: dict) -> dict:
    """A 1.0 document less the defaults a read of the entities it updates shows without the store holding them: a
    1.0 export imported again changes nothing (a default a client writes for a new entity is stored as given)."""
    out = dict(doc)
    for gm in ordered_mappings():
        groups = doc.get(gm.v1_plural)
        if not isinstance(groups, dict) or not groups:
            continue
        if not declares_defaults(group_model(gm.v1_plural)) and not any(
            declares_defaults(resource_model(gm.v1_plural, rm.v1_plural)) for rm in gm.resources
        ):
            continue
        stored = {g.gid: g for g in Group.objects.filter(group_type=gm.plural, gid__in=[str(k) for k in groups])}
        out[gm.v1_plural] = {
            gid: _shown_defaults_left_out(gm, gid, stored[gid], g) if gid in stored and isinstance(g, dict) else g
            for gid, g in groups.items()
        }
    return out


def import_v10(ctx, doc: dict, *, owners: str = "keep", force: bool = False) -> None:
    if isinstance(doc, dict):
        doc = without_shown_defaults_of_stored(doc)
    doc05 = without_inherited_levels(to_v05_document(doc))
    check_size(doc05, max_entities=settings.REGISTRY_IMPORT_MAX_ENTITIES)
    import_document(ctx, doc05, owners=owners, force=force)


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
def _object(value, where: str) -> dict:
    if not isinstance(value, dict):
        raise V1Problem("bad_request", f"{where} must be an object", subject=where)
    return value


def group_write(gm: GroupMapping, gid: str, body: dict, *, epoch=None, patch: bool = False) -> services.GroupWrite:
    """A 1.0 group body as the services' write: PUT (or PATCH: the body's attributes over the stored ones, read under
    the group's row lock by the service) of its own attributes, and the resources it nests."""
    _object(body, f"/{gm.v1_plural}/{gid}")
    check_same_id(body, gm.v1_singular, gid, subject=f"/{gm.v1_plural}/{gid}")
    nested = {rm: body[rm.v1_plural] for rm in gm.resources if body.get(rm.v1_plural) is not None}
    own = {k: v for k, v in body.items() if k not in {rm.v1_plural for rm in gm.resources}}

    def attributes(stored: dict | None) -> dict:
        current = group_to_v10(gm, stored) if stored is not None else None
        given = patched(current, own) if patch else own
        data = _group_to_v05(gm, gid, without_shown_defaults(group_model(gm.v1_plural), given, current))
        return {**data, "id": gid}

    resources = (
        (EntityAddress(gm.plural, gid, rm.plural, rid), write)
        for rm, rs in nested.items()
        for rid, write in resource_writes(gm, rm, gid, rs)
    )
    return services.GroupWrite(merge=attributes, expected_epoch=epoch, resources=resources)


def group_writes(gm: GroupMapping, body: dict):
    """A 1.0 map of groups as the services' (group id, write) pairs, each translated when its turn comes."""
    for gid, data in body.items():
        check_id(gid, f"{gm.v1_singular}id")
        data = _object(data, f"/{gm.v1_plural}/{gid}")
        yield gid, group_write(gm, gid, data, epoch=parse_epoch(data.get("epoch"), f"/{gm.v1_plural}/{gid}: epoch"))


def resource_maps(gm: GroupMapping, gid: str, body: dict):
    """A 1.0 map of resource types -> maps of resources as the services' (type, map) pairs."""
    for key, resources in body.items():
        rm = gm.by_v1_plural.get(key)
        if rm is None:
            raise V1Problem(
                "unknown_resource_type",
                f"{key!r} is not a resource type of {gm.v1_plural}",
                subject=f"/{gm.v1_plural}/{gid}",
                args={"name": key, "group": gm.v1_plural},
            )
        yield rm.plural, resource_writes(gm, rm, gid, resources)


def deletions(body: dict | None, singular: str, *, resources: bool = False) -> list[dict] | None:
    """A 1.0 delete map (core/spec.md "Deleting Entities") as the services' items: None (no body) deletes every
    entity of the collection; each key's `epoch` (a Resource's under `meta`; a top-level one alone is
    misplaced_epoch) is checked; ids in the values must match their keys."""
    if body is None:
        return None
    items = []
    for key, value in body.items():
        value = _object(value, key) if value is not None else {}
        check_same_id(value, singular, key)
        item = {"id": key}
        if resources:
            meta = value.get("meta")
            if isinstance(meta, dict) and meta.get("epoch") is not None:
                item["meta_epoch"] = parse_epoch(meta["epoch"], f"{key}: meta.epoch")
            elif value.get("epoch") is not None:
                raise V1Problem("misplaced_epoch", f"{key}: a resource's epoch goes in its meta, not at the top")
        elif value.get("epoch") is not None:
            item["epoch"] = parse_epoch(value["epoch"], f"{key}: epoch")
        items.append(item)
    return items


# resources and versions ---------------------------------------------------------------------------------
def _meta_of(rm: ResourceMapping, data: dict) -> dict:
    """A resource body's `meta` attributes (in `meta`, or beside the default version's as the spec allows)."""
    meta = dict(data["meta"]) if isinstance(data.get("meta"), dict) else {}
    for key in meta_attribute_names(rm):
        if key in data and key not in meta:
            meta[key] = data[key]
    return meta


def version_writes(gm, rm, gid: str, rid: str, versions: dict):
    """A 1.0 map of versions as the services' (version id, input) pairs, each translated when the service comes to
    it (so a refusal of one comes after the writes of those before it, as they are written)."""
    _object(versions, f"/{gm.v1_plural}/{gid}/{rm.v1_plural}/{rid}/versions")
    for vid, vdata in versions.items():
        check_id(vid, "versionid")
        yield vid, version_write(gm, rm, rid, vid, vdata, None, False)


def resource_write(gm, rm, gid: str, rid: str, data, *, epoch=None, patch: bool = False) -> services.ResourceWrite:
    """A 1.0 resource body as the services' write: its `versions` map, or its default version's attributes (PUT or
    PATCH), and its `meta`."""
    data = _object(data, f"/{gm.v1_plural}/{gid}/{rm.v1_plural}/{rid}")
    versions = data.get("versions")
    if isinstance(versions, dict) and versions:
        return services.ResourceWrite(versions=version_writes(gm, rm, gid, rid, versions), meta=_meta_of(rm, data))
    names = meta_attribute_names(rm)
    own = {k: v for k, v in data.items() if k not in ("meta", "versions") and k not in names}
    return services.ResourceWrite(data=version_write(gm, rm, rid, None, own, epoch, patch), meta=_meta_of(rm, data))


def version_write(gm: GroupMapping, rm: ResourceMapping, rid: str, vid: str | None, body: dict, epoch, patch: bool):
    """The services' input of a 1.0 version body; a function of the stored rows (called under their locks) when the
    stored version matters: for a PATCH, the stored attributes in 1.0 names with the body's over them; and for any
    write of a type whose model declares defaults, the body less the defaults a read shows without the store
    holding them (model_defaults.without_shown_defaults)."""
    model = resource_model(gm.v1_plural, rm.v1_plural)
    if not patch and not declares_defaults(model):
        inp = version_input(rm, rid, vid, body)
        inp.epoch = epoch if epoch is not None else inp.epoch
        return inp

    def merged(resource, version):
        current = _version_attributes(rm, resource, version) if version is not None else None
        inp = version_input(rm, rid, vid, without_shown_defaults(model, patched(current, body) if patch else body,
                                                                 current))  # fmt: skip
        inp.epoch = epoch if epoch is not None else body.get("epoch")
        return inp

    return merged


def resource_writes(gm, rm, gid: str, resources: dict):
    """A 1.0 map of resources as the services' (resource id, write) pairs, each translated when its turn comes."""
    _object(resources, f"/{gm.v1_plural}/{gid}/{rm.v1_plural}")
    for rid, data in resources.items():
        check_id(rid, f"{rm.v1_singular}id")
        yield rid, resource_write(gm, rm, gid, rid, data)


def meta_write(gm, rm, gid: str, rid: str, body: dict) -> dict:
    """A 1.0 `meta` body as the attributes the service sets; an attribute a `meta` has not is refused (what a GET
    shows of it, sent back, is left out)."""
    names = meta_attribute_names(rm)
    shown = {f"{rm.v1_singular}id", "self", "epoch", "defaultversionurl", *V10_SERVER_OWNED}  # (what a GET shows)
    unknown = [k for k in body if k not in names and k not in shown]
    if unknown:
        raise V1Problem(
            "unknown_attribute",
            f"the meta entity has no attribute {unknown[0]!r}",
            subject=f"/{gm.v1_plural}/{gid}/{rm.v1_plural}/{rid}/meta",
            args={"name": unknown[0]},
        )
    return {k: v for k, v in body.items() if k in names}
