"""Reads of the AsyncAPI export: message groups with their messages (xRegistry 1.0 shape) and the schema versions
their payloads name, endpoints with the groups they reference, and the endpoints that reference a group.

Batched: a few queries for any number of groups (the groups, their messages with their latest versions, the
schemas named, the versions named), and the endpoints read once per export, so that exporting a thousand groups
costs as many queries as exporting one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from catalog.xr10 import definition_to_v10, group_to_v10
from endpoints.xr10 import endpoint_to_v10
from registry.domain.attributes import stored_attributes
from registry.domain.errors import not_found
from registry.domain.references import resolve
from registry.models import Group, Resource, Version
from registry.representations import is_json_media_type
from registry.services.versions import version_attributes

CHUNK = 500  # ids per query
COMMON_V10 = {"name": "name", "description": "description", "tags": "labels", "docs": "documentation"}


def common_v10(attrs: dict) -> dict:
    """The common attributes (name, description, labels, documentation) of stored attributes, in 1.0 names."""
    return {new: attrs[old] for old, new in COMMON_V10.items() if attrs.get(old) not in (None, "", {})}


@dataclass
class SchemaVersion:
    path: str  # /schemagroups/G/schemas/S/versions/V
    group: str
    schema: str
    version: str
    format: str | None
    document: object  # JSON value, or text; None when the version is stored elsewhere
    uri: str | None = None  # where the version is stored, when not here (its RESOURCEURI)
    metadata: dict = field(default_factory=dict)  # the version's name, description, labels, documentation (1.0)
    group_attributes: dict = field(default_factory=dict)  # its schema group's (1.0 names)


@dataclass
class MessageGroup:
    gid: str
    attributes: dict  # 1.0 names
    messages: dict[str, dict] = field(default_factory=dict)  # id -> 1.0 attributes
    schemas: dict[str, SchemaVersion] = field(default_factory=dict)  # message id -> its payload schema


@dataclass
class Endpoint:
    eid: str
    attributes: dict  # 1.0 names
    groups: list[MessageGroup] = field(default_factory=list)
    references: list[str] = field(default_factory=list)  # ids of the message groups it references


def _chunks(values: list):
    for start in range(0, len(values), CHUNK):
        yield values[start : start + CHUNK]


def _json(version: Version | None):
    if version is None or version.content is None:
        return None
    try:
        return json.loads(bytes(version.content))
    except ValueError:
        return None


def _schema_target(reference: str, base_urls) -> tuple[str, str, str | None] | None:
    """(schema group, schema, version or None) a `dataschemauri` names in this registry."""
    path = resolve(reference, base_urls)
    if not path:
        return None
    parts = path.split(":", 1)[0].strip("/").split("/")
    if len(parts) not in (4, 6) or parts[0] != "schemaGroups" or parts[2] != "schemas":
        return None
    return parts[1], parts[3], parts[5] if len(parts) == 6 else None


def schema_versions(references: set[str], base_urls) -> dict[str, SchemaVersion]:
    """The stored schema version each reference names (its schema's latest when it names no version)."""
    targets = {ref: t for ref in references if (t := _schema_target(ref, base_urls)) is not None}
    wanted = {(sg, sid) for sg, sid, _ in targets.values()}
    resources = {}
    for chunk in _chunks(sorted({sid for _, sid in wanted})):
        rows = Resource.objects.filter(
            group__group_type="schemaGroups", resource_type="schemas", rid__in=chunk
        ).select_related("latest", "group")
        for resource in rows:
            if (resource.group.gid, resource.rid) in wanted:
                resources[resource.group.gid, resource.rid] = resource
    named = {(resources[sg, sid].pk, vid) for sg, sid, vid in targets.values() if vid and (sg, sid) in resources}
    versions = {}
    for chunk in _chunks(sorted(named)):
        pks, vids = {pk for pk, _ in chunk}, {vid for _, vid in chunk}
        for version in Version.objects.filter(resource_id__in=pks, vid__in=vids):
            versions[version.resource_id, version.vid] = version
    out = {}
    for ref, (sg, sid, vid) in targets.items():
        resource = resources.get((sg, sid))
        if resource is None:
            continue
        version = versions.get((resource.pk, vid)) if vid else resource.latest
        if version is None or (version.content is None and not version.resource_uri):
            continue
        document = _json(version) if is_json_media_type(version.media_type) else None
        if document is None and version.content is not None:
            document = bytes(version.content).decode("utf-8", "replace")
        out[ref] = SchemaVersion(
            path=f"/schemagroups/{sg}/schemas/{sid}/versions/{version.vid}",
            group=resource.group.gid,
            schema=resource.rid,
            version=version.vid,
            format=version.extensions.get("format") or resource.extensions.get("format"),
            document=document,
            uri=version.resource_uri if version.content is None else None,
            metadata=common_v10(version_attributes(version)),
            group_attributes=common_v10(stored_attributes(resource.group)),
        )
    return out


def message_groups(gids: list[str], base_urls=(), *, missing_ok: bool = False) -> list[MessageGroup]:
    """Message groups with their messages and payload schemas, in the order asked; Problem 404 naming the first
    that does not exist (unless `missing_ok`: a dangling reference exports nothing)."""
    rows = {}
    for chunk in _chunks(list(dict.fromkeys(gids))):
        for group in Group.objects.filter(group_type="definitionGroups", gid__in=chunk):
            rows[group.gid] = group
    for gid in gids:
        if gid not in rows and not missing_ok:
            raise not_found(f"/messagegroups/{gid}")
    groups = {gid: MessageGroup(gid=gid, attributes=group_to_v10(stored_attributes(g))) for gid, g in rows.items()}
    references = {}
    for chunk in _chunks(list(rows.values())):
        resources = Resource.objects.filter(group__in=chunk, resource_type="definitions").select_related(
            "latest", "group"
        )
        for resource in resources.order_by("rid"):
            document = _json(resource.latest)
            if not isinstance(document, dict):
                continue
            # the shared attributes (name, description, tags, docs) are the version's, in their 1.0 names (labels,
            # documentation), the rest its document
            shared = {COMMON_V10.get(k, k): v for k, v in version_attributes(resource.latest).items()}
            document = {**shared, **document}
            message = definition_to_v10({k: v for k, v in document.items() if k != "id"})
            groups[resource.group.gid].messages[resource.rid] = message
            if isinstance(message.get("dataschemauri"), str):
                references[resource.group.gid, resource.rid] = message["dataschemauri"]
    found = schema_versions(set(references.values()), base_urls)
    for (gid, rid), reference in references.items():
        if reference in found:
            groups[gid].schemas[rid] = found[reference]
    return [groups[gid] for gid in dict.fromkeys(gids) if gid in groups]


def _endpoint(group: Group, base_urls) -> Endpoint:
    stored = stored_attributes(group)
    references = stored.get("definitionGroups")
    gids = []
    for reference in references if isinstance(references, list) else []:
        path = resolve(reference, base_urls) if isinstance(reference, str) else None
        parts = (path or "").strip("/").split("/")
        if len(parts) == 2 and parts[0] == "definitionGroups":
            gids.append(parts[1])
    return Endpoint(eid=group.gid, attributes=endpoint_to_v10(stored), references=gids)


def endpoints(eids: list[str], base_urls=()) -> list[Endpoint]:
    """Endpoints with the message groups they reference (those that exist); Problem 404 for one that does not."""
    rows = {g.gid: g for g in Group.objects.filter(group_type="endpoints", gid__in=eids)}
    for eid in eids:
        if eid not in rows:
            raise not_found(f"/endpoints/{eid}")
    out = [_endpoint(rows[eid], base_urls) for eid in dict.fromkeys(eids)]
    wanted = [gid for endpoint in out for gid in endpoint.references]
    groups = {g.gid: g for g in message_groups(wanted, base_urls, missing_ok=True)}
    for endpoint in out:
        endpoint.groups = [groups[gid] for gid in dict.fromkeys(endpoint.references) if gid in groups]
    return out


def endpoints_by_group(base_urls=()) -> dict[str, list[Endpoint]]:
    """Every endpoint (its own attributes), by the id of each message group it references."""
    out: dict[str, list[Endpoint]] = {}
    for group in Group.objects.filter(group_type="endpoints").order_by("gid"):
        endpoint = _endpoint(group, base_urls)
        for gid in dict.fromkeys(endpoint.references):
            out.setdefault(gid, []).append(endpoint)
    return out


def readable(scope, groups: list[MessageGroup], endpoints: list[Endpoint], referrers: dict[str, list[Endpoint]]):
    """With public reads off, what an export may hold for a caller who reads `scope` (registry/access/read_scope.py): the
    groups and endpoints it names are checked by the view; what they lead to in groups the caller may not read (an
    endpoint's message groups, a referencing endpoint, a payload schema) is left out."""
    if scope.everything:
        return
    for group in [*groups, *(g for endpoint in endpoints for g in endpoint.groups)]:
        group.schemas = {rid: s for rid, s in group.schemas.items() if not scope.hides(f"/schemaGroups/{s.group}")}
    for endpoint in endpoints:
        endpoint.groups = [g for g in endpoint.groups if not scope.hides(f"/definitionGroups/{g.gid}")]
        endpoint.references = [gid for gid in endpoint.references if not scope.hides(f"/definitionGroups/{gid}")]
    for gid, referencing in referrers.items():
        referrers[gid] = [e for e in referencing if not scope.hides(f"/endpoints/{e.eid}")]
