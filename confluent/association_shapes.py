"""The shape of a schema's `confluentassociations` attribute (confluent/associations.py, docs/confluent.md,
"Associations"): a list of `{"resourceName", "resourceNamespace", "resourceId", "resourceType", "associationType",
"lifecycle", "frozen", "guid"}`. Apart from the associations' services, which read the store: the attribute's check is
registered with the registry (confluent.attributes), which the Spark import's executors load without a store."""

from __future__ import annotations

ATTRIBUTE = "confluentassociations"
TOPIC = "topic"
TYPES = ("key", "value")
LIFECYCLES = ("STRONG", "WEAK")
WILDCARD = "-"
MEMBERS = ("resourceName", "resourceNamespace", "resourceId", "resourceType", "associationType", "lifecycle", "frozen")
NAME_MAX_LENGTH = 255


def attribute_problem(value) -> str | None:
    """What is wrong with a schema's `confluentassociations` (None: nothing)."""
    if not isinstance(value, list):
        return "must be an array of associations"
    for index, item in enumerate(value):
        if not isinstance(item, dict) or set(item) - {*MEMBERS, "guid"}:
            return f"[{index}] must be an object with {', '.join(MEMBERS)} and guid"
        for name in ("resourceName", "resourceNamespace", "resourceId"):
            if name_problem(item.get(name)):
                return f"[{index}].{name} {name_problem(item.get(name))}"
        if item.get("resourceType") != TOPIC:
            return f"[{index}].resourceType must be '{TOPIC}'"
        if item.get("associationType") not in TYPES:
            return f"[{index}].associationType must be 'key' or 'value'"
        if item.get("lifecycle") not in LIFECYCLES:
            return f"[{index}].lifecycle must be STRONG or WEAK"
        if not isinstance(item.get("frozen"), bool):
            return f"[{index}].frozen must be true or false"
    return None


def name_problem(value) -> str | None:
    if not isinstance(value, str) or not value:
        return "cannot be null or empty"
    if len(value) > NAME_MAX_LENGTH or any(ord(c) < 32 or ord(c) == 127 for c in value):
        return f"must be at most {NAME_MAX_LENGTH} characters without control characters"
    return None
