"""Writes of teams (Django groups) that the registry's groups name: a group's owners name teams by name
(registry/access/owners.py), so a team's name is part of every group it holds a role in (docs/teams.md, "Teams and roles").

- `rename_team`: the new name is carried into the owners of every group that names the team, each group's update
  made through the group services as the context's actor (authorized as a change of its owners, audited, with its
  change event), all in the rename's transaction; a group the actor may not change the owners of refuses the whole
  rename (403 naming the groups), and nothing is written. Otherwise the team's members would lose their roles and
  whoever made a team of the old name would take the groups over.
- `delete_team`: refused (409 naming the groups) while groups' owners name the team: its roles would pass to the next
  team made with its name. Remove it from their owners first.
- The registry admins' team (REGISTRY_ADMIN_TEAM: its name is what makes its members registry admins) is neither
  renamed nor deleted here.
- `claim_name`: a name that groups' owners name while no team has it (a team deleted before these rules, or by other
  means than these services) gives the team that takes it their roles; only a registry admin (or the system) may
  take it, and is told which groups.

Teams are not registry entities: their own changes send no change event and write no audit row (the admin's history
records them); the groups' updates do both.
"""

from __future__ import annotations

from django.contrib.auth.models import Group as Team
from django.db import transaction

from ..access.permissions import RANK, admin_team, is_registry_admin, owners_of_group, permits
from ..domain.attributes import Owners
from ..domain.errors import Problem
from ..models import Group
from .context import WriteContext
from .groups import replace_owners


def groups_naming(name: str, *, lock: bool = False) -> list[Group]:
    """The groups whose owners name the team `name`, in a stable order (locked, in that order, with `lock`)."""
    groups = Group.objects.filter(extensions__owners__has_key=name).order_by("pk")
    return list(groups.select_for_update() if lock else groups)


def _refuse_admin_team(name: str, verb: str) -> None:
    if name == admin_team():
        raise Problem(
            "forbidden",
            f"the team {name!r} is the registry admins' (REGISTRY_ADMIN_TEAM): its name is what makes its members "
            f"registry admins, so it is not {verb} here; set REGISTRY_ADMIN_TEAM to another team first",
        )


def claim_name(ctx: WriteContext, name: str, *, team_pk: int | None = None) -> list[str]:
    """Before a team takes the name `name` (a new team, or a rename of team `team_pk`): the paths of the groups whose
    owners name it while no other team has it, whose roles the team would then hold. 403 naming them unless the
    context's actor is a registry admin or the system."""
    others = Team.objects.filter(name=name)
    if (others.exclude(pk=team_pk) if team_pk is not None else others).exists():
        return []  # the name is another team's: the caller refuses it (a team's name is unique)
    paths = [group.path for group in groups_naming(name)]
    if paths and ctx.actor is not None and not is_registry_admin(ctx.actor):
        raise Problem(
            "forbidden",
            f"the owners of {{paths}} name a team called {name!r} that does not exist any more: a team of that name "
            "would hold its roles there, so only registry admins make it (or remove it from those owners first)",
            paths=paths,
        )
    return paths


@transaction.atomic
def rename_team(*, ctx: WriteContext, team_pk: int, name: str) -> list[str]:
    """Rename the team `team_pk` to `name` and carry the new name into the owners of every group that names it (see
    the module's docstring); the paths of the groups changed."""
    team = Team.objects.select_for_update().get(pk=team_pk)
    old = team.name
    if old == name:
        return []
    _refuse_admin_team(old, "renamed")
    claim_name(ctx, name, team_pk=team.pk)
    if Team.objects.filter(name=name).exists():
        raise Problem("conflict", f"a team called {name!r} exists already")
    groups = groups_naming(old, lock=True)
    # authorized against the groups' owners and the actor's teams as they are before the rename (a member of the
    # team renamed holds its roles by its old name until the groups name the new one)
    refused = [g.path for g in groups if not permits(ctx.actor, "group", "own", g.path, owners=owners_of_group(g))]
    if refused:
        raise Problem(
            "forbidden",
            f"renaming the team {old!r} changes the owners of {{paths}}, whose owners you may not change (the "
            "role owner there, or a registry admin's)",
            paths=refused,
        )
    Team.objects.filter(pk=team.pk).update(name=name)
    for group in groups:
        replace_owners(ctx, group, _renamed(owners_of_group(group), old, name))
    return [group.path for group in groups]


def _renamed(owners: Owners, old: str, new: str) -> Owners:
    """`owners` with the team `old` called `new`, in its place; where `new` is named too (a team of that name deleted
    before), the higher of the two roles."""
    out: Owners = {}
    for team, role in owners.items():
        key = new if team == old else team
        if key not in out or RANK.get(role, 0) > RANK.get(out[key], 0):
            out[key] = role
    return out


@transaction.atomic
def delete_team(*, ctx: WriteContext, team_pk: int) -> None:
    """Delete the team `team_pk` unless groups' owners name it (409 naming them) or it is the registry admins'."""
    team = Team.objects.select_for_update().get(pk=team_pk)
    _refuse_admin_team(team.name, "deleted")
    naming = delete_refusal(team.name)
    if naming:
        raise Problem("conflict", naming)
    team.delete()


def delete_refusal(name: str) -> str | None:
    """Why the team `name` may not be deleted (None: it may): it is the registry admins', or groups' owners name it."""
    if name == admin_team():
        return (
            f"the team {name!r} is the registry admins' (REGISTRY_ADMIN_TEAM): set REGISTRY_ADMIN_TEAM to another "
            "team first"
        )
    paths = [group.path for group in groups_naming(name)]
    if paths:
        return (
            f"the owners of {', '.join(paths)} name the team {name!r}: remove it from their owners first (a team made "
            "later with its name would hold its roles there)"
        )
    return None
