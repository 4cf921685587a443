"""Selecting and rendering entities for the 1.0 binding: the registry, group and resource collections.

Rows come from the selectors (one query plan per level; a resource's versions prefetched where they are inlined, else
its default version read with its `ancestorid` and its `versionscount`: representations.Versions).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator

from django.conf import settings

from ...access.read_scope import EVERYTHING, ReadScope
from ...domain.attributes import stored_attributes, timestamp
from ...domain.json_text import Spliced
from ...domain.model import registry_model
from ...models import Group
from ...store import selectors
from ...store.group_states import group_states
from .capabilities import capabilities, model_json, modelsource_json
from .document_view import document_view, pointer_token
from .documents import SPEC_VERSION
from .flags import Inline
from .mapping import GroupMapping, ordered_mappings
from .representations import SPLICE, Place, Versions, group_json, resource_json


def render_resource(
    place: Place, versions: Versions, inline: Inline, *, group_attrs=None, doc=False, inline_document=None
) -> dict:
    """One resource; in document view (`doc`) without its default version's attributes (core/spec.md "Doc Flag":
    "MUST remove the default Version attributes from a Resource's serialization")."""
    rm = place.rm
    if inline_document is None:
        inline_document = inline.wants(rm.v1_singular) or (inline.all and rm.hasdocument)
    out = resource_json(
        place,
        versions,
        inline_document=inline_document,
        inline_meta=inline.wants("meta"),
        inline_versions=inline.wants("versions"),
        group_attributes=group_attrs,
    )
    if doc:  # (the versions' `formatvalidated` and `compatibilityvalidated` go in the document view, document_view.py)
        out = {
            k: v
            for k, v in out.items()
            if k
            in (f"{rm.v1_singular}id", "self", "xid", "metaurl", "meta", "versionsurl", "versionscount", "versions")
        }
    return out


def inlined_types(gm: GroupMapping, inline: Inline) -> dict[str, bool]:
    """The group's resource types (stored plurals) that `inline` names, each with whether its versions' documents are
    shown (what a group's read loads: selectors.load_inline)."""
    return {
        rm.plural: below.wants(rm.v1_singular) or below.all
        for rm in gm.resources
        if inline.wants(rm.v1_plural)
        for below in [inline.below(rm.v1_plural)]
    }


def render_group(base: str, gm: GroupMapping, group: Group, inline: Inline, *, doc: bool = False) -> dict:
    inlined = {}
    wanted = inlined_types(gm, inline)
    for rm in gm.resources:
        if rm.plural in wanted:
            below = inline.below(rm.v1_plural)
            resources = getattr(group, f"inline_{rm.plural}", None)
            if resources is None:
                resources = selectors.resources_with_versions(group, rm.plural, with_content=wanted[rm.plural])
            group_attrs = stored_attributes(group)
            inlined[rm.plural] = {
                r.rid: render_resource(
                    Place(base, gm, rm, group, r),
                    Versions.of(r, r.all_versions),
                    below,
                    group_attrs=group_attrs,
                    doc=doc,
                )
                for r in resources
            }
    annotated = {rm.plural: getattr(group, f"count_{rm.plural}", None) for rm in gm.resources}
    counts = (
        selectors.resource_counts(group, [rm.plural for rm in gm.resources])
        if any(v is None for v in annotated.values())
        else annotated
    )
    return group_json(base, gm, group, counts=counts, inline_resources=inlined)


def groups_of(gm: GroupMapping, inline: Inline, *, scope: ReadScope = EVERYTHING):
    gt = registry_model[gm.plural]
    deep = any(inline.below(gm.v1_plural).wants(rm.v1_plural) for rm in gm.resources)
    return selectors.iter_groups(gt, inline=deep, scope=scope)


def registry_json(
    base: str,
    inline: Inline,
    *,
    doc: bool = False,
    scope: ReadScope = EVERYTHING,
    groups: Callable | None = None,
) -> dict:
    """The registry entity; its groups (counted, inlined) are those `scope` reads; `groups(gm, below)` stands for
    each inlined group collection when given (the export)."""
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
        if inline.wants(gm.v1_plural):
            below = inline.below(gm.v1_plural)
            out[gm.v1_plural] = (
                groups(gm, below)
                if groups is not None
                else {g.gid: render_group(base, gm, g, below, doc=doc) for g in groups_of(gm, inline, scope=scope)}
            )
    return out


def _export_inline() -> Inline:
    """`?doc&inline=*,capabilities,modelsource`."""
    inline = Inline.__new__(Inline)
    inline.all, inline.paths = True, {("capabilities",), ("modelsource",)}
    return inline


def export_json(base: str, scope: ReadScope = EVERYTHING) -> dict:
    """`GET /registry/export`: `?doc&inline=*,capabilities,modelsource` (the groups `scope` reads); `export_chunks`
    writes its JSON."""
    return document_view(registry_json(base, _export_inline(), doc=True, scope=scope), base)


PLACEHOLDER = re.compile(r'\{"\\u0000groups:([^"]*)": 0\}')


def export_chunks(base: str, parts, scope: ReadScope = EVERYTHING) -> Iterator[bytes]:
    """The bytes of `json.dumps(export_json(base, scope), ensure_ascii=False)`, each group written by `parts(variant,
    group type, render, states, scope=)` (registry/http/rendered_groups.py keeps each until its group changes): the
    registry's own members are written as the whole answer would be, with a stand-in for each group collection (an
    object whose only member's name starts with a NUL, which no stored text holds), and the groups in its place.
    A group's links point inside the group only (its resources' `self`, `metaurl`, `defaultversionurl`), so each is
    put in document view alone, at its place in the answer."""
    collections = {}

    def stand_in(gm: GroupMapping, below: Inline) -> dict:
        collections[gm.v1_plural] = (gm, below)
        return {f"\x00groups:{gm.v1_plural}": 0}

    text = json.dumps(
        document_view(registry_json(base, _export_inline(), doc=True, scope=scope, groups=stand_in), base),
        ensure_ascii=False,
    )
    pieces = PLACEHOLDER.split(text)
    spliced = Spliced()
    yield pieces[0].encode()
    for plural, after in zip(pieces[1::2], pieces[2::2], strict=True):
        gm, below = collections[plural]
        gt = registry_model[gm.plural]
        hidden = scope.hidden_ids(gt.plural) if not scope.everything else set()
        states = {gid: state for gid, state in group_states(gt).items() if gid not in hidden}

        def render(group, gm=gm, below=below) -> bytes:
            at = f"/{pointer_token(gm.v1_plural)}/{pointer_token(group.gid)}"
            token = SPLICE.set(spliced)  # the stored JSON documents written as their text
            try:
                data = document_view(render_group(base, gm, group, below, doc=True), base, at=at)
            finally:
                SPLICE.reset(token)
            return f"{json.dumps(group.gid)}: {spliced.dumps(data)}".encode()

        yield b"{"
        first = True
        for _gid, part in parts(("xr10-export", base), gt, render, states, scope=scope):
            yield part if first else b", " + part
            first = False
        yield b"}" + after.encode()
