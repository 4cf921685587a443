"""Subscriptions, and the delivery of change events to them: one record per (event, subscription) and
one row per attempt, so every event's fate is visible and nothing is lost between retries."""

import uuid

from django.conf import settings
from django.db import models

from registry.models import OutboxEvent

from .masking import shown_sink


def new_id() -> str:
    return str(uuid.uuid4())


class Subscription(models.Model):
    """A CloudEvents Subscriptions API subscription (`protocolsettings` may hold credentials: never echoed)."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending (handshake not yet done)"
        ACTIVE = "active", "active"
        FAILED = "failed", "failed (handshake refused)"
        DISABLED = "disabled", "disabled"

    id = models.CharField(primary_key=True, max_length=128, default=new_id, editable=False)
    protocol = models.CharField(max_length=16)
    sink = models.TextField()
    protocolsettings = models.JSONField(default=dict, blank=True)
    filters = models.JSONField(default=list, blank=True)
    config = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True)
    status_reason = models.TextField(blank=True, default="")
    max_attempts = models.PositiveIntegerField(null=True, blank=True, help_text="overrides the default (20)")
    ttl_seconds = models.PositiveIntegerField(null=True, blank=True, help_text="overrides the default (24 h)")
    created_by = models.CharField(max_length=150, null=True, blank=True)
    # the user who last set where deliveries go (protocol, sink, protocol settings): deliveries carry only what they
    # may read (subscriptions/relay.py); they, the creator and registry admins change it (subscriptions/services.py)
    sink_set_by = models.CharField(max_length=150, null=True, blank=True)
    # the same two users by id (the names above are what they were called then, shown): what they decide follows
    # the users themselves, never whoever has their name later; null when the user was deleted (or the system made it)
    created_by_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", editable=False
    )
    sink_set_by_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", editable=False
    )
    created_on = models.DateTimeField(auto_now_add=True)
    modified_on = models.DateTimeField(auto_now=True, db_index=True)

    class Meta:
        ordering = ["created_on", "id"]

    def __str__(self):
        return f"{self.protocol} {self.shown_sink}"

    @property
    def shown_sink(self) -> str:
        """The sink as people see it: its user-info password, query parts and fragment masked."""
        return shown_sink(self.sink)


class Delivery(models.Model):
    """One change event on its way to one subscription."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        DELIVERING = "delivering", "delivering"
        RETRYING = "retrying", "retrying"
        DELIVERED = "delivered", "delivered"
        DEAD = "dead", "dead letter"

    event = models.ForeignKey(OutboxEvent, on_delete=models.CASCADE, related_name="deliveries")
    subscription = models.ForeignKey(Subscription, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    deadline = models.DateTimeField(help_text="after this the delivery is dead-lettered (time to live)")
    leased_until = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "deliveries"
        constraints = [models.UniqueConstraint(fields=["event", "subscription"], name="delivery_once")]
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="delivery_due")]

    def __str__(self):
        return f"{self.event.subject} -> {self.subscription_id}"


class DeliveryAttempt(models.Model):
    """One try: when, what the sink answered, how long it took, what went wrong."""

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempt_log")
    number = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    status_code = models.PositiveIntegerField(null=True, blank=True)
    latency_ms = models.FloatField(null=True, blank=True)
    error = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["delivery_id", "number"]

    def __str__(self):
        return f"delivery {self.delivery_id}, attempt {self.number}"
