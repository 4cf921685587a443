"""The admin dashboard: counts per type, recent changes, and the panels apps register (registry/dashboard.py)."""
from django import template
from django.db.models import Count
from django.urls import reverse

from registry import dashboard
from registry.models import Group, OutboxEvent, Resource, Version
from registry.selectors import registry_counts

register = template.Library()
KINDS = {"updated": "changed", "deleted": "deleted"}


def _counts() -> list[dict]:
    groups = registry_counts()
    resources = dict(Resource.objects.order_by().values_list("group__group_type").annotate(c=Count("pk")))
    versions = dict(Version.objects.order_by().values_list("resource__group__group_type").annotate(c=Count("pk")))
    rows = []
    for plural, lists in dashboard.admin_lists.items():
        cells = []
        for entry, counts in zip(lists, (groups, resources, versions), strict=True):
            if entry is not None:
                label, url_name = entry
                cells.append((label, counts.get(plural, 0), reverse(url_name) if url_name else None))
        rows.append(cells)
    return rows


def _change(event: OutboxEvent) -> dict:
    parts = event.type.split(".")
    return {"time": event.time, "kind": KINDS.get(parts[-2], parts[-2]) if len(parts) > 2 else event.type,
            "subject": event.subject, "relayed": event.relayed_at is not None}


@register.inclusion_tag("admin/registry/dashboard.html", takes_context=True)
def registry_dashboard(context):
    user = context.get("user")
    return {"rows": _counts(), "recent": [_change(e) for e in OutboxEvent.objects.order_by("-created_at")[:10]],
            "groups_total": Group.objects.count(),
            "may_import": bool(user and user.has_perms(["registry.add_group", "registry.change_group"])),
            "events_url": reverse("admin:registry_outboxevent_changelist"),
            "panels": [{"template": panel.template, "context": panel.context(user)} for panel in dashboard.panels]}
