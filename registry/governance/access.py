"""The admin's side of teams and owners (docs/teams.md): what each user may see and change in the governance UI,
decided by the same rules as every other door (registry/access/permissions.py).

- A page of an entity asks the rule of that entity's group (object-level add, change, delete and view).
- Changelists: with public reads off, only what the user may read (groups without owners, the groups of their
  teams; everything for registry admins: registry/access/read_scope.py); with public reads on, everything, and the column
  "edit" marks each row ✎ (the user may change it) or — (read-only; its title says who owns it).
- The dashboard's panel "My groups": the groups whose owners name one of the user's teams, with the role they hold.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.utils.html import format_html

from ..access import permissions
from ..access.read_scope import scope_for
from ..models import Group, Resource, Version
from .dashboard import admin_url_of


def path_and_group(obj) -> tuple[str, Group | None]:
    """An admin object's store path and its group (walking up)."""
    if isinstance(obj, Group):
        return obj.path, obj
    if isinstance(obj, Resource):
        return obj.path, obj.group
    if isinstance(obj, Version):
        return f"{obj.resource.path}/versions/{obj.vid}", obj.resource.group
    return "", None


def group_prefix(obj_model) -> str:
    """The ORM path from a registry model to its group."""
    if issubclass(obj_model, Group):
        return ""
    if issubclass(obj_model, Resource):
        return "group__"
    return "resource__group__"


def may(user, kind: str, operation: str, obj=None) -> bool:
    """The admin's question: may `user` do `operation` on this object (None: on some entity of `kind`)?"""
    if obj is None:
        return permissions.allowed(user, kind, operation)
    path, group = path_and_group(obj)
    return permissions.permits(user, kind, operation, path, group=group)


def may_view(user, obj=None, model_view: bool = False) -> bool:
    """View pages and lists: Django's view permission, a role in some group, or (object) the group's read rule."""
    if not (user and user.is_active):
        return False
    general = model_view or permissions.is_registry_admin(user) or bool(permissions.roles_held(user))
    if obj is None:
        return general
    path, group = path_and_group(obj)
    if not settings.REGISTRY_PUBLIC_READ and not permissions.permits(user, "group", "read", path, group=group):
        return False
    return general


def readable(queryset, user):
    """With public reads off, the rows of groups `user` may read (see the module docstring)."""
    return scope_for(user).filter(queryset, group_prefix(queryset.model))


MY_GROUPS = 50  # rows of the panel "My groups"


def my_groups(user) -> dict:
    """The dashboard panel "My groups": the groups whose owners name a team of `user` (the first MY_GROUPS by type
    and id), each with the role held (the highest of the user's teams) and which team holds what."""
    teams = sorted(permissions.teams_of(user))
    rows, total = [], 0
    if teams:
        found = Group.objects.filter(extensions__owners__has_any_keys=teams).order_by("group_type", "gid")
        total = found.count()
        for group in found.only("pk", "group_type", "gid", "extensions")[:MY_GROUPS]:
            owners = permissions.owners_of_group(group)
            rows.append(
                {
                    "path": group.path,
                    "url": admin_url_of(group.path, group.pk, None),
                    "role": permissions.role_of(user, owners),
                    "teams": sorted((team, role) for team, role in owners.items() if team in teams),
                }
            )
    return {
        "groups": rows,
        "total": total,
        "more": max(total - len(rows), 0),
        "teams": teams,
        "registry_admin": bool(user and permissions.is_registry_admin(user)),
    }


def access_column(user, kind: str):
    """The changelists' column "edit": ✎ where `user` may change the row, else — (read-only)."""

    @admin.display(description="edit")
    def access(obj):
        if may(user, kind, "update", obj):
            return format_html('<span class="access-change" title="{}">{}</span>', "you may change it", "\u270e")
        return format_html('<span class="access-readonly" title="read-only: {}">{}</span>', _why(obj), "\u2014")

    return access


def _why(obj) -> str:
    _path, group = path_and_group(obj)
    owners = permissions.owners_of_group(group)
    if owners:
        return "owned by " + ", ".join(f"{team} ({role})" for team, role in sorted(owners.items()))
    return "you lack the model permission"
