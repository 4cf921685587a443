"""The `endpoints` group type, registered with the engine; its definitions are the catalog's definitions."""
from catalog.types import DEFINITIONS
from catalog.validators.format_names import FORMAT_PATTERN
from registry import dashboard
from registry.model import GroupType, registry_model

from . import hooks
from .validators.attributes import USAGES

ENDPOINTS = GroupType(
    singular="endpoint", plural="endpoints", resources=(DEFINITIONS,), position=10,
    mutable_resources=("definitions",),
    attributes=("usage", "origin", "deprecated", "channel", "format", "config", "definitionGroups"),
    validate=hooks.check_endpoint, event_type_prefix="io.cloudevents.endpointregistry",
    body_schema={"properties": {"usage": {"enum": list(USAGES)}, "channel": {"type": ["string", "null"]},
                                "format": {"type": ["string", "null"], "pattern": FORMAT_PATTERN.pattern}},
                 "required": ["usage"]},
)


def register() -> None:
    registry_model.register(ENDPOINTS)
    dashboard.register_admin_lists("endpoints", ("Endpoints", "admin:endpoints_endpoint_changelist"),
                                   ("Endpoint definitions", None))
