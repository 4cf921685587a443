"""Reads of subscriptions and deliveries."""

from __future__ import annotations

from django.db.models import Count, Q

from registry.errors import Problem
from registry.paging import PageRequest

from .models import Delivery, Subscription


def subscription_page(page: PageRequest):
    qs = Subscription.objects.order_by("created_on", "id")
    return list(qs[page.offset : page.offset + page.limit]), qs.count()


def get_subscription(sid: str) -> Subscription:
    subscription = Subscription.objects.filter(pk=sid).first()
    if subscription is None:
        raise Problem("not-found", f"/subscriptions/{sid} does not exist")
    return subscription


def failing_subscriptions(limit: int = 10):
    """Subscriptions with dead letters or retrying deliveries, worst first (for the admin dashboard)."""
    return (
        Subscription.objects.annotate(
            dead=Count("deliveries", filter=Q(deliveries__status=Delivery.Status.DEAD)),
            retrying=Count("deliveries", filter=Q(deliveries__status=Delivery.Status.RETRYING)),
        )
        .filter(Q(dead__gt=0) | Q(retrying__gt=0) | Q(status__in=["failed", "disabled"]))
        .order_by("-dead", "-retrying")[:limit]
    )


def dashboard_panel(user) -> dict:
    """The admin dashboard's subscriptions panel: how many, dead letters, the failing ones."""
    return {
        "subscriptions": Subscription.objects.count(),
        "dead": Delivery.objects.filter(status=Delivery.Status.DEAD).count(),
        "failing": failing_subscriptions(),
    }
