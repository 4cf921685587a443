"""The CNCF Schema Registry API (schema-registry-api.md section 3) at `/schemaregistry/...`, over the same
schema groups and schemas as the core binding's `/schemaGroups` (docs/api-contract.md section 8).

The operations are the shared ones of `base.py`; this module adds the Schema Registry's own rule on
formats (sections 2.1.1, 2.2.3, 2.2.4): when a schema group has a `format`, its schemas use it (a version
posted without one gets it; a different one is 400); otherwise the first version of a schema must name its
format, and later versions inherit it. `PUT` on a group cannot change its format while it has schemas.
Attributes of a `POST`: `format`, `description`, `name`, `authority`, `compatibility`, in the query string
or in headers of those names; `?epoch=N` (or `Registry-epoch`) as on every write.
"""

from __future__ import annotations

from ...domain.errors import Problem
from ...models import Group, Resource
from ...representations import merged_attributes
from .base import (
    BindingMixin,
    GroupBase,
    GroupsBase,
    LookupBase,
    OlderBinding,
    ResourceBase,
    ResourcesBase,
    VersionBase,
    VersionsBase,
)

SCHEMA_REGISTRY = OlderBinding(
    "schemaregistry",
    "schemagroups",
    "schemaGroups",
    "schemas",
    "schemas",
    ("format", "description", "name", "authority", "compatibility"),
    "schema",
)
TAGS = ["schema registry API"]


class SchemaRegistryBinding(BindingMixin):
    """Mixin: the Schema Registry API's names and its format rule."""

    names = SCHEMA_REGISTRY
    binding = SCHEMA_REGISTRY.declaration()

    def same_format(self, a: str, b: str) -> bool:
        """The schema type's comparison of format identifiers (aliases folded); without one, ignoring case."""
        compare = self.rt.same_format
        return compare(a, b) if compare is not None else a.lower() == b.lower()

    def prepare(self, group: Group, resource: Resource | None, inp) -> None:
        group_format = group.extensions.get("format")
        given = inp.attributes.get("format")
        if group_format:
            if given and not self.same_format(given, group_format):
                raise Problem(
                    "invalid-attribute", f"format {given!r} differs from the schema group's format {group_format!r}"
                )
            inp.attributes["format"] = given or group_format
            return
        inherited = None
        if resource is not None and resource.latest is not None:
            inherited = merged_attributes(resource, resource.latest).get("format")
        if not given and ("format" in inp.attributes or not inherited):
            raise Problem("invalid-attribute", "format is required: the schema group has no format")


class SchemaGroupsView(SchemaRegistryBinding, GroupsBase):
    pass


class SchemaGroupView(SchemaRegistryBinding, GroupBase):
    pass


class SchemasView(SchemaRegistryBinding, ResourcesBase):
    pass


class SchemaView(SchemaRegistryBinding, ResourceBase):
    pass


class SchemaVersionsView(SchemaRegistryBinding, VersionsBase):
    pass


class SchemaVersionView(SchemaRegistryBinding, VersionBase):
    pass


class SchemaLookupView(SchemaRegistryBinding, LookupBase):
    def get(self, request):
        """GET `/schemaregistry/schema?uri=...`: a schema version by its version URI (section 3.4.3)."""
        return self.lookup(request)


# the views of each level, in the order of their routes (urls.py) and described in openapi.py
VIEWS = {
    "groups": SchemaGroupsView,
    "lookup": SchemaLookupView,
    "group": SchemaGroupView,
    "resources": SchemasView,
    "resource": SchemaView,
    "versions": SchemaVersionsView,
    "version": SchemaVersionView,
}
