"""What the admin dashboard shows, as apps register it (the engine names no app).

- `register_admin_lists(plural, group, resource, version)`: for a group type, the (label, admin changelist
  URL name) of its groups, resources and versions (None where the app has no list), for the counts table.
- `register_panel(template, context)`: a panel below the registry's own: `template` is rendered with the
  dict `context(user)` returns (subscriptions register their counts and failing sinks this way).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

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
