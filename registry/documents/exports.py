"""Export: the registry (or one group) as a registry document, the shape import reads.

Only stored values are written (no epochs, timestamps or links), references exactly as written, so that
importing an export changes nothing.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator

from ..access.read_scope import EVERYTHING, ReadScope
from ..domain.attributes import stored_attributes, version_order
from ..domain.json_text import Spliced, canonical_json, exportable, json_document_problem, load_json_document
from ..domain.model import GroupType, ResourceType, registry_model
from ..models import Group, Resource, Version
from ..representations import is_json_media_type
from ..store import selectors
from .formats import SCHEMA_URI, dump_document

SPEC_VERSION = "0.5-wip"


def _document_member(rt: ResourceType, version: Version, splice: Callable[[str], str] | None = None) -> dict:
    """The version's document as an export holds it; a JSON one written as `json.dumps` would write it is given by
    `splice` (its stored text for `Spliced.dumps`, the bytes of the same answer) when given."""
    if version.resource_uri:
        return {rt.uri_attribute: version.resource_uri}
    if version.content is None:
        return {}
    content = bytes(version.content)
    if is_json_media_type(version.media_type):
        canonical = canonical_json(content)  # most are: parsed at C speed, no check and no dump again
        if canonical is not None:
            return {rt.singular: splice(canonical[1]) if splice else canonical[0]}
        # a stored document that does not parse strictly or could not be written as JSON is exported as text
        value, _problem = load_json_document(content)  # parsed once (was: once to check, once to read)
        # an object only when importing it again gives the same bytes (round trip)
        if value is not None and json.dumps(value, ensure_ascii=False).encode() == content:
            return {rt.singular: value}
    try:
        return {rt.singular: content.decode("utf-8")}
    except UnicodeDecodeError:
        return {rt.base64_attribute: base64.b64encode(content).decode()}


def _shared_resource(rt: ResourceType, resource: Resource, versions: list[Version]) -> dict:
    """A resource whose document carries its metadata (a definition): one flat object."""
    latest = versions[-1]
    out = {"id": resource.rid, **stored_attributes(resource), **stored_attributes(latest)}
    for key in rt.document_attributes:  # read back from the document itself below
        out.pop(key, None)
    if latest.resource_uri:
        out[rt.uri_attribute] = latest.resource_uri
    elif latest.content:
        try:
            doc = json.loads(bytes(latest.content))
        except (ValueError, RecursionError):
            doc = None
        if doc is not None and json_document_problem(bytes(latest.content)):
            doc = exportable(doc)  # stored before the write-time checks: repaired so that the export is JSON
        if isinstance(doc, dict):
            out.update({k: v for k, v in doc.items() if k not in out})
    return out


def _versioned_resource(rt: ResourceType, resource: Resource, versions: list[Version], splice=None) -> dict:
    out = {"id": resource.rid, **stored_attributes(resource), "versions": {}}
    for version in versions:
        out["versions"][version.vid] = {
            "id": version.vid,
            **stored_attributes(version),
            **_document_member(rt, version, splice),
        }
    return out


def resource_document(rt: ResourceType, resource: Resource, versions: list[Version], splice=None) -> dict:
    """`splice`: see `_document_member`."""
    versions = sorted(versions, key=version_order)  # the order they were created in: an import keeps it
    if rt.shared_attributes and len(versions) == 1:
        return _shared_resource(rt, resource, versions)
    return _versioned_resource(rt, resource, versions, splice)


def group_document(gt: GroupType, group: Group, splice: Callable[[str], str] | None = None) -> dict:
    """`splice`: see `_document_member`."""
    out = {"id": group.gid, **stored_attributes(group)}
    for rt in gt.resources:
        resources = getattr(group, f"inline_{rt.plural}", [])
        if resources:
            out[rt.plural] = {
                r.rid: resource_document(rt, r, r.all_versions, splice) for r in resources if r.all_versions
            }
    return out


def iter_document_parts(
    group_types: list[GroupType] | None = None,
    gid: str | None = None,
    scope: ReadScope = EVERYTHING,
    ids: list[str] | None = None,
    splice: Callable[[str], str] | None = None,
) -> Iterator[tuple[GroupType, Group, dict]]:
    """The groups (one, `gid`; those of `ids`) as document parts; every group of a type: those `scope` reads.
    `splice`: see `_document_member`."""
    for gt in group_types or registry_model.group_types:
        if gid is not None:
            groups = [selectors.get_group(gt, gid, inline=True)]
        else:
            groups = selectors.iter_groups(gt, inline=True, ids=ids, scope=scope)
        for group in groups:
            yield gt, group, group_document(gt, group, splice)


def document_head() -> dict:
    return {"$schema": SCHEMA_URI, "specversion": SPEC_VERSION}


def export_document(
    plural: str | None = None,
    gid: str | None = None,
    *,
    scope: ReadScope = EVERYTHING,
    splice: Callable[[str], str] | None = None,
) -> dict:
    """The registry, one group type, or one group as a document (a dict); of many groups, those `scope` reads.
    `splice`: see `_document_member`."""
    doc = document_head()
    types = [registry_model[plural]] if plural else registry_model.group_types
    for gt in types:
        doc.setdefault(gt.plural, {})
    for gt, group, data in iter_document_parts(types, gid, scope, splice=splice):
        doc[gt.plural][group.gid] = data
    return doc


def document_text(
    plural: str | None = None,
    gid: str | None = None,
    *,
    scope: ReadScope = EVERYTHING,
    ids: list[str] | None = None,
    yaml_format: bool = False,
) -> Iterator[str]:
    """The text of `dump_document(export_document(plural, gid, scope=scope), yaml_format=...)` (of JSON, less its
    last newline; `ids`: only those groups of `plural`), written one group at a time: it holds a chunk of groups
    (selectors.iter_groups), never the whole document, so that `manage.py export_registry` (the way to export a
    registry too large for the HTTP answers) and the admin's exports keep a worker's memory bounded. Each group is
    dumped at its depth in the document, so the text is the whole dump's: JSON indented by 2 (a group's lines by 4
    more), YAML dumped as `{plural: {gid: group}}` (the same columns, so the same line breaks) less its first line
    after a type's first group."""
    types = [registry_model[plural]] if plural else registry_model.group_types
    if yaml_format:
        yield dump_document(document_head(), yaml_format=True)
    else:
        yield json.dumps(document_head(), indent=2, ensure_ascii=False)[:-2]  # less its closing "\n}"
    for gt in types:
        first = True
        for _gt, group, data in iter_document_parts([gt], gid, scope, ids):
            if yaml_format:
                text = dump_document({gt.plural: {group.gid: data}}, yaml_format=True)
                yield text if first else text.split("\n", 1)[1]
            else:
                text = json.dumps(data, indent=2, ensure_ascii=False).replace("\n", "\n    ")
                opening = f",\n  {json.dumps(gt.plural)}: {{" if first else ","
                yield f"{opening}\n    {json.dumps(group.gid, ensure_ascii=False)}: {text}"
            first = False
        if yaml_format and first:
            yield dump_document({gt.plural: {}}, yaml_format=True)
        elif not yaml_format:
            yield f",\n  {json.dumps(gt.plural)}: {{}}" if first else "\n  }"
    if not yaml_format:
        yield "\n}"


def rendered_group_parts(
    variant: tuple, gt: GroupType, render, states=None, scope: ReadScope = EVERYTHING
) -> Iterator[tuple[str, bytes]]:
    """(id, part) of each group of `gt` that `scope` reads, as `render` writes it, rendered now (the default of
    `stream_json_document`; registry/http/rendered_groups.py keeps them)."""
    for group in selectors.iter_groups(gt, inline=True, scope=scope):
        yield group.gid, render(group)


def stream_json_document(scope: ReadScope = EVERYTHING, parts=rendered_group_parts) -> Iterator[str | bytes]:
    """The registry document (the groups `scope` reads) as JSON text, one group at a time: `parts(variant, group
    type, render, scope=)` gives each group's part (registry/http/rendered_groups.py keeps them until their group
    changes)."""
    yield json.dumps(document_head())[:-1]
    spliced = Spliced()
    for gt in registry_model.group_types:

        def render(group, gt=gt) -> bytes:
            return f"{json.dumps(group.gid)}: {spliced.dumps(group_document(gt, group, spliced))}".encode()

        first = True
        for _gid, part in parts(("document",), gt, render, scope=scope):
            if first:  # a group type without groups is left out
                yield f", {json.dumps(gt.plural)}: {{"
            yield part if first else b", " + part
            first = False
        if not first:
            yield "}"
    yield "}"
