"""A subscription's owner may only watch what they may read (docs/teams.md): with public reads off, a subscription
whose filters name a group with owners (a `subject` filter, exact or by prefix, in the 0.5 names or as a 1.0 xid)
that its owner (the user who writes it) holds no role in is refused with 403, as a read of that group would be."""

from __future__ import annotations

from django.conf import settings

from registry.access import permissions
from registry.bindings.v10.mapping import store_path
from registry.domain.errors import Problem


def subjects(expression) -> list[str]:
    """Every subject an expression filters on (exact, prefix, basic; inside all, any and not)."""
    out: list[str] = []
    if isinstance(expression, list):
        for item in expression:
            out += subjects(item)
    elif isinstance(expression, dict):
        if expression.get("dialect") == "basic":
            value = expression.get("value")
            subject = str(expression.get("property", "")).lower() == "subject" and expression.get("type") != "suffix"
            return [value] if subject and isinstance(value, str) else []
        for dialect in ("exact", "prefix"):
            values = expression.get(dialect)
            if isinstance(values, dict):
                out += [v for k, v in values.items() if str(k).lower() == "subject" and isinstance(v, str)]
        for nested in ("all", "any", "not"):
            if nested in expression:
                out += subjects(expression[nested])
    return out


def check_readable(filters, user) -> None:
    """403 when, with public reads off, the filters name a group `user` (the acting user; None: the system, trusted)
    may not read."""
    if settings.REGISTRY_PUBLIC_READ or not filters or user is None:
        return
    for subject in subjects(filters):
        parts = subject.split("/")
        if len(parts) < 3 or not parts[2]:
            continue
        group = "/".join(parts[:3])
        group = store_path(group) or group
        owners = permissions.stored_owners(group)
        if owners and not permissions.permits(user, "group", "read", group, owners=owners):
            raise Problem(
                "forbidden",
                "filters: {subject}: to watch this group you need the role reader in it (public reads are off)",
                subject=group,
            )
