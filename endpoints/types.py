"""The `endpoints` group type, registered with the engine; its definitions are the catalog's definitions."""
from catalog.types import DEFINITIONS, definition_references
from catalog.validators.format_names import FORMAT_PATTERN
from registry import dashboard, references
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


def endpoint_references(attributes: dict) -> list[tuple[str, str]]:
    """An endpoint's `definitionGroups` entries (1.0: `messagegroups`)."""
    found = []
    for name in ("definitionGroups", "messagegroups"):
        refs = attributes.get(name)
        if isinstance(refs, list):
            found += [(name, ref) for ref in refs if isinstance(ref, str)]
    return found


def register() -> None:
    registry_model.register(ENDPOINTS)
    references.register_reference_extractor("endpoints", None, endpoint_references)
    references.register_reference_extractor("endpoints", "definitions", definition_references)
    dashboard.register_admin_lists("endpoints", ("Endpoints", "admin:endpoints_endpoint_changelist"),
                                   ("Endpoint definitions", None))
