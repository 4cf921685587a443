"""Reads of the AsyncAPI import: what an import keeps of the store (the export's reads are in export_reads.py).

Attributes an AsyncAPI document never carries (labels, documentation, owners, a schema's compatibility level,
deprecation, ...) stay as they are stored when the document is imported again; a payload whose schema equals the
stored latest version adds no version, whatever `info.version` says.
"""

from __future__ import annotations

import json

from catalog.validators.format_names import same_format
from registry.attributes import stored_attributes
from registry.models import Group, Resource, Version
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


def _chunks(values: list, size: int = 500):
    for start in range(0, len(values), size):
        yield values[start : start + size]


def with_stored_state(doc: dict) -> None:
    """Complete a mapped registry document (in place) with what the store holds that the AsyncAPI document does
    not decide, and drop payload versions equal to their schema's latest stored version. A few queries whatever
    the number of groups (a thousand channels are a thousand groups)."""
    for plural, owned in OWNED.items():
        groups = doc.get(plural) or {}
        stored = {}
        for chunk in _chunks(list(groups)):
            stored.update({g.gid: g for g in Group.objects.filter(group_type=plural, gid__in=chunk)})
        for gid, group in stored.items():
            _keep(stored_attributes(group), groups[gid], owned)
        if plural == "schemaGroups":
            _schemas(stored, groups)
        elif plural == "definitionGroups":
            _definitions(stored, groups)


def _resources(stored: dict[str, Group], groups: dict, rplural: str):
    """The stored resources of type `rplural` that the document's groups hold, with their latest version."""
    by_pk = {group.pk: gid for gid, group in stored.items()}
    for chunk in _chunks(list(by_pk)):
        rows = Resource.objects.filter(group_id__in=chunk, resource_type=rplural).select_related("latest")
        for resource in rows:
            entries = groups[by_pk[resource.group_id]].get(rplural) or {}
            if resource.rid in entries:
                yield resource, entries[resource.rid]


def _schemas(stored: dict[str, Group], groups: dict) -> None:
    found = list(_resources(stored, groups, "schemas"))
    vids: dict[int, set[str]] = {}
    for chunk in _chunks([resource.pk for resource, _ in found]):
        for pk, vid in Version.objects.filter(resource_id__in=chunk).values_list("resource_id", "vid"):
            vids.setdefault(pk, set()).add(vid.lower())
    for resource, entry in found:
        attrs = resource_attributes(resource)
        _keep(attrs, entry, SCHEMA_OWNED)
        latest = resource.latest
        if latest is None or len(entry.get("versions") or {}) != 1:
            continue
        ((vid, version),) = entry["versions"].items()
        if vid.lower() in vids.get(resource.pk, set()):
            continue  # that version is written as the document has it (an update goes through the usual checks)
        stored_format = latest.extensions.get("format") or attrs.get("format")
        if _same_schema(latest, stored_format, entry.get("format") or "", version.get("schema")):
            entry["versions"] = {}


def _definitions(stored: dict[str, Group], groups: dict) -> None:
    for resource, entry in _resources(stored, groups, "definitions"):
        document = _json(resource.latest)
        if isinstance(document, dict):
            _keep({**version_attributes(resource.latest), **document}, entry, DEFINITION_OWNED)


def stored_versions(sg: str, sids: list[str]) -> dict[str, set[str]]:
    """The stored schemas of schema group `sg` among `sids`, each with its version ids (lower case)."""
    out: dict[str, set[str]] = {}
    rows = Version.objects.filter(
        resource__group__group_type="schemaGroups", resource__group__gid=sg, resource__resource_type="schemas"
    ).filter(resource__rid__in=sids)
    for rid, vid in rows.values_list("resource__rid", "vid"):
        out.setdefault(rid, set()).add(vid.lower())
    return out
