"""A subscription's status (active, failed, disabled) and its reason, set by the delivery, the handshake and the
admin. A module of its own below services and tasks: the delivery and the handshake change a status without
importing the services that queue them."""

from __future__ import annotations

from django.utils import timezone

from .models import Subscription


def set_status(subscription: Subscription, status: str, reason: str = "") -> None:
    Subscription.objects.filter(pk=subscription.pk).update(
        status=status, status_reason=reason, modified_on=timezone.now()
    )
    subscription.status, subscription.status_reason = status, reason
