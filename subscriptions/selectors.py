"""Reads of subscriptions and deliveries.

Who reads which subscription (besides the model permission "view subscription" the doors ask): with public reads on,
every one (its secrets masked: subscriptions/masking.py); with them off, a user reads the subscriptions they created
or whose sink they set, and registry admins read all, since a subscription's filters and sink tell of groups the
reader may not know of (docs/teams.md)."""

from __future__ import annotations

from django.conf import settings
from django.db.models import Count, Q, QuerySet

from registry.access import permissions
from registry.domain.errors import Problem
from registry.store.paging import PageRequest

from .models import Delivery, Subscription


def readable(queryset: QuerySet, user) -> QuerySet:
    """The subscriptions of `queryset` that `user` reads (see the module docstring)."""
    if settings.REGISTRY_PUBLIC_READ or permissions.is_registry_admin(user):
        return queryset
    if user is None or not getattr(user, "pk", None) or not user.is_active:
        return queryset.none()
    # by id: a user made again under a deleted one's name reads none of the first one's
    return queryset.filter(Q(created_by_user=user.pk) | Q(sink_set_by_user=user.pk))


def subscription_page(page: PageRequest, user):
    qs = readable(Subscription.objects.order_by("created_on", "id"), user)
    return list(qs[page.offset : page.offset + page.limit]), qs.count()


def get_subscription(sid: str, user) -> Subscription:
    subscription = Subscription.objects.filter(pk=sid).first()
    if subscription is None:
        raise Problem("not-found", f"/subscriptions/{sid} does not exist")
    if not readable(Subscription.objects.filter(pk=sid), user).exists():
        raise Problem(
            "forbidden",
            f"/subscriptions/{sid}: with public reads off, only the user who created this subscription, the user who "
            "set its sink, and registry admins read it",
        )
    return subscription


def failing_subscriptions(user, limit: int = 10):
    """Subscriptions `user` reads with dead letters or retrying deliveries, worst first (for the admin dashboard)."""
    return (
        readable(Subscription.objects.all(), user)
        .annotate(
            dead=Count("deliveries", filter=Q(deliveries__status=Delivery.Status.DEAD)),
            retrying=Count("deliveries", filter=Q(deliveries__status=Delivery.Status.RETRYING)),
        )
        .filter(Q(dead__gt=0) | Q(retrying__gt=0) | Q(status__in=["failed", "disabled"]))
        .order_by("-dead", "-retrying")[:limit]
    )


def dashboard_panel(user) -> dict:
    """The admin dashboard's subscriptions panel: how many, dead letters, the failing ones."""
    return {
        "subscriptions": readable(Subscription.objects.all(), user).count(),
        "dead": Delivery.objects.filter(status=Delivery.Status.DEAD).count(),
        "failing": failing_subscriptions(user),
    }
