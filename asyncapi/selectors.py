"""Reads of the AsyncAPI app: what an import keeps of the store, and what an export needs from it.

Import (`with_stored_state`): attributes an AsyncAPI document never carries (labels, documentation, owners, a
schema's compatibility level, deprecation, ...) stay as they are stored when the document is imported again; and a
payload whose schema equals the stored latest version adds no version, whatever `info.version` says.

Export (`message_group`, `endpoint`): groups, messages (xRegistry 1.0 shape) and the schema versions they use.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from catalog.validators.format_names import same_format
from catalog.xr10 import definition_to_v10, group_to_v10
from endpoints.xr10 import endpoint_to_v10
from registry.attributes import stored_attributes
from registry.errors import Problem, not_found
from registry.models import Group, Resource, Version
from registry.references import resolve
from registry.representations import is_json_media_type
from registry.services.versions import resource_attributes, version_attributes

OWNED = {  # the attributes an AsyncAPI document decides, present or not
    "definitionGroups": {"id", "name", "description", "format", "definitions"},
    "schemaGroups": {"id", "schemas"},
    "endpoints": {"id", "name", "description", "usage", "config", "format", "definitionGroups"},
}
SCHEMA_OWNED = {"id", "format", "versions"}
DEFINITION_OWNED = {
    "id",
    "name",
    "description",
    "format",
    "metadata",
    "schemaformat",
    "schema",
    "schemaurl",
    "protocol",
    "protocoloptions",
    "envelopemetadata",
    "datacontenttype",
    "correlationid",
}


def _json(version: Version):
    if version is None or version.content is None:
        return None
    try:
        return json.loads(bytes(version.content))
    except ValueError:
        return None


def _same_schema(version: Version, stored_format: str | None, fmt: str, document) -> bool:
    if version.content is None or not (stored_format and same_format(stored_format, fmt)):
        return False
    content = bytes(version.content)
    if isinstance(document, str):
        return content.decode("utf-8", "replace") == document
    return is_json_media_type(version.media_type) and _json(version) == document


def _keep(stored: dict, data: dict, owned: set) -> None:
    for key, value in stored.items():
        if key not in owned and key not in data:
            data[key] = value


def with_stored_state(doc: dict) -> None:
    """Complete a mapped registry document (in place) with what the store holds that the AsyncAPI document does
    not decide, and drop payload versions equal to their schema's latest stored version."""
    for plural, owned in OWNED.items():
        groups = doc.get(plural) or {}
        if not groups:
            continue
        stored = {g.gid: g for g in Group.objects.filter(group_type=plural, gid__in=list(groups))}
        for gid, data in groups.items():
            group = stored.get(gid)
            if group is None:
                continue
            _keep(stored_attributes(group), data, owned)
            if plural == "schemaGroups":
                _schemas(group, data.get("schemas") or {})
            elif plural == "definitionGroups":
                _definitions(group, data.get("definitions") or {})


def _schemas(group: Group, schemas: dict) -> None:
    for resource in Resource.objects.filter(group=group, resource_type="schemas", rid__in=list(schemas)).select_related(
        "latest"
    ):
        entry = schemas[resource.rid]
        attrs = resource_attributes(resource)
        _keep(attrs, entry, SCHEMA_OWNED)
        latest = resource.latest
        if latest is None or len(entry.get("versions") or {}) != 1:
            continue
        ((vid, version),) = entry["versions"].items()
        if Version.objects.filter(resource=resource, vid__iexact=vid).exists():
            continue  # that version is written as the document has it (an update goes through the usual checks)
        stored_format = latest.extensions.get("format") or attrs.get("format")
        if _same_schema(latest, stored_format, entry.get("format") or "", version.get("schema")):
            entry["versions"] = {}


def _definitions(group: Group, definitions: dict) -> None:
    rows = Resource.objects.filter(group=group, resource_type="definitions", rid__in=list(definitions))
    for resource in rows.select_related("latest"):
        stored = _json(resource.latest)
        if isinstance(stored, dict):
            _keep({**version_attributes(resource.latest), **stored}, definitions[resource.rid], DEFINITION_OWNED)


def stored_versions(sg: str, sids: list[str]) -> dict[str, set[str]]:
    """The stored schemas of schema group `sg` among `sids`, each with its version ids (lower case)."""
    out: dict[str, set[str]] = {}
    rows = Version.objects.filter(
        resource__group__group_type="schemaGroups", resource__group__gid=sg, resource__resource_type="schemas"
    ).filter(resource__rid__in=sids)
    for rid, vid in rows.values_list("resource__rid", "vid"):
        out.setdefault(rid, set()).add(vid.lower())
    return out


COMMON_V10 = {"name": "name", "description": "description", "tags": "labels", "docs": "documentation"}


def common_v10(attrs: dict) -> dict:
    """The common attributes (name, description, labels, documentation) of stored attributes, in 1.0 names."""
    return {new: attrs[old] for old, new in COMMON_V10.items() if attrs.get(old) not in (None, "", {})}


# export ---------------------------------------------------------------------------------------------------------


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


def schema_version(reference: str, base_urls) -> SchemaVersion | None:
    """The stored schema version a message's `dataschemauri` names (its latest when no version is named)."""
    path = resolve(reference, base_urls)
    if not path:
        return None
    parts = path.split(":", 1)[0].strip("/").split("/")
    if len(parts) not in (4, 6) or parts[0] != "schemaGroups" or parts[2] != "schemas":
        return None
    resource = (
        Resource.objects.filter(
            group__group_type="schemaGroups", group__gid=parts[1], resource_type="schemas", rid=parts[3]
        )
        .select_related("latest", "group")
        .first()
    )
    if resource is None:
        return None
    version = resource.latest if len(parts) == 4 else Version.objects.filter(resource=resource, vid=parts[5]).first()
    if version is None or (version.content is None and not version.resource_uri):
        return None
    fmt = version.extensions.get("format") or resource.extensions.get("format")
    document = _json(version) if is_json_media_type(version.media_type) else None
    if document is None and version.content is not None:
        document = bytes(version.content).decode("utf-8", "replace")
    return SchemaVersion(
        path=f"/schemagroups/{parts[1]}/schemas/{parts[3]}/versions/{version.vid}",
        group=resource.group.gid,
        schema=resource.rid,
        version=version.vid,
        format=fmt,
        document=document,
        uri=version.resource_uri if version.content is None else None,
        metadata=common_v10(version_attributes(version)),
        group_attributes=common_v10(stored_attributes(resource.group)),
    )


def message_group(gid: str, base_urls=()) -> MessageGroup:
    """A message group with its messages and their payload schemas; Problem 404 when there is none."""
    group = Group.objects.filter(group_type="definitionGroups", gid=gid).first()
    if group is None:
        raise not_found(f"/messagegroups/{gid}")
    out = MessageGroup(gid=group.gid, attributes=group_to_v10(stored_attributes(group)))
    for resource in Resource.objects.filter(group=group, resource_type="definitions").select_related("latest"):
        document = _json(resource.latest)
        if not isinstance(document, dict):
            continue
        # the shared attributes (name, description, tags, docs) are the version's, the rest its document
        document = {**version_attributes(resource.latest), **document}
        message = definition_to_v10({k: v for k, v in document.items() if k != "id"})
        out.messages[resource.rid] = message
        reference = message.get("dataschemauri")
        if isinstance(reference, str):
            found = schema_version(reference, base_urls)
            if found is not None:
                out.schemas[resource.rid] = found
    return out


def endpoint(eid: str, base_urls=()) -> Endpoint:
    """An endpoint with the message groups it references (those that exist)."""
    group = Group.objects.filter(group_type="endpoints", gid=eid).first()
    if group is None:
        raise not_found(f"/endpoints/{eid}")
    stored = stored_attributes(group)
    out = Endpoint(eid=group.gid, attributes=endpoint_to_v10(stored))
    references = stored.get("definitionGroups")
    for reference in references if isinstance(references, list) else []:
        path = resolve(reference, base_urls) if isinstance(reference, str) else None
        parts = (path or "").strip("/").split("/")
        if len(parts) == 2 and parts[0] == "definitionGroups":
            try:
                out.groups.append(message_group(parts[1], base_urls))
            except Problem:  # a dangling reference (the spec allows them) exports nothing
                continue
    return out


def endpoints_of(gid: str, base_urls=()) -> list[Endpoint]:
    """The endpoints that reference the message group `gid` (their own attributes; no groups)."""
    out = []
    for group in Group.objects.filter(group_type="endpoints").order_by("gid"):
        stored = stored_attributes(group)
        references = stored.get("definitionGroups")
        for reference in references if isinstance(references, list) else []:
            if isinstance(reference, str) and resolve(reference, base_urls) == f"/definitionGroups/{gid}":
                out.append(Endpoint(eid=group.gid, attributes=endpoint_to_v10(stored)))
                break
    return out
