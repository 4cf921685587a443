"""The AsyncAPI app in the admin: a dashboard panel linking to the "Import AsyncAPI" page (asyncapi/admin_views.py),
and a section on each message group's and endpoint's page with its AsyncAPI 3.0 export (producer and consumer, JSON
and YAML), registered with the registry's admin when the admin's modules load (registry/governance/discovery.py)."""

from __future__ import annotations

from django.urls import reverse
from django.utils.html import format_html, format_html_join

from registry.admin import register_group_section
from registry.governance import dashboard

from .admin_views import IMPORT_PERMISSIONS


def dashboard_panel(user) -> dict:
    return {"may_import": bool(user and user.has_perms(IMPORT_PERMISSIONS))}


def _links(path: str, roles: tuple[str, ...]) -> str:
    rows = format_html_join(
        "",
        "<li>{}: <a href='{}?role={}'>JSON</a> · <a href='{}?role={}&amp;format=yaml'>YAML</a></li>",
        ((role, path, role, path, role) for role in roles),
    )
    return format_html("<ul class='asyncapi-export'>{}</ul>", rows)


def message_group_section(group) -> dict:
    path = reverse("asyncapi-messagegroup", args=[group.gid])
    return {"title": "AsyncAPI 3.0", "html": _links(path, ("producer", "consumer"))}


def endpoint_section(group) -> dict:
    path = reverse("asyncapi-endpoint", args=[group.gid])
    return {"title": "AsyncAPI 3.0", "html": _links(path, ("producer", "consumer"))}


dashboard.register_panel("admin/asyncapi/dashboard_panel.html", dashboard_panel)
register_group_section("definitionGroups", message_group_section)
register_group_section("endpoints", endpoint_section)
