"""How the 0.5-wip binding shows entities: the JSON of groups, resources and versions, and `Registry-*` headers.

Built from already-loaded rows: nothing here queries the database.
"""

from __future__ import annotations

import base64
from collections.abc import Callable

from ...domain.attributes import version_order
from ...domain.json_text import canonical_json, load_json_document
from ...domain.model import GroupType, ResourceType
from ...http.headers import metadata_headers
from ...http.representation import STORE, represent
from ...models import Group, Resource, Version
from ...representations import default_version, is_json_media_type, merged_attributes, shared_document

Splice = Callable[[str], str]  # json_text.Spliced: a stored document's text -> what stands for it in the value

# the order of an entity's members (registry/http/representation.py); names are the store's (`STORE`)
GROUP = ("id", "attributes", "epoch", "self", "times", "collections")
VERSION = ("id", "attributes", "version", "epoch", "self", "times", "uri")


def _common(entity, default_name: str) -> dict:
    out = {"name": entity.name or default_name}
    if entity.description:
        out["description"] = entity.description
    if entity.tags:
        out["tags"] = entity.tags
    if entity.docs:
        out["docs"] = entity.docs
    return out


def group_url(base: str, group: Group) -> str:
    return f"{base}/{group.group_type}/{group.gid}"


def group_json(base: str, gt: GroupType, group: Group, inline: bool = False, splice: Splice | None = None) -> dict:
    """`splice`: see `document_value`."""
    url = group_url(base, group)
    inlined = None
    if inline:
        inlined = {
            rt.plural: {
                r.rid: resource_json(base, rt, r, group=group, inline=True, splice=splice)
                for r in getattr(group, f"inline_{rt.plural}", [])
            }
            for rt in gt.resources
        }
    plurals = [(rt.plural, rt.plural) for rt in gt.resources]
    attributes = {**_common(group, group.gid), **group.extensions}
    collections = STORE.collections(url, plurals, group, inlined=inlined)
    return represent(STORE, GROUP, group, group.gid, url, attributes=attributes, collections=collections)


def resource_url(base: str, resource: Resource, group: Group | None = None) -> str:
    group = group or resource.group
    return f"{group_url(base, group)}/{resource.resource_type}/{resource.rid}"


def version_meta(base: str, rt: ResourceType, resource: Resource, version: Version, group: Group | None = None) -> dict:
    """The `?meta` view of one version: `id` is the resource id, `version` the version id."""
    attrs = merged_attributes(resource, version)
    attributes = {"name": attrs.pop("name", resource.rid)}
    for key in ("description", "tags", "docs"):
        if key in attrs:
            attributes[key] = attrs.pop(key)
    attributes.update(attrs)
    url = f"{resource_url(base, resource, group)}/versions/{version.vid}"
    uri = {rt.uri_attribute: version.resource_uri} if version.resource_uri else {}
    version_id = {"version": version.vid}
    return represent(STORE, VERSION, version, resource.rid, url, attributes=attributes, version=version_id, uri=uri)


def document_value(rt: ResourceType, resource: Resource, version: Version, splice: Splice | None = None) -> dict:
    """`RESOURCE` (parsed JSON) or `RESOURCEBase64` (text) for inlining; nothing with a RESOURCEURI. `splice`
    (json_text.Spliced, when the answer is written by its `dumps`): a document stored as `json.dumps` writes its
    value is given by it, to be written as its stored text."""
    if version.resource_uri or version.content is None:
        return {}
    content = bytes(version.content)
    if rt.shared_attributes or is_json_media_type(version.media_type):
        # whatever was stored (before today's write-time checks too) exports: what does not parse strictly,
        # nests too deep or holds text JSON output cannot carry is inlined as base64 instead
        canonical = canonical_json(content)  # most are: parsed at C speed, and spliced when it can be
        if canonical is not None and splice is not None and not rt.shared_attributes:
            return {rt.singular: splice(canonical[1])}
        doc, problem = (canonical[0], None) if canonical is not None else load_json_document(content)
        if problem is None:
            if rt.shared_attributes and isinstance(doc, dict):
                doc = shared_document(resource, version, doc)
            return {rt.singular: doc}
    return {rt.base64_attribute: base64.b64encode(content).decode()}


def resource_json(
    base: str,
    rt: ResourceType,
    resource: Resource,
    group: Group | None = None,
    inline: bool = False,
    version: Version | None = None,
    splice: Splice | None = None,
) -> dict:
    """A resource as listed: the latest version's metadata plus `versionsURL`/`versionsCount`;
    with inline, the document and the `versions` map (`splice`: see `document_value`)."""
    versions = getattr(resource, "all_versions", None)
    if version is None:  # (prefetched: taken from them rather than queried per resource)
        version = default_version(resource, versions)
    url = resource_url(base, resource, group)
    if version is None:  # no write path leaves one, but one that exists (older data) still reads
        return {"id": resource.rid, "self": url, "versionsURL": f"{url}/versions", "versionsCount": 0}
    out = version_meta(base, rt, resource, version, group)
    out["versionsURL"] = f"{url}/versions"
    out["versionsCount"] = getattr(resource, "versions_count", len(versions or []))
    if inline:
        out.update(document_value(rt, resource, version, splice))
        if versions is not None:
            ordered = sorted(versions, key=version_order)
            out["versions"] = {v.vid: version_json(base, rt, resource, v, group, True, splice) for v in ordered}
    return out


def version_json(
    base: str,
    rt: ResourceType,
    resource: Resource,
    version: Version,
    group: Group | None = None,
    inline: bool = False,
    splice: Splice | None = None,
) -> dict:
    out = version_meta(base, rt, resource, version, group)
    if inline:
        out.update(document_value(rt, resource, version, splice))
    return out


def registry_headers(meta: dict) -> dict[str, str]:
    """Every scalar metadata attribute as a `Registry-ATTR` header; tags as `Registry-tags-KEY`."""
    return metadata_headers("Registry", "tags", meta)
