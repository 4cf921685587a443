"""The admin dashboard: counts per type, recent changes, and the panels apps register (registry/dashboard.py)."""

from django import template
from django.db.models import Count
from django.urls import reverse

from registry import dashboard
from registry.admin_references import admin_url
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
        cells, holder_url = [], None
        for entry, counts in zip(lists, (groups, resources, versions), strict=True):
            if entry is not None:
                label, url_name = entry
                # entities without a list of their own (an endpoint's definitions): the list of their holders
                url = reverse(url_name) if url_name else holder_url
                cells.append((label, counts.get(plural, 0), url))
                holder_url = url
        rows.append(cells)
    return rows


def _change(event: OutboxEvent) -> dict:
    """A change on the dashboard: the event links to its outbox row, the subject to the entity's admin page
    while it exists."""
    parts = event.type.split(".")
    kind = KINDS.get(parts[-2], parts[-2]) if len(parts) > 2 else event.type
    return {
        "time": event.time,
        "kind": kind,
        "subject": event.subject,
        "relayed": event.relayed_at is not None,
        "event_url": reverse("admin:registry_outboxevent_change", args=[event.pk]),
        "subject_url": admin_url(event.subject) if kind != "deleted" else None,
    }


@register.inclusion_tag("admin/registry/dashboard.html", takes_context=True)
def registry_dashboard(context):
    user = context.get("user")
    return {
        "rows": _counts(),
        "recent": [_change(e) for e in OutboxEvent.objects.order_by("-created_at")[:10]],
        "groups_total": Group.objects.count(),
        "may_import": bool(user and user.has_perms(["registry.add_group", "registry.change_group"])),
        "events_url": reverse("admin:registry_outboxevent_changelist"),
        "panels": [{"template": panel.template, "context": panel.context(user)} for panel in dashboard.panels],
    }
