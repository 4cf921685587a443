"""The `endpoints` group type, registered with the engine; its definitions are the catalog's definitions."""

from catalog.types import DEFINITIONS, definition_references, format_map_facts
from catalog.validators.format_names import FORMAT_PATTERN
from registry.domain import references
from registry.domain.model import GroupType, registry_model
from registry.governance import dashboard, map_facts

from . import hooks
from .validators.attributes import USAGES

ENDPOINTS = GroupType(
    singular="endpoint",
    plural="endpoints",
    resources=(DEFINITIONS,),
    position=10,
    mutable_resources=("definitions",),
    attributes=("usage", "origin", "deprecated", "channel", "format", "config", "definitionGroups"),
    validate=hooks.check_endpoint,
    event_type_prefix="io.cloudevents.endpointregistry",
    body_schema={
        "properties": {
            "usage": {"enum": list(USAGES)},
            "channel": {"type": ["string", "null"]},
            "format": {"type": ["string", "null"], "pattern": FORMAT_PATTERN.pattern},
        },
        "required": ["usage"],
    },
)


def endpoint_references(attributes: dict) -> list[tuple[str, str]]:
    """An endpoint's `definitionGroups` entries (1.0: `messagegroups`)."""
    found = []
    for name in ("definitionGroups", "messagegroups"):
        refs = attributes.get(name)
        if isinstance(refs, list):
            found += [(name, ref) for ref in refs if isinstance(ref, str)]
    return found


def endpoint_map_facts(attributes: dict) -> map_facts.NodeFacts:
    """An endpoint on the catalog map: its usage, protocol and format; deprecated when it says so."""
    config = attributes.get("config") if isinstance(attributes.get("config"), dict) else {}
    usage = attributes.get("usage")
    usage = ", ".join(map(str, usage)) if isinstance(usage, list) else usage
    protocol = config.get("protocol") or attributes.get("protocol")
    return map_facts.NodeFacts(
        tuple(str(v) for v in (usage, protocol, attributes.get("format")) if v),
        deprecated=attributes.get("deprecated") is not None,
    )


def register() -> None:
    registry_model.register(ENDPOINTS)
    references.register_reference_extractor("endpoints", None, endpoint_references)
    references.register_reference_extractor("endpoints", "definitions", definition_references)
    map_facts.register_map_describer("endpoints", None, endpoint_map_facts)
    map_facts.register_map_describer("endpoints", "definitions", format_map_facts)
    dashboard.register_admin_lists(
        "endpoints", ("Endpoints", "admin:endpoints_endpoint_changelist"), ("Endpoint definitions", None)
    )
