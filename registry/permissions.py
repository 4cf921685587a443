"""Who may write what: one table, keyed by the kind of entity and the operation, that the services consult for every
write whatever door it came through (every binding, the admin, document imports) — no binding or view holds a
permission map of its own.

A write made on behalf of a signed-in user (`WriteContext.actor`) needs the Django model permissions the table
names; one made by the system itself (a management command, a sync, the demo loader: no actor) is trusted. The HTTP
kernel only asks writers to authenticate (401 otherwise); a refusal here is 403 naming the entity and the missing
permission, and nothing is written (the service raises before it writes).
"""

from __future__ import annotations

from .errors import Problem

# (entity kind, operation) -> the model permissions it needs. Creating a resource creates its first version.
TABLE: dict[tuple[str, str], tuple[str, ...]] = {
    ("group", "create"): ("registry.add_group",),
    ("group", "update"): ("registry.change_group",),
    ("group", "delete"): ("registry.delete_group",),
    ("resource", "create"): ("registry.add_resource", "registry.add_version"),
    ("resource", "update"): ("registry.change_resource",),
    ("resource", "delete"): ("registry.delete_resource",),
    ("version", "create"): ("registry.add_version",),
    ("version", "update"): ("registry.change_version",),
    ("version", "delete"): ("registry.delete_version",),
}
OPERATIONS = ("create", "update", "delete")


class AnonymousActor:
    """A request's writer that did not sign in: refused everything (the HTTP kernel answers 401 before)."""

    is_active = False

    @staticmethod
    def has_perm(_permission) -> bool:
        return False

    @staticmethod
    def has_perms(_permissions) -> bool:
        return False


def needed(kind: str, operation: str) -> tuple[str, ...]:
    return TABLE[(kind, operation)]


def allowed(user, kind: str, operation: str) -> bool:
    """Whether `user` may do `operation` on an entity of `kind` (the admin asks this to offer its buttons)."""
    return bool(user is not None and user.is_active and user.has_perms(needed(kind, operation)))


def authorize(actor, kind: str, operation: str, path: str) -> None:
    """403 unless `actor` (None: the system) may do `operation` on the `kind` at store path `path`."""
    if actor is None or allowed(actor, kind, operation):
        return
    missing = [p for p in needed(kind, operation) if not actor.has_perm(p)]
    raise Problem(
        "forbidden",
        f"{{subject}}: to {operation} this {kind} you need the permission {', '.join(missing)}",
        subject=path,
    )
