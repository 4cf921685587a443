"""Who may write what a Spark import brings (docs/teams.md): the services' rules (registry/access/permissions.py) asked on
the driver for each entity it is about to write, for the import's user (`spark_import --as USER`, the admin's
bulk imports run as the user who started them); the system's own imports (no user) are trusted. A group's `owners`
are checked as every door checks them (registry/access/owners.py). An entity refused is rejected into the report, like an
invalid one, with the API's words; what lies beneath a refused group or resource is rejected with it."""

from __future__ import annotations

from registry.access import owners as group_owners
from registry.documents.flatten import EntityRecord
from registry.domain.errors import Problem
from registry.services import WriteContext


class Owners:
    """The owners each group will have when the import is written: the stored ones, or what the input sets."""

    def __init__(self, stored_attributes: dict[str, dict]):
        self.of: dict[str, dict] = {}
        for path, attributes in stored_attributes.items():
            value = attributes.get(group_owners.ATTRIBUTE)
            self.of[path] = value if isinstance(value, dict) else {}
        self.stored = set(stored_attributes)
        self.stored_attributes = stored_attributes


def refusal(ctx: WriteContext, status: str, record: EntityRecord, known: Owners) -> str | None:
    """Why this import may not write `record` (new or changed), or None; records of groups come first."""
    try:
        if record.kind == "group":
            _group(ctx, status, record, known)
        else:
            operation = "create" if status == "new" else "update"
            ctx.authorize(record.kind, operation, record.path, owners=known.of.get(record.group_path, {}))
    except Problem as problem:
        return problem.detail
    return None


def _group(ctx: WriteContext, status: str, record: EntityRecord, known: Owners) -> None:
    path = record.path
    if path not in known.stored:
        ctx.authorize("group", "create", path, owners=None)
        group_owners.new_group(ctx, path, record.attributes)  # the default owner, the checks, naming them
    else:
        stored = known.stored_attributes[path].get(group_owners.ATTRIBUTE)
        group_owners.changed(ctx, path, stored, record.attributes.get(group_owners.ATTRIBUTE))
    value = record.attributes.get(group_owners.ATTRIBUTE)
    known.of[path] = value if isinstance(value, dict) else {}
