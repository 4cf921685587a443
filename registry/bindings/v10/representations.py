"""How entities look in the xRegistry 1.0 binding: the registry, groups, resources, `meta` and versions.

Built from already-loaded rows (the selectors of the 0.5 binding load them), nothing here queries. Stored
attributes are translated by the registered mappings (`mapping.py`); server-owned attributes (`xid`, `self`,
`epoch`, `createdat`, `modifiedat`, `isdefault`, `ancestorid`, counts and links) come from the rows; the defaults
the 1.0 model declares are filled in (model_defaults.py), never stored.
`base` is the binding's root URL (`http://host/registry`).
"""

from __future__ import annotations

import base64
from contextvars import ContextVar
from dataclasses import dataclass
from functools import partial

from ...domain.attributes import previous_of, stored_attributes, version_order, version_sort_key
from ...domain.extension_attributes import meta_names
from ...domain.json_text import Spliced, canonical_json, load_json_document
from ...domain.model import applicable_level, registry_model, validation_attributes
from ...http.headers import metadata_headers
from ...http.representation import represent
from ...models import Group, Resource, Version
from ...representations import default_version, is_json_media_type
from .documents import group_to_v10, meta_attribute_names, version_to_v10
from .mapping import NAMES, GroupMapping, ResourceMapping
from .model_defaults import group_model, resource_model, with_defaults

# the order of an entity's members (registry/http/representation.py), in the binding's names (mapping.NAMES)
GROUP = ("id", "self", "epoch", "attributes", "times", "collections")
VERSION = ("id", "versionid", "self", "epoch", "isdefault", "attributes", "validation", "times", "ancestor", "document")
META = ("id", "self", "epoch", "times", "meta")


@dataclass(frozen=True)
class Place:
    """A resource where the 1.0 binding shows it: the binding's root URL (`base`), the mappings of its group type and
    its type, its group and itself; what a resource's, its `meta`'s and its versions' representations start from."""

    base: str
    gm: GroupMapping
    rm: ResourceMapping
    group: Group
    resource: Resource

    @property
    def xid(self) -> str:
        return f"/{self.gm.v1_plural}/{self.group.gid}/{self.rm.v1_plural}/{self.resource.rid}"

    @property
    def url(self) -> str:
        return self.base + self.xid


def group_json(
    base: str, gm: GroupMapping, group: Group, *, counts: dict | None = None, inline_resources: dict | None = None
) -> dict:
    """A group: its id, server attributes, its own attributes in 1.0 names, and per resource type the
    `<RESOURCES>url`/`<RESOURCES>count` (and the collection when `inline_resources` holds it)."""
    xid = f"/{gm.v1_plural}/{group.gid}"
    attributes = with_defaults(group_model(gm.v1_plural), group_to_v10(gm, stored_attributes(group)))
    plurals = [(rm.v1_plural, rm.plural) for rm in gm.resources]
    return represent(
        NAMES, GROUP, group, group.gid, base + xid, singular=gm.v1_singular, xid=xid, attributes=attributes,
        collections=NAMES.collections(base + xid, plurals, group, counts, inline_resources),
    )  # fmt: skip


def ordered(versions) -> list[Version]:
    return sorted(versions, key=version_order)


@dataclass(frozen=True)
class Versions:
    """What a resource's representation shows of its versions: its default version (`representations.default_version`)
    with that version's `ancestorid`, how many it has, and all of them where they were read (None: not read, then
    none is inlined)."""

    default: Version | None
    ancestor: str | None
    count: int
    all: list[Version] | None = None

    @classmethod
    def of(cls, resource: Resource, versions: list[Version]) -> Versions:
        """From all of the resource's versions."""
        default = default_version(resource, versions)
        ancestor = (previous_of(default, versions) or default).vid if default is not None else None
        return cls(default, ancestor, len(versions), versions)


def _version_attributes(rm: ResourceMapping, resource: Resource, version: Version) -> dict:
    """The version's attributes in 1.0 names (resource-level stored attributes first, the version's over them)."""
    meta = meta_attribute_names(rm)
    stored = {k: v for k, v in stored_attributes(resource).items() if k not in meta}
    stored.update(stored_attributes(version))
    if not rm.hasdocument and version.content is not None and not version.resource_uri:
        doc, problem = load_json_document(bytes(version.content))
        if problem is None and isinstance(doc, dict):
            stored.update({k: v for k, v in doc.items() if k != "id"})
    return version_to_v10(rm, stored)


# `?binary` of the request being answered (set by the view, core/spec.md "Binary Flag"): inlined documents as
# `<RESOURCE>base64`, their bytes untouched
BINARY: ContextVar[bool] = ContextVar("xr10_binary", default=False)
# set while an answer is rendered for `Spliced.dumps` (the export, reads.export_chunks): a JSON document stored as
# `json.dumps` writes its value is given by it, written as its stored text
SPLICE: ContextVar[Spliced | None] = ContextVar("xr10_splice", default=None)


def document_members(rm: ResourceMapping, version: Version) -> dict:
    """`<RESOURCE>` (JSON) or `<RESOURCE>base64` of a document resource's version, or `<RESOURCE>url`."""
    if version.resource_uri:
        return {f"{rm.v1_singular}url": version.resource_uri}
    if version.content is None:
        return {}
    content = bytes(version.content)
    if BINARY.get():
        return {f"{rm.v1_singular}base64": base64.b64encode(content).decode()}
    if is_json_media_type(version.media_type):
        canonical = canonical_json(content)  # most are: parsed at C speed
        if canonical is not None:
            splice = SPLICE.get()
            return {rm.v1_singular: splice(canonical[1]) if splice else canonical[0]}
        doc, problem = load_json_document(content)
        if problem is None:
            return {rm.v1_singular: doc}
    else:
        try:  # text (XSD, Protobuf, Avro IDL): a JSON string, as the rc4 documents write it
            return {rm.v1_singular: content.decode("utf-8")}
        except UnicodeDecodeError:
            pass
    return {f"{rm.v1_singular}base64": base64.b64encode(content).decode()}


def version_json(place: Place, version: Version, *, ancestor: str, inline_document=False) -> dict:
    """A version, with its `ancestorid`, which the caller read with it; it is the default (`isdefault`) when the
    resource's `latest` names it (representations.default_version)."""
    gm, rm, resource = place.gm, place.rm, place.resource
    xid = f"{place.xid}/versions/{version.vid}"
    document: dict[str, object] = {}
    if rm.hasdocument:
        if version.media_type and not version.resource_uri:
            document["contenttype"] = version.media_type
        if version.resource_uri or inline_document:  # (a document kept at its URL is named by its URL)
            document.update(document_members(rm, version))
    return represent(
        NAMES, VERSION, version, resource.rid, place.base + xid, singular=rm.v1_singular, xid=xid,
        versionid={"versionid": version.vid},
        isdefault={"isdefault": version.pk == resource.latest_id},
        attributes=with_defaults(resource_model(gm.v1_plural, rm.v1_plural), _version_attributes(rm, resource, version)),
        validation=validation_json(place, version),
        ancestor={"ancestorid": ancestor},
        document=document,
    )  # fmt: skip


def ancestor_ids(versions: list[Version]) -> dict[int, str]:
    """The `ancestorid` of every version, by primary key: the version whose id comes just before its own in the order
    of the latest version (`attributes.version_sort_key`; itself for the first), so that the newest version
    (`versionmode: manual`: the one no other names as its ancestor) is the latest, as every binding serves it. One
    pass over them in that order (`previous_of` for each would read them all, quadratic in the versions: issue 40)."""
    out, previous = {}, None
    for version in sorted(versions, key=lambda v: version_sort_key(v.vid)):
        out[version.pk] = previous.vid if previous is not None else version.vid
        previous = version
    return out


def _level(place: Place, version: Version | None, group_attributes: dict):
    """The resource type, the version's format (the resource's when it names none) and the compatibility level that
    applies to it (registry.domain.model.applicable_level: None when none does)."""
    rt = registry_model[place.gm.plural].resource_type(place.rm.plural)
    resource = place.resource
    own = version.extensions if version is not None else {}
    fmt = own.get("format") or resource.extensions.get("format")
    levels = (own.get("compatibility"), resource.extensions.get("compatibility"), group_attributes.get("compatibility"))
    return rt, fmt, applicable_level(rt, fmt, *levels)


def meta_compatibility(place: Place, default: Version | None, group_attributes: dict) -> str | None:
    """The level `meta` shows: the one that applies (the default version's own, the resource's, the group's, the
    registry's), so that what 1.0 shows is what every door checks; None (not shown) when none applies: a type
    without compatibility rules, a format that offers none, the level `none` (CONTRACT 18). A schema that names
    `none` itself where it would inherit a level shows `none`: the one way a document says so, for exports to
    restore it."""
    rt, fmt, level = _level(place, default, group_attributes)
    own = (default.extensions if default is not None else {}).get("compatibility") or place.resource.extensions.get(
        "compatibility"
    )
    if level is None and own == "none" and applicable_level(rt, fmt, group_attributes.get("compatibility")):
        return "none"
    return level


def validation_json(place: Place, version: Version) -> dict:
    """rc4's `formatvalidated`, `compatibilityvalidated` and their reasons of a version (registry.domain.model)."""
    rt, fmt, level = _level(place, version, place.group.extensions)
    checked = version.compatibility_check
    return validation_attributes(rt, fmt, external=bool(version.resource_uri), level=level, checked=checked)


def meta_json(place: Place, default: Version | None, group_attributes: dict | None = None) -> dict:
    """The resource's `meta`, its default version `default`."""
    resource = place.resource
    out: dict[str, object] = {"readonly": bool(resource.origin)}
    level = meta_compatibility(place, default, place.group.extensions if group_attributes is None else group_attributes)
    if level is not None:
        out["compatibility"] = level
    if default is not None:
        out["defaultversionid"] = default.vid
        out["defaultversionurl"] = f"{place.url}/versions/{default.vid}"
    out["defaultversionsticky"] = bool(resource.extensions.get("defaultversionsticky"))
    if resource.extensions.get("xref"):
        out["xref"] = resource.extensions["xref"]
    for name in meta_names(place.rm.plural):  # those apps register (registry/domain/extension_attributes.py)
        if resource.extensions.get(name) is not None:
            out[name] = resource.extensions[name]
    xid = f"{place.xid}/meta"
    return represent(
        NAMES, META, resource, resource.rid, place.base + xid, singular=place.rm.v1_singular, xid=xid, meta=out
    )


def resource_json(
    place: Place,
    versions: Versions,
    *,
    inline_document: bool = False,
    inline_meta: bool = False,
    inline_versions: bool = False,
    group_attributes: dict | None = None,
) -> dict:
    """A resource with its default version's attributes, `metaurl`, `versionsurl` and `versionscount` (and `meta`,
    `versions` where inlined: `versions.all` read)."""
    default = versions.default
    out: dict[str, object] = {f"{place.rm.v1_singular}id": place.resource.rid}
    one = partial(version_json, place, inline_document=inline_document)
    if default is not None:  # (its id is the resource's: it keeps its place)
        out.update(one(default, ancestor=versions.ancestor or default.vid))
    out.update({"self": place.url, "xid": place.xid, "metaurl": f"{place.url}/meta"})
    if inline_meta:
        out["meta"] = meta_json(place, default, group_attributes)
    inlined = None
    if inline_versions and versions.all is not None:
        ancestors = ancestor_ids(versions.all)
        inlined = {"versions": {v.vid: one(v, ancestor=ancestors[v.pk]) for v in ordered(versions.all)}}
    counts = {"versions": versions.count}
    return {**out, **NAMES.collections(place.url, [("versions", "versions")], place.resource, counts, inlined)}


def document_headers(
    place: Place, version: Version, *, count: int, ancestor: str, resource_form: bool
) -> dict[str, str]:
    """The metadata of a document's version as `xRegistry-*` headers (labels as `xRegistry-labels-KEY`), in the
    form core/http.md gives a resource (`resource_form`: `self` and `xid` the resource's, its `metaurl`,
    `versionsurl` and `versionscount`, `Content-Location` the default version) or a version. `contenttype` is the
    `Content-Type` of the body, not a header of its own; `Content-Disposition` names the resource."""
    data = version_json(place, version, ancestor=ancestor)
    headers = metadata_headers(
        "xRegistry", "labels", {k: v for k, v in data.items() if k != "contenttype"}, percent=True
    )
    if resource_form:
        headers["xRegistry-self"] = place.url
        headers["xRegistry-xid"] = place.xid
        headers["xRegistry-metaurl"] = f"{place.url}/meta"
        headers["xRegistry-versionsurl"] = f"{place.url}/versions"
        headers["xRegistry-versionscount"] = str(count)
        headers["Content-Location"] = data["self"]
    headers["Content-Disposition"] = place.resource.rid
    return headers
