"""A registry document as a flat list of entity records (pure Python, no Django: Spark executors use it).

Each record is one group, resource or version with its API path, its attributes as written and, for
versions, the document bytes and media type (or a RESOURCEURI), the shape the bulk import compares and
writes. The rules follow the importer's: flat definitions become one version "1"; a schema given as a JSON
value is stored as compact JSON, as text otherwise.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field

from ..domain.model import GroupType, RegistryModel, ResourceType

COMMON = ("name", "description", "tags", "docs")
SHARED = ("id", "name", "description", "tags", "docs")


@dataclass
class EntityRecord:
    path: str
    kind: str  # "group" | "resource" | "version"
    group_type: str
    gid: str
    resource_type: str | None = None
    rid: str | None = None
    vid: str | None = None
    attributes: dict = field(default_factory=dict)
    document: bytes | None = None
    media_type: str | None = None
    resource_uri: str | None = None
    error: str | None = None
    implicit: bool = False  # a parent named only by its children's paths: created if missing, never changed
    compatibility_check: str | None = None  # a version's, as its check left it (registry.models.Version)

    @property
    def group_path(self) -> str:
        return f"/{self.group_type}/{self.gid}"

    @property
    def resource_path(self) -> str | None:
        return f"{self.group_path}/{self.resource_type}/{self.rid}" if self.rid is not None else None


def _attributes(data: dict, skip: set[str]) -> dict:
    return {k: v for k, v in data.items() if k not in skip and k != "id" and v is not None}


def default_media_type(content: bytes) -> str:
    """A document's media type when neither the document nor its type says: JSON if it parses, else text."""
    try:
        json.loads(content)
        return "application/json"
    except ValueError:
        return "text/plain; charset=utf-8"


def _version(rt: ResourceType, base: EntityRecord, vid: str, data: dict, resource_attrs: dict) -> EntityRecord:
    path = f"{base.resource_path}/versions/{vid}"
    keys = {rt.singular, rt.base64_attribute, rt.uri_attribute, f"{rt.singular}url", "type"}
    record = EntityRecord(
        path=path,
        kind="version",
        group_type=base.group_type,
        gid=base.gid,
        resource_type=rt.plural,
        rid=base.rid,
        vid=vid,
        attributes=_attributes(data, keys),
    )
    if not isinstance(data, dict):
        record.error = "a version must be an object"
        return record
    if "id" in data and data["id"] != vid:
        record.error = f"id {data['id']!r} does not match the map key {vid!r}"
    uri = data.get(rt.uri_attribute, data.get(f"{rt.singular}url"))
    if uri is not None:
        record.resource_uri = uri if isinstance(uri, str) else None
        if not isinstance(uri, str):
            record.error = f"{rt.uri_attribute} must be a string"
    elif rt.base64_attribute in data:
        try:
            record.document = base64.b64decode(data[rt.base64_attribute], validate=True)
            record.media_type = "application/octet-stream"
        except (ValueError, TypeError):
            record.error = f"{rt.base64_attribute} is not valid base64"
    elif rt.singular in data:
        value = data[rt.singular]
        if isinstance(value, str):
            record.document = value.encode()
            guess = rt.media_type_for or (lambda _a, c: default_media_type(c))
            record.media_type = guess({**resource_attrs, **record.attributes}, record.document)
        else:
            record.document = json.dumps(value, ensure_ascii=False).encode()
            record.media_type = "application/json"
    else:
        record.error = f"a version needs {rt.singular}, {rt.base64_attribute} or {rt.uri_attribute}"
    return record


def _flat_definition(rt: ResourceType, base: EntityRecord, data: dict) -> list[EntityRecord]:
    doc = dict(data)
    shared = {k: doc.pop(k) for k in SHARED if k in doc}
    shared.pop("id", None)
    attrs = {**shared, **{k: doc[k] for k in rt.document_attributes if k in doc}}
    version = EntityRecord(
        path=f"{base.resource_path}/versions/1",
        kind="version",
        group_type=base.group_type,
        gid=base.gid,
        resource_type=rt.plural,
        rid=base.rid,
        vid="1",
        attributes=attrs,
        document=json.dumps(doc, ensure_ascii=False).encode(),
        media_type="application/json",
    )
    return [base, version]


def flatten(model: RegistryModel, doc: dict) -> list[EntityRecord]:
    """Every entity of the document, groups before their resources before their versions."""
    records = []
    for gt in model.group_types:
        groups = doc.get(gt.plural)
        if not isinstance(groups, dict):
            continue
        for gid, gdata in groups.items():
            records += _group(gt, gid, gdata)
    return records


def _group(gt: GroupType, gid: str, gdata) -> list[EntityRecord]:
    path = f"/{gt.plural}/{gid}"
    record = EntityRecord(path=path, kind="group", group_type=gt.plural, gid=gid)
    if not isinstance(gdata, dict):
        record.error = "a group must be an object"
        return [record]
    skip = {r.plural for r in gt.resources} | {f"{r.plural}Url" for r in gt.resources} | {"type"}
    record.attributes = _attributes(gdata, skip)
    if "id" in gdata and gdata["id"] != gid:
        record.error = f"id {gdata['id']!r} does not match the map key {gid!r}"
    out = [record]
    for rt in gt.resources:
        resources = gdata.get(rt.plural) or {}
        if not isinstance(resources, dict):
            continue
        for rid, rdata in resources.items():
            out += _resource(gt, rt, gid, rid, rdata)
    return out


def _resource(gt: GroupType, rt: ResourceType, gid: str, rid: str, rdata) -> list[EntityRecord]:
    base = EntityRecord(
        path=f"/{gt.plural}/{gid}/{rt.plural}/{rid}",
        kind="resource",
        group_type=gt.plural,
        gid=gid,
        resource_type=rt.plural,
        rid=rid,
    )
    if not isinstance(rdata, dict):
        base.error = f"a {rt.singular} must be an object"
        return [base]
    if "id" in rdata and rdata["id"] != rid:
        base.error = f"id {rdata['id']!r} does not match the map key {rid!r}"
    if rt.shared_attributes and "versions" not in rdata:
        return _flat_definition(rt, base, rdata)
    keys = {"versions", "versionsUrl", "type", rt.singular, rt.base64_attribute, rt.uri_attribute, f"{rt.singular}url"}
    base.attributes = _attributes(rdata, keys)
    versions = rdata.get("versions")
    if versions is None:
        inline = {k: v for k, v in rdata.items() if k in keys - {"versions", "versionsUrl", "type"}}
        versions = {"1": inline} if inline else {}
    if not isinstance(versions, dict):
        base.error = "versions must be a map of version id to version"
        return [base]
    return [base] + [
        _version(rt, base, vid, vdata if isinstance(vdata, dict) else {}, base.attributes)
        for vid, vdata in versions.items()
    ]
