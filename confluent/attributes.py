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

Issue 41's other `/config` settings (`defaultMetadata`, `overrideMetadata`, `defaultRuleSet`, `overrideRuleSet`,
`compatibilityGroup`, `normalize`, `validateFields`) join the same way: each an attribute `confluent<name in lower
case>` of the group and of the schema, registered below with its check, and a key of the pending map's entries.
"""

from __future__ import annotations

from registry.extension_attributes import ExtensionAttribute, register_extension_attribute
from registry.model import COMPATIBILITY_LEVELS

from .subjects import GROUPS, SCHEMAS

COMPATIBILITY = "compatibility"
MODE = "confluentmode"
PENDING = "confluentpending"
MODES = ("READWRITE", "READONLY", "IMPORT")
DEFAULT_MODE = "READWRITE"
# the attributes of a subject's own settings: on its schema, or in its group's pending map before it exists
SUBJECT_SETTINGS = (COMPATIBILITY, MODE)


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
    return None


def register() -> None:
    model = {"type": "string", "enum": list(MODES), "strict": True}
    register_extension_attribute(ExtensionAttribute(MODE, GROUPS, None, mode_problem))
    register_extension_attribute(ExtensionAttribute(MODE, GROUPS, SCHEMAS, mode_problem, model))
    register_extension_attribute(ExtensionAttribute(PENDING, GROUPS, None, pending_problem))
