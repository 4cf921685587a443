"""Reads of the catalog's own meaning: the compatibility level that applies to a schema."""

from __future__ import annotations

from registry.domain.model import effective_compatibility
from registry.models import Resource


def schema_compatibility(resource: Resource, version_attributes: dict | None = None) -> str:
    """The level a schema's next version is checked at, as every door and reader states it: a version's own
    `compatibility` (`version_attributes`, default the latest version's), the schema's (its 1.0 `meta`), its
    group's, else REGISTRY_DEFAULT_COMPATIBILITY."""
    if version_attributes is None:
        version_attributes = resource.latest.extensions if resource.latest_id and resource.latest else {}
    return effective_compatibility(
        version_attributes.get("compatibility"),
        resource.extensions.get("compatibility"),
        resource.group.extensions.get("compatibility"),
    )
