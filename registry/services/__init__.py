"""Services: every write of the registry, each in one transaction that also writes its change events."""

from .address import EntityAddress
from .context import WriteContext
from .deletions import (
    delete_entities,
    delete_group,
    delete_groups,
    delete_resource,
    delete_resources,
    delete_version,
    delete_versions,
)
from .groups import create_group, ensure_parents, put_group, set_group_extensions, update_group_attributes
from .inputs import UNSET, VersionInput
from .meta import set_resource_meta
from .resources import (
    check_new_version,
    create_resource,
    create_version,
    put_meta,
    put_resource,
    put_version,
)
from .upserts import (
    GroupWrite,
    ResourceWrite,
    add_version,
    put_group_with_resources,
    put_groups,
    put_resource_maps,
    put_resource_with_meta,
    put_resources,
    put_version_creating,
    put_versions,
)

__all__ = [
    "UNSET",
    "EntityAddress",
    "GroupWrite",
    "ResourceWrite",
    "VersionInput",
    "WriteContext",
    "add_version",
    "check_new_version",
    "create_group",
    "create_resource",
    "create_version",
    "delete_entities",
    "delete_group",
    "delete_groups",
    "delete_resource",
    "delete_resources",
    "delete_version",
    "delete_versions",
    "ensure_parents",
    "put_group",
    "put_group_with_resources",
    "put_groups",
    "put_meta",
    "put_resource",
    "put_resource_maps",
    "put_resource_with_meta",
    "put_resources",
    "put_version",
    "put_version_creating",
    "put_versions",
    "set_group_extensions",
    "set_resource_meta",
    "update_group_attributes",
]
