"""A group's owners: the group attribute `owners`, a map of team name (a Django group) to role (`reader`, `editor`,
`owner`), as every binding reads and writes it (docs/teams.md). What they allow is registry/access/permissions.py's; this
module checks the attribute, keeps a group that has owners with an owner team (unless a registry admin changes it),
gives a new group its default owners when `REGISTRY_REQUIRE_OWNERS` is on, and makes the teams a registry admin's (or
the system's) document import names (docs/deploy.md: the portable copy restores its owners)."""

from __future__ import annotations

from django.conf import settings

from ..domain.attributes import OWNERS
from ..domain.errors import Problem
from .permissions import ROLES, admin_team, is_registry_admin, teams_of
from .roles import EDITORS, VIEWERS

ATTRIBUTE = OWNERS


def required() -> bool:
    return bool(getattr(settings, "REGISTRY_REQUIRE_OWNERS", False))


def errors_of(value, *, require: bool | None = None) -> list[str]:
    """What is wrong with an `owners` value: not a map of team name to role, a team that does not exist, a role
    that is not one of ROLES, or (owners required) no team with the role owner."""
    if not isinstance(value, dict):
        return [f"{ATTRIBUTE} must be a map of team name to role ({', '.join(ROLES)})"]
    errors = []
    for team, role in value.items():
        if role not in ROLES:
            errors.append(f"{ATTRIBUTE}.{team}: the role must be one of {', '.join(ROLES)}, not {role!r}")
    # here: settings-free code imports this module, where importing the models fails
    from django.contrib.auth.models import Group as Team

    known = set(Team.objects.filter(name__in=list(value)).values_list("name", flat=True))
    errors += [f"{ATTRIBUTE}.{team}: no team (Django group) is called {team!r}" for team in value if team not in known]
    if (required() if require is None else require) and "owner" not in value.values():
        errors.append(
            f"{ATTRIBUTE}: REGISTRY_REQUIRE_OWNERS is on: at least one team must hold the role owner"
            + (" (this change would leave the group without one)" if value else "")
        )
    return errors


def may_make_teams(ctx) -> bool:
    """Whether this write may make the teams its owners name: a registry admin's or the system's (a command)."""
    return ctx.actor is None or is_registry_admin(ctx.actor)


def make_missing_teams(ctx, names) -> list[str]:
    """Before a document import: the teams among `names` that do not exist are made, empty (no members, no
    permissions), when the importer is a registry admin or the system; their names, sorted. Anyone else's import names
    teams that exist (`errors_of`: 400). A name no team can have (empty, too long) is left to `errors_of` to report."""
    if not may_make_teams(ctx):
        return []
    # here: settings-free code imports this module, where importing the models fails
    from django.contrib.auth.models import Group as Team

    longest = Team._meta.get_field("name").max_length
    wanted = {
        name for name in names if isinstance(name, str) and name.strip() and (longest is None or len(name) <= longest)
    }
    missing = sorted(wanted - set(Team.objects.filter(name__in=wanted).values_list("name", flat=True)))
    # a concurrent import may make the same team meanwhile: it is there either way
    Team.objects.bulk_create([Team(name=name) for name in missing], ignore_conflicts=True)
    return missing


def _raise(path: str, errors: list[str]) -> None:
    if errors:
        raise Problem("invalid-attribute", "{subject}: " + "; ".join(errors), subject=path, errors=errors)


def new_group(ctx, path: str, extensions: dict) -> None:
    """Before a group is created: with owners required and none given, the creator's team becomes its owner (a
    creator in no team or in several must name them); the owners are checked, and naming them is authorized."""
    if ATTRIBUTE not in extensions and required() and ctx.actor is not None:
        teams = sorted(teams_of(ctx.actor) - {EDITORS, VIEWERS, admin_team()})
        if len(teams) == 1:
            extensions[ATTRIBUTE] = {teams[0]: "owner"}
        else:
            why = "you belong to no team" if not teams else f"you belong to {len(teams)} teams ({', '.join(teams)})"
            _raise(path, [f"{ATTRIBUTE}: REGISTRY_REQUIRE_OWNERS is on and {why}: name the group's owners"])
    if ATTRIBUTE in extensions:
        ctx.authorize("group", "own", path, owners=None)
        _raise(path, errors_of(extensions[ATTRIBUTE], require=required() and ctx.actor is not None))


def changed_group(ctx, group, extensions: dict) -> None:
    """Before a stored group's attributes change: the change is authorized (and, when its owners change, that
    too, against the owners it has now); new owners are checked."""
    changed(ctx, group.path, group.extensions.get(ATTRIBUTE), extensions.get(ATTRIBUTE))


def changed(ctx, path: str, old, new) -> None:
    """`changed_group` for a group known by its path and its stored and new `owners` values (the Spark import).

    A group that has owners keeps a team with the role owner unless a registry admin (or the system) changes it
    (CONTRACT section 19), whatever REGISTRY_REQUIRE_OWNERS says: a PUT replaces the group's attributes, and an
    owner's PUT without `owners` would otherwise leave the group to model permissions, its owners unable to set
    them back (only registry admins set the first owners of a group that has none)."""
    owners = old if isinstance(old, dict) else {}
    ctx.authorize("group", "update", path, owners=owners)
    if new != old:
        ctx.authorize("group", "own", path, owners=owners)
        errors = []
        keep = bool(owners) and ctx.actor is not None and not is_registry_admin(ctx.actor)
        if keep and (new is None or isinstance(new, dict)) and "owner" not in (new or {}).values():
            errors.append(
                f"{ATTRIBUTE}: this change would leave the group without a team with the role owner, which only "
                "registry admins may do (a PUT replaces the group's attributes: send its owners with it)"
            )
        # the system's own writes are trusted (docs/teams.md); the rule above already says what requiring says
        require = required() and ctx.actor is not None and not errors
        if new is not None or require:
            errors += errors_of(new if new is not None else {}, require=require)
        _raise(path, errors)


def remember(ctx, group) -> None:
    """After a group is written: later writes of the same context see its owners as they now are."""
    ctx.saw_group(group)
