"""What every binding shows of a stored version the same way: whether a media type is JSON, a resource's attributes
overlaid with a version's, and a definition's document with its current metadata in front. Each binding's own JSON
of groups, resources and versions is in its package (`registry/bindings/v05/representations.py`, ...).

Built from already-loaded rows: nothing here queries the database.
"""

from __future__ import annotations

import json

from .domain.attributes import latest_of
from .domain.json_text import load_json_document
from .domain.model import ResourceType
from .models import Resource, Version

JSON_MEDIA = ("application/json",)


def is_json_media_type(media_type: str | None) -> bool:
    if not media_type:
        return False
    base = media_type.split(";")[0].strip().lower()
    return base in JSON_MEDIA or base.endswith("+json") or base == "text/json"


def default_version(resource: Resource, versions: list[Version] | None = None) -> Version | None:
    """The resource's default version, which every binding serves as the resource's: the one `Resource.latest` names
    (the write services keep it so: the sticky default a 1.0 `meta` names, else the greatest id;
    `services.versions.refresh_latest`), found among `versions` where they are loaded; without it (no write path
    leaves a resource with versions and none, but older data may), the greatest of them (`attributes.latest_of`)."""
    if versions is None:
        return resource.latest
    return next((v for v in versions if v.pk == resource.latest_id), None) or latest_of(versions)


def merged_attributes(resource: Resource, version: Version | None) -> dict:
    """Resource-level attributes overlaid with the version's own."""
    attrs = {}
    for entity in (resource, version):
        if entity is None:
            continue
        for key in ("name", "description", "docs"):
            if getattr(entity, key):
                attrs[key] = getattr(entity, key)
        if entity.tags:
            attrs["tags"] = entity.tags
        attrs.update(entity.extensions)
    return attrs


def shared_document(resource: Resource, version: Version, doc: dict) -> dict:
    """A definition's document with its current metadata (`id`, `name`, ...) in front."""
    attrs = merged_attributes(resource, version)
    out = {"id": resource.rid}
    for key in ("name", "description", "tags", "docs"):
        if key in attrs:
            out[key] = attrs[key]
    out.update({k: v for k, v in doc.items() if k not in out})
    return out


def document_bytes(rt: ResourceType, resource: Resource, version: Version) -> bytes:
    content = bytes(version.content or b"")
    if rt.shared_attributes and content.strip():
        doc, problem = load_json_document(content)
        if problem is not None:
            return content  # served as stored: it cannot be merged with the metadata as JSON
        if isinstance(doc, dict):
            return json.dumps(shared_document(resource, version, doc), ensure_ascii=False).encode()
    return content
