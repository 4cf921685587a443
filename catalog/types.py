"""The catalog's group types, registered with the engine: `definitionGroups` and `schemaGroups`."""
from registry import dashboard
from registry.model import GroupType, ResourceType, registry_model

from . import hooks
from .validators.format_names import FORMAT_PATTERN

DEFINITIONS = ResourceType(
    singular="definition", plural="definitions", versions=0, shared_attributes=True,
    document_attributes=("format",), validate=hooks.check_definition_version,
)

DEFINITION_GROUPS = GroupType(
    singular="definitionGroup", plural="definitionGroups", resources=(DEFINITIONS,), position=20,
    attributes=("format",), validate=hooks.check_definition_group,
    event_type_prefix="io.cloudevents.messagecatalog",
    body_schema={"properties": {"format": {"type": "string", "pattern": FORMAT_PATTERN.pattern}}, "required": ["format"]},
)

SCHEMAS = ResourceType(singular="schema", plural="schemas", versions=-1, validate=hooks.check_schema_version,
                       media_type_for=hooks.schema_media_type)

SCHEMA_GROUPS = GroupType(
    singular="schemaGroup", plural="schemaGroups", resources=(SCHEMAS,), position=30,
    attributes=("compatibility",), validate=hooks.check_schema_group,
    event_type_prefix="io.cloudevents.schemaregistry",
    body_schema={"properties": {"compatibility": {"type": ["string", "null"],
                                                "enum": [*hooks.COMPATIBILITY_LEVELS, None]}}},
)


def register() -> None:
    registry_model.register(DEFINITION_GROUPS)
    registry_model.register(SCHEMA_GROUPS)
    dashboard.register_admin_lists(
        "schemaGroups", ("Schema groups", "admin:catalog_schemagroup_changelist"),
        ("Schemas", "admin:catalog_schema_changelist"), ("Schema versions", "admin:catalog_schemaversion_changelist"))
    dashboard.register_admin_lists(
        "definitionGroups", ("Definition groups", "admin:catalog_definitiongroup_changelist"),
        ("Definitions", "admin:catalog_definition_changelist"))
