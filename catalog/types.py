"""The catalog's group types, registered with the engine: `definitionGroups` and `schemaGroups`."""

from registry.domain import references
from registry.domain.model import GroupType, ResourceType, registry_model
from registry.domain.reference_parts import register_part_check
from registry.governance import dashboard, map_facts

from . import hooks
from .validators.format_names import FORMAT_PATTERN, same_format

DEFINITIONS = ResourceType(
    singular="definition",
    plural="definitions",
    versions=0,
    shared_attributes=True,
    document_attributes=("format",),
    validate=hooks.check_definition_version,
)

DEFINITION_GROUPS = GroupType(
    singular="definitionGroup",
    plural="definitionGroups",
    resources=(DEFINITIONS,),
    position=20,
    attributes=("format",),
    validate=hooks.check_definition_group,
    event_type_prefix="io.cloudevents.messagecatalog",
    body_schema={
        # null removes it as for every attribute (issue 23); REQUIRED where a body follows the seed (the 0.5 binding's
        # and the Message Catalog API's writes, CONTRACT 18), optional in a document import (a 1.0 group may have none)
        "properties": {"format": {"type": ["string", "null"], "pattern": FORMAT_PATTERN.pattern}},
        "seed_required": ["format"],
    },
)

SCHEMAS = ResourceType(
    singular="schema",
    plural="schemas",
    versions=-1,
    attributes=("format",),
    validate=hooks.check_schema_version,
    media_type_for=hooks.schema_media_type,
    validates_format=hooks.validates_schema_format,
    compatibility_levels=hooks.schema_compatibility_levels,
    same_format=same_format,
)

SCHEMA_GROUPS = GroupType(
    singular="schemaGroup",
    plural="schemaGroups",
    resources=(SCHEMAS,),
    position=30,
    attributes=("compatibility",),
    validate=hooks.check_schema_group,
    event_type_prefix="io.cloudevents.schemaregistry",
    body_schema={
        "properties": {"compatibility": {"type": ["string", "null"], "enum": [*hooks.COMPATIBILITY_LEVELS, None]}}
    },
)


def definition_references(document: dict) -> list[tuple[str, str]]:
    """A definition's references (docs/api-contract.md section 14): its `schemaurl` (1.0: `dataschemauri`) and,
    for a borrowed definition, its `uri`; the engine keeps those that point into this registry."""
    return [
        (name, document[name]) for name in ("schemaurl", "dataschemauri", "uri") if isinstance(document.get(name), str)
    ]


def format_map_facts(attributes: dict) -> map_facts.NodeFacts:
    """A definition group, definition or schema on the catalog map: its format; deprecated when it says so."""
    fmt = attributes.get("format")
    return map_facts.NodeFacts((str(fmt),) if fmt else (), deprecated=attributes.get("deprecated") is not None)


def register() -> None:
    registry_model.register(DEFINITION_GROUPS)
    registry_model.register(SCHEMA_GROUPS)
    references.register_reference_extractor("definitionGroups", "definitions", definition_references)
    register_part_check("schemaGroups", "schemas", hooks.schema_part_problem)
    for group_plural, resource_plural in (
        ("definitionGroups", None),
        ("definitionGroups", "definitions"),
        ("schemaGroups", "schemas"),
    ):
        map_facts.register_map_describer(group_plural, resource_plural, format_map_facts)
    dashboard.register_admin_lists(
        "schemaGroups",
        ("Schema groups", "admin:catalog_schemagroup_changelist"),
        ("Schemas", "admin:catalog_schema_changelist"),
        ("Schema versions", "admin:catalog_schemaversion_changelist"),
    )
    dashboard.register_admin_lists(
        "definitionGroups",
        ("Definition groups", "admin:catalog_definitiongroup_changelist"),
        ("Definitions", "admin:catalog_definition_changelist"),
    )
