"""The `endpoints` group type, registered with the engine; its definitions are the catalog's definitions."""
from catalog.types import DEFINITIONS
from registry.model import GroupType, registry_model

from . import hooks

ENDPOINTS = GroupType(
    singular="endpoint", plural="endpoints", resources=(DEFINITIONS,), position=10,
    mutable_resources=("definitions",),
    attributes=("usage", "origin", "deprecated", "channel", "format", "config", "definitionGroups"),
    validate=hooks.check_endpoint, event_type_prefix="io.cloudevents.endpointregistry",
)


def register() -> None:
    registry_model.register(ENDPOINTS)
