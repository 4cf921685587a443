"""The admin dashboard: counts per type, recent changes and failing subscriptions."""
from django import template
from django.db.models import Count
from django.urls import reverse

from registry.models import Group, OutboxEvent, Resource, Version
from registry.selectors import registry_counts

register = template.Library()
# (label, admin list) per group type, and its resources' (label, admin list)
ADMIN_LISTS = {
    "schemaGroups": (("Schema groups", "admin:catalog_schemagroup_changelist"),
                     ("Schemas", "admin:catalog_schema_changelist"),
                     ("Schema versions", "admin:catalog_schemaversion_changelist")),
    "definitionGroups": (("Definition groups", "admin:catalog_definitiongroup_changelist"),
                         ("Definitions", "admin:catalog_definition_changelist"), None),
    "endpoints": (("Endpoints", "admin:endpoints_endpoint_changelist"), ("Endpoint definitions", None), None),
}
KINDS = {"updated": "changed", "deleted": "deleted"}


def _counts() -> list[dict]:
    groups = registry_counts()
    resources = dict(Resource.objects.order_by().values_list("group__group_type").annotate(c=Count("pk")))
    versions = dict(Version.objects.order_by().values_list("resource__group__group_type").annotate(c=Count("pk")))
    rows = []
    for plural, (group, resource, version) in ADMIN_LISTS.items():
        cells = [(group[0], groups.get(plural, 0), reverse(group[1]))]
        cells.append((resource[0], resources.get(plural, 0), reverse(resource[1]) if resource[1] else None))
        if version:
            cells.append((version[0], versions.get(plural, 0), reverse(version[1])))
        rows.append(cells)
    return rows


def _change(event: OutboxEvent) -> dict:
    parts = event.type.split(".")
    return {"time": event.time, "kind": KINDS.get(parts[-2], parts[-2]) if len(parts) > 2 else event.type,
            "subject": event.subject, "relayed": event.relayed_at is not None}


@register.inclusion_tag("admin/registry/dashboard.html", takes_context=True)
def registry_dashboard(context):
    from subscriptions.models import Delivery, Subscription
    from subscriptions.selectors import failing_subscriptions

    user = context.get("user")
    subscriptions = Subscription.objects.count()
    dead = Delivery.objects.filter(status=Delivery.Status.DEAD).count()
    return {"rows": _counts(), "subscriptions": subscriptions, "dead": dead,
            "recent": [_change(e) for e in OutboxEvent.objects.order_by("-created_at")[:10]],
            "failing": failing_subscriptions(), "groups_total": Group.objects.count(),
            "may_import": bool(user and user.has_perms(["registry.add_group", "registry.change_group"])),
            "events_url": reverse("admin:registry_outboxevent_changelist")}
