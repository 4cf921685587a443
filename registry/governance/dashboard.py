"""What the admin dashboard shows, as apps register it (the engine names no app).

- `register_admin_lists(plural, group, resource, version)`: for a group type, the (label, admin changelist
  URL name) of its groups, resources and versions (None where the app has no list), for the counts table.
- `change_url(list_name, pk)` / `admin_url_of(path, group_pk, resource_pk)`: the admin change page of an
  entity whose primary keys are known, from those lists (no query).
- `register_panel(template, context)`: a panel below the registry's own: `template` is rendered with the
  dict `context(user)` returns (subscriptions register their counts and failing sinks this way).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.urls import NoReverseMatch, reverse

AdminList = tuple[str, str | None] | None


@dataclass(frozen=True)
class Panel:
    template: str
    context: Callable[[object], dict]


admin_lists: dict[str, tuple[AdminList, AdminList, AdminList]] = {}
panels: list[Panel] = []


def register_admin_lists(plural: str, group: AdminList, resource: AdminList, version: AdminList = None) -> None:
    admin_lists[plural] = (group, resource, version)


def register_panel(template: str, context: Callable[[object], dict]) -> None:
    if all(panel.template != template for panel in panels):
        panels.append(Panel(template, context))


def change_url(list_name: str | None, pk) -> str | None:
    """The change page beside a registered changelist (`admin:app_model_changelist`), or None."""
    if not list_name or not list_name.endswith("_changelist"):
        return None
    try:
        return reverse(list_name[: -len("changelist")] + "change", args=[pk])
    except NoReverseMatch:
        return None


def admin_url_of(path: str, group_pk: int, resource_pk: int | None) -> str | None:
    """The admin page of a group or resource: a resource without its own list links to its group's page."""
    lists = admin_lists.get(path.split("/")[1]) if path.count("/") >= 2 else None
    if lists is None:
        return None
    group_list, resource_list, _version_list = ((entry[1] if entry else None) for entry in lists)
    if resource_pk is not None:
        url = change_url(resource_list, resource_pk)
        if url:
            return url
    return change_url(group_list, group_pk)
