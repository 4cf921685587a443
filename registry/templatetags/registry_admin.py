"""The admin dashboard: counts per type, recent changes, and the panels apps register (registry/governance/dashboard.py).

Recent changes are grouped by path: one line per entity among the latest RECENT_EVENTS changes, the newest first,
with how many changes it had and since when (ten saves of one schema are one line, not the whole list)."""

from django import template
from django.urls import reverse

from registry.access.read_scope import ReadScope, scope_for
from registry.governance import dashboard
from registry.governance.counts import shown_count
from registry.governance.references import admin_url
from registry.models import Group, OutboxEvent, Resource, Version
from registry.store.estimates import estimated_count

register = template.Library()
KINDS = {"updated": "changed", "deleted": "deleted"}
RECENT_PATHS = 10  # lines of "Recent changes"
RECENT_EVENTS = 500  # the latest changes they are grouped from


def _counts(scope: ReadScope) -> list[list[tuple[str, str, str | None]]]:
    """Per type, how many groups, resources and versions (those `scope` reads): estimated when large
    (registry/governance/counts.py), never a count of every version."""
    levels = (
        lambda plural: scope.filter(Group.objects.filter(group_type=plural)),
        lambda plural: scope.filter(Resource.objects.filter(group__group_type=plural), "group__"),
        lambda plural: scope.filter(Version.objects.filter(resource__group__group_type=plural), "resource__group__"),
    )
    rows = []
    for plural, lists in dashboard.admin_lists.items():
        cells, holder_url = [], None
        for entry, level in zip(lists, levels, strict=True):
            if entry is not None:
                label, url_name = entry
                # entities without a list of their own (an endpoint's definitions): the list of their holders
                url = reverse(url_name) if url_name else holder_url
                cells.append((label, shown_count(level(plural)), url))
                holder_url = url
        rows.append(cells)
    return rows


def _recent(scope: ReadScope) -> list[dict]:
    """The latest changes, one per path: the newest change of each, with the count and the oldest time (of what
    `scope` reads)."""
    grouped: dict[str, dict] = {}
    for event in OutboxEvent.objects.order_by("-created_at")[:RECENT_EVENTS]:
        if scope.hides(event.subject):
            continue
        entry = grouped.get(event.subject)
        if entry is None:
            if len(grouped) == RECENT_PATHS:
                continue  # a path seen first after the tenth: older than every line shown
            grouped[event.subject] = {**_change(event), "count": 1, "since": event.time}
        else:
            entry["count"] += 1
            entry["since"] = event.time
    return list(grouped.values())


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
    scope = scope_for(user)  # with public reads off, what the user may read
    return {
        "rows": _counts(scope),
        "recent": _recent(scope),
        "groups_total": estimated_count(scope.filter(Group.objects)).rows,
        "may_import": bool(user and user.has_perms(["registry.add_group", "registry.change_group"])),
        "events_url": reverse("admin:registry_outboxevent_changelist"),
        "panels": [{"template": panel.template, "context": panel.context(user)} for panel in dashboard.panels],
    }
