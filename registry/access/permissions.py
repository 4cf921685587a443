"""Who may write what: one table, keyed by the kind of entity and the operation, that the services consult for every
write whatever door it came through (every binding, the admin, document imports, Spark, sync) — no binding or view
holds a permission map of its own.

Two layers, decided by object-level rules (the `rules` library: predicates over the user and the entity, no tables of
their own):

- A group without owners behaves as the registry always did: a write needs the Django model permissions `TABLE`
  names for its kind and operation.
- A group with owners (its attribute `owners`, a map of team name to role; a team is a Django group) is written only
  by its teams' members, by role, whatever their model permissions: `reader` reads (it matters only when public reads
  are off), `editor` creates, changes and deletes what the group holds, `owner` also changes the group's own
  attributes (its compatibility policy among them), its owners, deletes the group and forces deletes past references.
  An entity's owners are its group's: the rules walk up from the entity's path to its group.

Registry admins (superusers and members of the team `REGISTRY_ADMIN_TEAM`) may do everything, everywhere; they alone
set owners on a group that has none (its creator names the first ones) and leave a group that has owners without an
`owner` team (registry/access/owners.py). A write made by the system itself (a management command, the demo loader: no
actor) is trusted; a sync writes as its source's owner. The HTTP kernel only
asks writers to authenticate (401 otherwise); a refusal here is 403 naming the entity, its group and the role or the
permissions needed, and nothing is written (the service raises before it writes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import EllipsisType

import rules
from django.conf import settings
from django.db.models.fields.json import KeyTransform

from ..domain.errors import Problem

# (entity kind, operation) -> the model permissions it needs in a group without owners. Creating a resource creates
# its first version. "own": set a group's owners; "force": delete past references that still point at the entity.
TABLE: dict[tuple[str, str], tuple[str, ...]] = {
    ("group", "create"): ("registry.add_group",),
    ("group", "update"): ("registry.change_group",),
    ("group", "delete"): ("registry.delete_group",),
    ("group", "own"): ("registry.add_group",),  # only when the group is being created (see `may_own`)
    ("group", "force"): ("registry.delete_group",),
    ("resource", "create"): ("registry.add_resource", "registry.add_version"),
    ("resource", "update"): ("registry.change_resource",),
    ("resource", "delete"): ("registry.delete_resource",),
    ("resource", "force"): ("registry.delete_resource",),
    ("version", "create"): ("registry.add_version",),
    ("version", "update"): ("registry.change_version",),
    ("version", "delete"): ("registry.delete_version",),
    ("version", "force"): ("registry.delete_version",),
    ("group", "read"): (),
}
OPERATIONS = ("create", "update", "delete")
ROLES = ("reader", "editor", "owner")
RANK = {role: rank for rank, role in enumerate(ROLES, 1)}
# the role a team needs inside a group that has owners
GROUP_OWN = {"update", "delete", "own", "force"}


def role_needed(kind: str, operation: str) -> str:
    if operation == "read":
        return "reader"
    if kind == "group" or operation == "force":
        return "owner"
    return "editor"


@dataclass
class Target:
    """What a rule is asked about: an operation on the entity at `path`, inside the group at `group_path` whose
    owners are `owners` (None: the group does not exist yet)."""

    kind: str
    operation: str
    path: str
    group_path: str
    owners: dict | None = field(default=None)


class AnonymousActor:
    """A request's writer that did not sign in: refused everything (the HTTP kernel answers 401 before)."""

    is_active = False
    is_superuser = False
    is_authenticated = False
    pk = None

    @staticmethod
    def has_perm(_permission, _obj=None) -> bool:
        return False

    @staticmethod
    def has_perms(_permissions, _obj=None) -> bool:
        return False

    @staticmethod
    def get_username() -> str:
        return ""


def teams_of(user) -> frozenset[str]:
    """The names of the teams (Django groups) `user` belongs to, read once per user object (as Django caches
    permissions on it)."""
    if user is None or not getattr(user, "pk", None):
        return frozenset()
    cached = getattr(user, "_registry_teams", None)
    if cached is None:
        cached = frozenset(user.groups.values_list("name", flat=True))
        remember_teams(user, cached)
    return cached


def remember_teams(user, teams: frozenset[str]) -> None:
    """Keep `user`'s team names on the user object, where `teams_of` reads them (for callers that read them
    along with other rows)."""
    user._registry_teams = teams


def role_of(user, owners: dict | None) -> str | None:
    """The highest role `user`'s teams hold among `owners`, or None."""
    if not owners:
        return None
    mine = teams_of(user)
    ranks = [RANK.get(role, 0) for team, role in owners.items() if team in mine]
    best = max(ranks, default=0)
    return ROLES[best - 1] if best else None


def admin_team() -> str:
    return getattr(settings, "REGISTRY_ADMIN_TEAM", "Registry admins")


@rules.predicate
def is_registry_admin(user) -> bool:
    return bool(user is not None and user.is_active and (user.is_superuser or admin_team() in teams_of(user)))


@rules.predicate
def group_has_owners(_user, target: Target) -> bool:
    return bool(target.owners)


@rules.predicate
def group_is_new(_user, target: Target) -> bool:
    return target.owners is None


@rules.predicate
def holds_model_permissions(user, target: Target) -> bool:
    return bool(user.is_active and user.has_perms(TABLE[(target.kind, target.operation)]))


@rules.predicate
def holds_team_role(user, target: Target) -> bool:
    role = role_of(user, target.owners)
    return bool(user.is_active and role and RANK[role] >= RANK[role_needed(target.kind, target.operation)])


# the rules, one per (kind, operation); a registry admin passes them all. Predicates are tried left to right and
# stop at the first that decides: a group without owners costs no look-up of the user's teams
_within_owners = group_has_owners & holds_team_role
RULES = rules.RuleSet()
for _kind, _operation in TABLE:
    if (_kind, _operation) == ("group", "own"):
        # owners are set by the group's owners and registry admins, and named by whoever creates the group
        RULES.add_rule("group.own", (group_is_new & holds_model_permissions) | _within_owners | is_registry_admin)
    elif _operation == "read":
        RULES.add_rule("group.read", ~group_has_owners | holds_team_role | is_registry_admin)
    else:
        RULES.add_rule(
            f"{_kind}.{_operation}", (~group_has_owners & holds_model_permissions) | _within_owners | is_registry_admin
        )


def needed(kind: str, operation: str) -> tuple[str, ...]:
    return TABLE[(kind, operation)]


def group_path_of(path: str) -> str:
    return "/".join(path.split("/")[:3])


def owners_of_group(group) -> dict:
    """A group's owners (`{}` when it has none): its attribute `owners`."""
    owners = (group.extensions or {}).get("owners") if group is not None else None
    return owners if isinstance(owners, dict) else {}


def stored_owners(group_path: str) -> dict | None:
    """The owners of the stored group at `group_path` (None when there is no such group)."""
    found = stored_group(group_path)
    return found[1] if found is not None else None


def stored_group(group_path: str) -> tuple[int, dict] | None:
    """The row id and the owners of the stored group at `group_path` (None when there is no such group)."""
    # here: settings-free code imports this module, where importing the models fails
    from ..models import Group

    parts = group_path.split("/")
    if len(parts) < 3:
        return None
    # the one key, not the whole attributes (an endpoint's can be large); a row without it reads None
    row = (
        Group.objects.filter(group_type=parts[1], gid=parts[2])
        .annotate(_owners=KeyTransform("owners", "extensions"))
        .values_list("pk", "_owners")
        .first()
    )
    if row is None:
        return None
    return row[0], row[1] if isinstance(row[1], dict) else {}


def owners_for_read(user, group_path: str) -> dict | None:
    """`stored_owners(group_path)`, and the user's teams with it when they are not known yet (`teams_of` then reads
    them from the user object): one query for the read check of a signed-in user (registry/access/read_check.py)."""
    # here: settings-free code imports this module, where importing the models fails
    from .read_check import owners_and_teams

    parts = group_path.split("/")
    if len(parts) < 3:
        return None
    known = not getattr(user, "pk", None) or getattr(user, "_registry_teams", None) is not None
    found = owners_and_teams(parts[1], parts[2], None if known else user.pk)
    if found is None:  # a database without the hand-written statement: the ORM's queries
        return stored_owners(group_path)
    owners, teams = found
    if teams is not None:
        remember_teams(user, teams)
    return owners


def roles_held(user) -> dict[str, str]:
    """Group path -> the role `user`'s teams hold there, for every group whose owners name one of them (read once
    per user object)."""
    cached = getattr(user, "_registry_roles", None)
    if cached is not None:
        return cached
    # here: settings-free code imports this module, where importing the models fails
    from ..models import Group

    teams = sorted(teams_of(user))
    held = {}
    if teams:
        for plural, gid, extensions in Group.objects.filter(extensions__owners__has_any_keys=teams).values_list(
            "group_type", "gid", "extensions"
        ):
            role = role_of(user, (extensions or {}).get("owners"))
            if role:
                held[f"/{plural}/{gid}"] = role
    if getattr(user, "pk", None):
        user._registry_roles = held
    return held


def allowed(user, kind: str, operation: str) -> bool:
    """Whether `user` may do `operation` on some entity of `kind` (the admin asks this to offer its buttons): by model
    permissions, or by a role a team of theirs holds in some group."""
    if user is None or not user.is_active:
        return False
    if is_registry_admin(user) or user.has_perms(needed(kind, operation)):
        return True
    if kind == "group" and operation == "create":
        return False
    role = role_needed(kind, operation)
    return any(RANK[held] >= RANK[role] for held in roles_held(user).values())


def permits(
    actor, kind: str, operation: str, path: str, *, group=None, owners: dict | None | EllipsisType = ...
) -> bool:
    """Whether `actor` (None: the system) may do `operation` on the `kind` at store path `path`. `group` (the stored
    group, when the caller holds it) or `owners` spare the look-up of the group's owners."""
    if actor is None:
        return True
    if owners is ...:
        owners = owners_of_group(group) if group is not None else stored_owners(group_path_of(path))
    target = Target(kind, operation, path, group_path_of(path), owners)
    return RULES.test_rule(f"{kind}.{operation}", actor, target)


def authorize(
    actor, kind: str, operation: str, path: str, *, group=None, owners: dict | None | EllipsisType = ...
) -> None:
    """403 unless `actor` (None: the system) may do `operation` on the `kind` at store path `path`."""
    if actor is None:
        return
    if owners is ...:
        owners = owners_of_group(group) if group is not None else stored_owners(group_path_of(path))
    if permits(actor, kind, operation, path, owners=owners):
        return
    raise refusal(actor, kind, operation, path, owners)


def refusal(actor, kind: str, operation: str, path: str, owners: dict | None) -> Problem:
    """The 403 of a refused write: the role needed in the group with owners, else the model permissions missing."""
    verb = {
        "own": "set the owners of",
        "force": "force the delete of",
        "read": "read",
    }.get(operation, operation)
    group_path = group_path_of(path)
    if owners:
        role = role_needed(kind, operation)
        teams = ", ".join(sorted(t for t, r in owners.items() if RANK.get(r, 0) >= RANK[role]))
        return Problem(
            "forbidden",
            f"{{subject}}: to {verb} this {kind} you need the role {role} in the group {{paths}}"
            + (f" (teams with it: {teams})" if teams else ""),
            subject=path,
            paths=[group_path],
            members={"role": role},
        )
    if operation == "own":
        return Problem(
            "forbidden",
            "{subject}: only registry admins set the owners of a group that has none",
            subject=path,
        )
    missing = [p for p in needed(kind, operation) if not actor.has_perm(p)]
    return Problem(
        "forbidden",
        f"{{subject}}: to {verb} this {kind} you need the permission {', '.join(missing)}",
        subject=path,
    )
