"""Where the Confluent API keeps its settings: on the entities they describe (CONTRACT.md section 19), as attributes
that every binding shows, exports and imports, that the group's owners rule and that go with the entity.

- A context's compatibility level is its schema group's `compatibility`, a subject's its schema's (1.0: `meta`), the
  attribute the catalog's check enforces through every door; the global level (`/config`) is the default context's
  group's (REGISTRY_CONFLUENT_GROUP).
- A mode (READWRITE, READONLY, IMPORT) is the attribute `confluentmode` of the schema group (a context's; the global
  mode is the default context's group's) or of the schema (a subject's; 1.0: in `meta`). Only this API reads it: a
  READONLY mode refuses this API's writes, not the other doors', hence a name that says whose it is (a plain `mode`
  would read as the group's own state in the other bindings, and would take over a user's extension of that name).
- The settings of a subject that has no schema yet (Confluent keeps them for the subject it names) are kept by the
  schema group it will be created in, in the map `confluentpending`: schema id -> {`compatibility`, `confluentmode`};
  the registration that creates the schema moves them onto it. A schema made through another door does not take them
  (they are this API's promise to its own registrations).

The other `/config` settings (`defaultMetadata`, `overrideMetadata`, `defaultRuleSet`, `overrideRuleSet`,
`compatibilityGroup`, `normalize`, `validateFields`) are kept the same way: each the attribute `confluent<name in lower
case>` of the group and of the schema (`CONFIG_ATTRIBUTES`), registered below with its check, and a key of the pending
map's entries.

A schema version's `metadata` and `ruleSet` are its attributes `confluentmetadata` and `confluentruleset`
(`VERSION_METADATA`, `VERSION_RULE_SET`; confluent.contracts): version attributes in both bindings, whose names cannot
be taken for a definition's message `metadata` (docs/confluent.md, "Metadata and rule sets"). Registered with their
checks, so that every door refuses a value of another shape (400 naming the attribute).

`compatibilityGroup` narrows the versions the catalog's compatibility check compares a new schema version with, through
every door (`compared`, registered with registry.domain.compared_versions): those whose metadata property of that name has
the new version's value (absent counting as a value, as in Confluent).
"""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError

from registry.domain.compared_versions import register_comparison_scope
from registry.domain.extension_attributes import (
    ExtensionAttribute,
    register_extension_attribute,
    register_version_attribute,
)
from registry.domain.model import COMPATIBILITY_LEVELS
from registry.domain.validation import VersionCheck

from .association_shapes import ATTRIBUTE, attribute_problem
from .contracts import metadata_problem, property_of, rule_set_problem
from .subjects import GROUPS, SCHEMAS

COMPATIBILITY = "compatibility"
MODE = "confluentmode"
PENDING = "confluentpending"
MODES = ("READWRITE", "READONLY", "IMPORT")
DEFAULT_MODE = "READWRITE"
VERSION_METADATA = "confluentmetadata"
VERSION_RULE_SET = "confluentruleset"
COMPATIBILITY_GROUP = "confluentcompatibilitygroup"
# /config's members besides the level -> the attribute of the group and of the schema that keeps each
CONFIG_ATTRIBUTES = {
    "compatibilityGroup": COMPATIBILITY_GROUP,
    "defaultMetadata": "confluentdefaultmetadata",
    "overrideMetadata": "confluentoverridemetadata",
    "defaultRuleSet": "confluentdefaultruleset",
    "overrideRuleSet": "confluentoverrideruleset",
    "normalize": "confluentnormalize",
    "validateFields": "confluentvalidatefields",
}
# the attributes of a subject's own settings: on its schema, or in its group's pending map before it exists
SUBJECT_SETTINGS = (COMPATIBILITY, MODE, *CONFIG_ATTRIBUTES.values())
# the config's attributes (what DELETE /config/S removes; the mode is /mode's)
CONFIG_SETTINGS = (COMPATIBILITY, *CONFIG_ATTRIBUTES.values())


def _boolean(value) -> str | None:
    return None if isinstance(value, bool) else f"must be true or false, not {value!r}"


def _group_name(value) -> str | None:
    if not isinstance(value, str) or not value:
        return f"must be the name of a metadata property (a non-empty string), not {value!r}"
    return None


CONFIG_CHECKS = {
    "compatibilityGroup": (_group_name, {"type": "string"}),
    "defaultMetadata": (metadata_problem, {"type": "any"}),
    "overrideMetadata": (metadata_problem, {"type": "any"}),
    "defaultRuleSet": (rule_set_problem, {"type": "any"}),
    "overrideRuleSet": (rule_set_problem, {"type": "any"}),
    "normalize": (_boolean, {"type": "boolean"}),
    "validateFields": (_boolean, {"type": "boolean"}),
}


def mode_problem(value) -> str | None:
    if value not in MODES:
        return f"must be one of {', '.join(MODES)}, not {value!r}"
    return None


def pending_problem(value) -> str | None:
    """`confluentpending`: a map of schema id to a map of the subject's settings."""
    if not isinstance(value, dict):
        return "must be a map of schema id to the settings of a subject that has no schema yet"
    for rid, entry in value.items():
        if not isinstance(entry, dict) or not entry or set(entry) - set(SUBJECT_SETTINGS):
            return f"{rid}: must be a non-empty map with {' and/or '.join(SUBJECT_SETTINGS)}"
        level = entry.get(COMPATIBILITY)
        if COMPATIBILITY in entry and level not in COMPATIBILITY_LEVELS:
            return f"{rid}.{COMPATIBILITY}: must be one of {', '.join(COMPATIBILITY_LEVELS)}, not {level!r}"
        if MODE in entry and mode_problem(entry[MODE]):
            return f"{rid}.{MODE}: {mode_problem(entry[MODE])}"
        for member, name in CONFIG_ATTRIBUTES.items():
            if name in entry and (problem := CONFIG_CHECKS[member][0](entry[name])):
                return f"{rid}.{name}: {problem}"
    return None


def compared(check: VersionCheck) -> list[bool] | None:
    """The earlier versions a schema version is compared with under a compatibility group (the schema's
    `confluentcompatibilitygroup`, else its group's): those whose metadata property of that name has the value of the
    version's (registry/domain/compared_versions.py). None without a compatibility group."""
    name = check.resource_attributes.get(COMPATIBILITY_GROUP) or check.group_attributes.get(COMPATIBILITY_GROUP)
    if not isinstance(name, str) or not name:
        return None

    # here: the Spark import's executors load this module without Django's app registry, where the models fail
    from registry.models import Version

    mine = property_of(check.attributes.get(VERSION_METADATA), name)
    query = (
        Version.objects.filter(
            resource__group__group_type=check.group_type,
            resource__group__gid=check.group_id,
            resource__resource_type=check.resource_type,
            resource__rid=check.resource_id,
            content__isnull=False,
        )
        .exclude(vid=check.version_id)
        .order_by("created_on", "pk")  # the order of previous_documents (registry.domain.attributes.version_order)
        .values_list("extensions", flat=True)
    )
    try:
        earlier = list(query)
    except (ImproperlyConfigured, DatabaseError):  # the Spark import's executors have no store: compare with all
        return None
    return [property_of((extensions or {}).get(VERSION_METADATA), name) == mine for extensions in earlier]


def register() -> None:
    model = {"type": "string", "enum": list(MODES), "strict": True}
    register_extension_attribute(ExtensionAttribute(MODE, GROUPS, None, mode_problem))
    register_extension_attribute(ExtensionAttribute(MODE, GROUPS, SCHEMAS, mode_problem, model))
    register_extension_attribute(ExtensionAttribute(PENDING, GROUPS, None, pending_problem))
    for member, name in CONFIG_ATTRIBUTES.items():
        check, shape = CONFIG_CHECKS[member]
        register_extension_attribute(ExtensionAttribute(name, GROUPS, None, check))
        register_extension_attribute(ExtensionAttribute(name, GROUPS, SCHEMAS, check, shape))
    register_version_attribute(ExtensionAttribute(VERSION_METADATA, GROUPS, SCHEMAS, metadata_problem))
    register_version_attribute(ExtensionAttribute(VERSION_RULE_SET, GROUPS, SCHEMAS, rule_set_problem))
    register_comparison_scope(GROUPS, SCHEMAS, compared)

    register_extension_attribute(ExtensionAttribute(ATTRIBUTE, GROUPS, SCHEMAS, attribute_problem, {"type": "any"}))
