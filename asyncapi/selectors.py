"""Reads of the AsyncAPI import: what an import keeps of the store (the export's reads are in export_reads.py).

Attributes an AsyncAPI document never carries (labels, documentation, owners, a schema's compatibility level,
deprecation, ...) stay as they are stored when the document is imported again; a payload whose schema equals the
stored latest version adds no version, whatever `info.version` says. What the document says as the store already
has it is written as the store has it (the order of a message's or schema's keys, a schema's format named by its
version rather than by the schema), so that an import that changes nothing writes nothing (CONTRACT section 16):
the services compare what is written with what is stored byte for byte.
"""

from __future__ import annotations

import json

from catalog.validators.format_names import same_format
from registry.domain.attributes import stored_attributes
from registry.models import Group, Resource, Version
from registry.representations import is_json_media_type
from registry.services.versions import resource_attributes, version_attributes

OWNED = {  # the attributes an AsyncAPI document decides, present or not
    "definitionGroups": {"id", "name", "description", "format", "definitions", "asyncapibindings"},
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
    "asyncapibindings",
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


def like(value, stored):
    """`value` with the keys of each of its objects in the order the stored value has them (its other keys after):
    JSON equal to what is stored is then written as the same bytes."""
    if isinstance(value, dict) and isinstance(stored, dict):
        keys = [k for k in stored if k in value] + [k for k in value if k not in stored]
        return {k: like(value[k], stored.get(k)) for k in keys}
    if isinstance(value, list) and isinstance(stored, list) and len(value) == len(stored):
        return [like(v, s) for v, s in zip(value, stored, strict=True)]
    return value


def _replace(entry: dict, value: dict) -> None:
    entry.clear()
    entry.update(value)


def _keep(stored: dict, data: dict, owned: set) -> None:
    for key, value in stored.items():
        if key not in owned and key not in data:
            data[key] = value


def _chunks(values: list, size: int = 500):
    for start in range(0, len(values), size):
        yield values[start : start + size]


def with_stored_state(doc: dict, *, exported_endpoints: set[str] = frozenset()) -> None:
    """Complete a mapped registry document (in place) with what the store holds that the AsyncAPI document does
    not decide, and drop payload versions equal to their schema's latest stored version. A few queries whatever
    the number of groups (a thousand channels are a thousand groups)."""
    for plural, owned in OWNED.items():
        groups = doc.get(plural) or {}
        stored = {}
        for chunk in _chunks(list(groups)):
            stored.update({g.gid: g for g in Group.objects.filter(group_type=plural, gid__in=chunk)})
        for gid, group in stored.items():
            attributes = stored_attributes(group)
            _keep(attributes, groups[gid], owned)
            if plural == "endpoints":
                _same_groups_as_stored(groups[gid], attributes, gid in exported_endpoints)
        if plural == "schemaGroups":
            _schemas(stored, groups)
        elif plural == "definitionGroups":
            _definitions(stored, groups)


def _same_groups_as_stored(endpoint: dict, stored: dict, exported: bool) -> None:
    """An endpoint's message groups in their stored order when they are the stored ones (a list that says a set);
    an endpoint an export described (`exported`) keeps the stored ones the document does not name."""
    written, kept = endpoint.get("definitionGroups"), stored.get("definitionGroups")
    if not (isinstance(written, list) and isinstance(kept, list)):
        return
    if exported:
        endpoint["definitionGroups"] = kept + [g for g in written if g not in kept]
    elif sorted(map(str, written)) == sorted(map(str, kept)):
        endpoint["definitionGroups"] = kept


def _resources(stored: dict[str, Group], groups: dict, rplural: str):
    """The stored resources of type `rplural` that the document's groups hold, with their latest version."""
    by_pk = {group.pk: gid for gid, group in stored.items()}
    for chunk in _chunks(list(by_pk)):
        rows = Resource.objects.filter(group_id__in=chunk, resource_type=rplural).select_related("latest")
        for resource in rows:
            entries = groups[by_pk[resource.group_id]].get(rplural) or {}
            if resource.rid in entries:
                yield resource, entries[resource.rid]


def _as_stored(entry: dict, version: dict, stored: Version, resource_format: str | None) -> None:
    """A schema and its version that the store holds, written as stored where they say the same: the format where
    the store names it (the version, or the schema), the schema document's keys in its stored order."""
    fmt = entry.get("format")
    version_format = stored.extensions.get("format")
    if isinstance(fmt, str):
        if resource_format and same_format(resource_format, fmt):
            entry["format"] = resource_format
        elif not resource_format and version_format and same_format(version_format, fmt):
            del entry["format"]
            version["format"] = version_format
    if isinstance(version.get("schema"), dict | list) and is_json_media_type(stored.media_type):
        version["schema"] = like(version["schema"], _json(stored))


def _schemas(stored: dict[str, Group], groups: dict) -> None:
    found = list(_resources(stored, groups, "schemas"))
    vids: dict[int, set[str]] = {}
    for chunk in _chunks([resource.pk for resource, _ in found]):
        for pk, vid in Version.objects.filter(resource_id__in=chunk).values_list("resource_id", "vid"):
            vids.setdefault(pk, set()).add(vid.lower())
    written = sorted({(resource.pk, vid) for resource, entry in found for vid in (entry.get("versions") or {})})
    versions: dict[tuple[int, str], Version] = {}  # the stored versions the document writes again
    for chunk in _chunks(written):
        pks, names = {pk for pk, _ in chunk}, {vid for _, vid in chunk}
        for version in Version.objects.filter(resource_id__in=pks, vid__in=names):
            versions[version.resource_id, version.vid.lower()] = version
    for resource, entry in found:
        attrs = resource_attributes(resource)
        _keep(attrs, entry, SCHEMA_OWNED)
        latest = resource.latest
        if latest is None or len(entry.get("versions") or {}) != 1:
            continue
        ((vid, version),) = entry["versions"].items()
        if vid.lower() in vids.get(resource.pk, set()):
            # that version is written as the document has it (an update goes through the usual checks), in the
            # stored spelling where it says the same
            if (resource.pk, vid.lower()) in versions:
                _as_stored(entry, version, versions[resource.pk, vid.lower()], attrs.get("format"))
            continue
        stored_format = latest.extensions.get("format") or attrs.get("format")
        if _same_schema(latest, stored_format, entry.get("format") or "", version.get("schema")):
            entry["versions"] = {}


def _definitions(stored: dict[str, Group], groups: dict) -> None:
    for resource, entry in _resources(stored, groups, "definitions"):
        document = _json(resource.latest)
        if isinstance(document, dict):
            _keep({**version_attributes(resource.latest), **document}, entry, DEFINITION_OWNED)
            _replace(entry, like(entry, document))


def stored_versions(sg: str, sids: list[str]) -> dict[str, set[str]]:
    """The stored schemas of schema group `sg` among `sids`, each with its version ids (lower case)."""
    out: dict[str, set[str]] = {}
    rows = Version.objects.filter(
        resource__group__group_type="schemaGroups", resource__group__gid=sg, resource__resource_type="schemas"
    ).filter(resource__rid__in=sids)
    for rid, vid in rows.values_list("resource__rid", "vid"):
        out.setdefault(rid, set()).add(vid.lower())
    return out
