"""The admin dashboard: counts per type, recent changes and failing subscriptions."""
from django import template
from django.urls import reverse

from registry.models import OutboxEvent
from registry.selectors import registry_counts

register = template.Library()
ADMIN_LISTS = {"endpoints": "admin:endpoints_endpoint_changelist",
               "definitionGroups": "admin:catalog_definitiongroup_changelist",
               "schemaGroups": "admin:catalog_schemagroup_changelist"}


@register.inclusion_tag("admin/registry/dashboard.html")
def registry_dashboard():
    from subscriptions.selectors import failing_subscriptions

    counts = [(plural, count, reverse(ADMIN_LISTS[plural])) for plural, count in registry_counts().items()
              if plural in ADMIN_LISTS]
    return {"counts": counts, "recent": OutboxEvent.objects.order_by("-created_at")[:10],
            "failing": failing_subscriptions()}
