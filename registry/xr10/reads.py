"""Selecting and rendering entities for the 1.0 binding: the registry, group and resource collections.

Rows come from the 0.5 binding's selectors (one query plan per level, versions prefetched where a resource
is shown, since its default version, `ancestorid` and `versionscount` come from them).
"""

from __future__ import annotations

from django.conf import settings
from django.db.models import Prefetch

from .. import selectors
from ..attributes import stored_attributes, timestamp
from ..model import registry_model
from ..models import Group, Resource, Version
from ..read_scope import EVERYTHING, ReadScope
from .capabilities import capabilities, model_json, modelsource_json
from .documents import SPEC_VERSION, mapping_for
from .flags import Inline
from .mapping import GroupMapping, ResourceMapping, ordered_mappings
from .representations import _times, group_json, resource_json


def versions_prefetch(with_content: bool) -> Prefetch:
    qs = Version.objects.all() if with_content else Version.objects.defer("content")
    return Prefetch("versions", queryset=qs, to_attr="all_versions")


def resources_of(group: Group, rplural: str, *, with_content: bool, ids: list[str] | None = None):
    qs = (
        Resource.objects.filter(group=group, resource_type=rplural)
        .order_by("rid")
        .prefetch_related(versions_prefetch(with_content))
    )
    if ids is not None:
        qs = qs.filter(rid__in=ids)
    return list(qs)


def render_resources(
    base: str,
    gm: GroupMapping,
    rm: ResourceMapping,
    group: Group,
    resources,
    inline: Inline,
    *,
    doc: bool = False,
    defaults: bool = False,
) -> dict:
    group_attrs = stored_attributes(group)
    out = {}
    for resource in resources:
        out[resource.rid] = render_resource(
            base,
            gm,
            rm,
            group,
            resource,
            resource.all_versions,
            inline,
            group_attrs=group_attrs,
            doc=doc,
            defaults=defaults,
        )
    return out


def render_resource(
    base,
    gm,
    rm,
    group,
    resource,
    versions,
    inline: Inline,
    *,
    group_attrs=None,
    doc=False,
    inline_document: bool | None = None,
    defaults: bool = False,
) -> dict:
    """One resource; in document view (`doc`) without its default version's attributes unless `defaults`
    (the export keeps them: xrcg and other code generators read `dataschemauri` ... on the resource)."""
    if inline_document is None:
        inline_document = inline.wants(rm.v1_singular) or (inline.all and rm.hasdocument)
    out = resource_json(
        base,
        gm,
        rm,
        group,
        resource,
        versions,
        inline_document=inline_document,
        inline_meta=inline.wants("meta") or doc,
        inline_versions=inline.wants("versions") or doc,
        group_attributes=group_attrs,
    )
    if doc and not defaults:
        out = {
            k: v
            for k, v in out.items()
            if k
            in (f"{rm.v1_singular}id", "self", "xid", "metaurl", "meta", "versionsurl", "versionscount", "versions")
        }
    return out


def render_group(
    base: str, gm: GroupMapping, group: Group, inline: Inline, *, doc: bool = False, defaults: bool = False
) -> dict:
    inlined = {}
    for rm in gm.resources:
        if inline.wants(rm.v1_plural) or doc:
            below = inline.below(rm.v1_plural)
            if doc:
                below.all = True
            with_content = below.wants(rm.v1_singular) or below.all
            resources = getattr(group, f"inline_{rm.plural}", None)
            if resources is None:
                resources = resources_of(group, rm.plural, with_content=with_content)
            inlined[rm.plural] = render_resources(base, gm, rm, group, resources, below, doc=doc, defaults=defaults)
    counts = {rm.plural: getattr(group, f"count_{rm.plural}", None) for rm in gm.resources}
    if any(v is None for v in counts.values()):
        counts = {
            rm.plural: Resource.objects.filter(group=group, resource_type=rm.plural).count() for rm in gm.resources
        }
    return group_json(base, gm, group, counts=counts, inline_resources=inlined)


def groups_of(gm: GroupMapping, inline: Inline, *, doc: bool = False, scope: ReadScope = EVERYTHING):
    gt = registry_model[gm.plural]
    deep = doc or any(inline.below(gm.v1_plural).wants(rm.v1_plural) for rm in gm.resources)
    return selectors.iter_groups(gt, inline=deep, scope=scope)


def registry_json(
    base: str, inline: Inline, *, doc: bool = False, defaults: bool = False, scope: ReadScope = EVERYTHING
) -> dict:
    """The registry entity; its groups (counted, inlined) are those `scope` reads."""
    counts = selectors.registry_counts(scope)
    state = selectors.registry_state()
    out = {
        "specversion": SPEC_VERSION,
        "registryid": settings.REGISTRY_ID,
        "self": base + "/",
        "xid": "/",
        "epoch": state.epoch,
        "name": settings.REGISTRY_NAME,
    }
    if settings.REGISTRY_DESCRIPTION:
        out["description"] = settings.REGISTRY_DESCRIPTION
    if settings.REGISTRY_DOCS:
        out["documentation"] = settings.REGISTRY_DOCS
    out.update({"createdat": timestamp(state.created_on), "modifiedat": timestamp(state.modified_on)})
    if inline.wants("capabilities"):
        out["capabilities"] = capabilities()
    if inline.wants("model"):
        out["model"] = model_json()
    if inline.wants("modelsource"):
        out["modelsource"] = modelsource_json()
    for gm in ordered_mappings():
        out[f"{gm.v1_plural}url"] = f"{base}/{gm.v1_plural}"
        out[f"{gm.v1_plural}count"] = counts.get(gm.plural, 0)
        if inline.wants(gm.v1_plural) or doc:
            below = inline.below(gm.v1_plural)
            if doc:
                below.all = True
            out[gm.v1_plural] = {
                g.gid: render_group(base, gm, g, below, doc=doc, defaults=defaults)
                for g in groups_of(gm, inline, doc=doc, scope=scope)
            }
    return out


__all__ = [
    "registry_json",
    "render_group",
    "render_resource",
    "render_resources",
    "resources_of",
    "mapping_for",
    "_times",
]


LINK_ATTRIBUTES = ("self", "metaurl", "defaultversionurl", "versionsurl")


def _relative(data, base: str):
    """Document view: links to entities inside the answer become `#/...` JSON pointers, and an inlined
    collection stands without its `<COLLECTION>url`/`<COLLECTION>count` (the document schema of 1.0-rc4 takes
    a collection either inlined or linked, not both)."""
    if isinstance(data, dict):
        out = {}
        for key, value in data.items():
            if key.endswith(("url", "count")) and isinstance(
                data.get(key[:-3] if key.endswith("url") else key[:-5]), dict
            ):
                continue
            if (
                isinstance(value, str)
                and value.startswith(base + "/")
                and (key in LINK_ATTRIBUTES or key.endswith("url") and key[:-3] in data)
            ):
                value = "#" + value[len(base) :]
            out[key] = _relative(value, base) if isinstance(value, dict) else value
        return out
    return data


def export_json(base: str, scope: ReadScope = EVERYTHING) -> dict:
    """`GET /registry/export`: `?doc&inline=*,capabilities,modelsource` (the groups `scope` reads)."""
    inline = Inline.__new__(Inline)
    inline.all, inline.paths = True, {("capabilities",), ("modelsource",)}
    return _relative(registry_json(base, inline, doc=True, defaults=True, scope=scope), base)
