"""Admin of subscriptions, deliveries and their attempts.

Subscriptions are created and changed through subscriptions.services (the same validation of protocol, sink,
settings and filters as the API, and the webhook handshake); credentials in the protocol settings are never
shown and are kept when an edit does not give new ones; the values of header and property maps (an `X-Api-Key`,
a cookie) and the sink's secrets are shown as *** and kept unless the edit replaces them (subscriptions.masking). Deliveries show every attempt; dead letters can be
redelivered. Every write goes through subscriptions.services with the acting user: only a subscription's creator, the user
who last set its sink, or a registry admin changes, enables, disables, deletes it or redelivers its dead letters
(others see its page read-only); with public reads off the list shows a user's own subscriptions (all to admins).
Deliveries and their attempts are deleted only with their subscription, never on their own.
"""

from __future__ import annotations

import re
from http import HTTPStatus

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Count, OuterRef
from django.urls import reverse
from django.utils.html import format_html

from registry.access.read_scope import scope_for
from registry.admin import ServiceAdmin
from registry.domain.errors import Problem
from registry.governance import dashboard
from registry.governance.counts import EstimatedCounts, NewestValuesFilter
from registry.governance.forms import JSONField, ServiceForm
from registry.governance.links import breakable, shown_time
from registry.services import WriteContext
from registry.store.selectors import count_subquery

from . import services
from .delivery import policy
from .health import dashboard_panel as health_panel
from .health import delivery_health, health_svg
from .masking import shown_settings, shown_sink
from .models import Delivery, DeliveryAttempt, Subscription
from .selectors import dashboard_panel, readable
from .validators.protocols import PROTOCOLS

dashboard.register_panel("admin/subscriptions/dashboard_panel.html", dashboard_panel)
dashboard.register_panel("admin/subscriptions/health_panel.html", health_panel)


class SubscriptionForm(ServiceForm):
    protocol = forms.ChoiceField(choices=[(p, p) for p in sorted(PROTOCOLS)])
    sink = forms.CharField(widget=forms.TextInput(attrs={"size": 80}), help_text="an absolute URI for the protocol")
    protocolsettings = JSONField(
        label="Protocol settings",
        help_text='e.g. {"method": "POST"} (HTTP), '
        '{"topicname": "t"} (MQTT, KAFKA), {"address": "/queue/q"} (AMQP); '
        "stored credentials are hidden and kept; header and property values show as *** and are kept "
        "unless replaced",
    )
    filters = JSONField(kind=list, help_text='e.g. [{"prefix": {"subject": "/schemaGroups/"}}]')
    config = JSONField(help_text='e.g. {"mode": "binary"} (AMQP: cloudEvents: application properties)')
    max_attempts = forms.IntegerField(required=False, min_value=1, help_text="overrides the default (20)")
    ttl_seconds = forms.IntegerField(required=False, min_value=1, help_text="overrides the default (24 h)")
    seen = forms.CharField(required=False, widget=forms.HiddenInput)
    problem_field = "protocolsettings"

    def __init__(self, *args, instance=None, **kwargs):
        self.instance = instance
        if instance is not None:
            kwargs.setdefault(
                "initial",
                {
                    "protocol": instance.protocol.upper(),
                    "sink": shown_sink(instance.sink),
                    "protocolsettings": shown_settings(instance.protocolsettings),
                    "filters": instance.filters,
                    "config": instance.config,
                    "max_attempts": instance.max_attempts,
                    "ttl_seconds": instance.ttl_seconds,
                    "seen": instance.modified_on.isoformat(),
                },
            )
        super().__init__(*args, **kwargs)

    def perform(self, data):
        ctx = self.context() if self.request else None
        body = {
            "protocol": data["protocol"],
            "sink": data["sink"],
            "protocolsettings": data["protocolsettings"],
            "filters": data["filters"],
            "config": data["config"],
        }
        limits = {"max_attempts": data.get("max_attempts"), "ttl_seconds": data.get("ttl_seconds")}
        if self.instance is None:
            return services.create_subscription(data=body, ctx=ctx, limits=limits)
        subscription, _created = services.put_subscription(
            sid=self.instance.pk,
            data=body,
            ctx=ctx,
            seen_modified_on=data.get("seen"),
            keep_credentials=True,
            limits=limits,
        )
        return subscription


@admin.register(Subscription)
class SubscriptionAdmin(ServiceAdmin):
    list_display = (
        "id",
        "protocol",
        "shown_sink",
        "status",
        "dead_letters",
        "retrying",
        "created_by",
        "sink_set_by",
        "modified",
    )
    list_filter = ("status", "protocol")
    search_fields = ("id",)  # not the sink: a search for "token=a..." would tell its secrets letter by letter
    actions = ["disable", "enable"]

    def get_queryset(self, request):
        # counted for the rows of the page, not by joining and grouping every delivery (issue 40)
        return readable(super().get_queryset(request), request.user).annotate(
            dead=count_subquery(Delivery, subscription=OuterRef("pk"), status=Delivery.Status.DEAD),
            retry=count_subquery(Delivery, subscription=OuterRef("pk"), status=Delivery.Status.RETRYING),
        )

    @admin.display(description="sink", ordering="sink")
    def shown_sink(self, obj):
        return breakable(shown_sink(obj.sink))

    @admin.display(description="modified", ordering="modified_on")
    def modified(self, obj):
        return shown_time(obj.modified_on)

    @admin.display(description="dead letters", ordering="dead")
    def dead_letters(self, obj):
        return obj.dead

    @admin.display(description="retrying", ordering="retry")
    def retrying(self, obj):
        return obj.retry

    def has_change_permission(self, request, obj=None):
        """The model permission, and for one subscription its creator, the user who set its sink or an admin."""
        allowed = super().has_change_permission(request, obj)
        return allowed and (obj is None or services.may_change(request.user, obj))

    def has_delete_permission(self, request, obj=None):
        allowed = super().has_delete_permission(request, obj)
        return allowed and (obj is None or services.may_change(request.user, obj))

    def get_service_form(self, request, obj, data):
        return SubscriptionForm(data, request=request, instance=obj)

    def sections(self, request, obj):
        deliveries = reverse("admin:subscriptions_delivery_changelist") + f"?subscription__id__exact={obj.pk}"
        counts = dict(obj.deliveries.values_list("status").annotate(n=Count("id")).order_by())
        summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "none yet"
        html = format_html(
            "<table><tr><th>status</th><td id='subscription-status'>{}</td></tr><tr><th>reason</th><td>{}</td></tr>"
            "<tr><th>created</th><td>{} by {}</td></tr><tr><th>sink set by</th><td>{} (deliveries carry what they may "
            "read)</td></tr><tr><th>deliveries</th><td><a href='{}'>{}</a></td></tr></table>",
            obj.get_status_display(),
            obj.status_reason or "",
            obj.created_on.strftime("%Y-%m-%d %H:%M:%S"),
            obj.created_by or "unknown",
            obj.sink_set_by or "unknown",
            deliveries,
            summary,
        )
        return [
            {"title": "Status", "html": html},
            {
                "title": "Delivery health, last 24 hours (UTC)",
                "html": health_svg(delivery_health(obj), html_id="subscription-health"),
            },
        ]

    def delete_model(self, request, obj):
        try:
            services.delete_subscription(sid=obj.pk, ctx=WriteContext.from_request(request))
        except Problem as problem:
            raise PermissionDenied(problem.detail) from problem

    def delete_queryset(self, request, queryset):
        ctx = WriteContext.from_request(request)
        try:
            with transaction.atomic():  # all or none
                for pk in list(queryset.values_list("pk", flat=True)):
                    services.delete_subscription(sid=pk, ctx=ctx)
        except Problem as problem:
            raise PermissionDenied(problem.detail) from problem

    def refused(self, request, queryset) -> bool:
        """Whether some selected subscription is one the user may not change (the action then writes nothing)."""
        others = [s.pk for s in queryset if not services.may_change(request.user, s)]
        for sid in others:
            self.message_user(request, f"Nothing done: {services.refusal(sid).detail}", messages.ERROR)
        return bool(others)

    @admin.action(description="Disable the selected subscriptions", permissions=["change"])
    def disable(self, request, queryset):
        if self.refused(request, queryset):
            return
        ctx = WriteContext.from_request(request)
        try:
            with transaction.atomic():  # all or none
                for pk in list(queryset.values_list("pk", flat=True)):
                    services.disable_subscription(sid=pk, ctx=ctx, reason=f"disabled by {request.user}")
        except Problem as problem:
            self.message_user(request, f"Nothing done: {problem.detail}", messages.ERROR)
            return
        self.message_user(request, f"Disabled {queryset.count()} subscription(s).")

    @admin.action(
        description="Enable the selected subscriptions (validate again: the webhook handshake for HTTP)",
        permissions=["change"],
    )
    def enable(self, request, queryset):
        if self.refused(request, queryset):
            return
        ctx = WriteContext.from_request(request)
        outcomes: dict[str, list[str]] = {}
        for pk in list(queryset.values_list("pk", flat=True)):
            subscription = services.revalidate_subscription(sid=pk, ctx=ctx)
            subscription.refresh_from_db()  # the handshake ran after the commit when no worker queue is configured
            reason = f": {subscription.status_reason}" if subscription.status_reason else ""
            outcomes.setdefault(subscription.status, []).append(f"{subscription.pk}{reason}")
        for status, entries in sorted(outcomes.items()):
            level = messages.ERROR if status == Subscription.Status.FAILED else messages.SUCCESS
            if status == Subscription.Status.PENDING:
                level = messages.INFO
            self.message_user(request, f"{len(entries)} {status}: " + "; ".join(entries), level)


class AttemptInline(admin.TabularInline):
    model = DeliveryAttempt
    extra = 0
    can_delete = False
    fields = ("number", "started", "status_code", "latency", "shown_error")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description="started")
    def started(self, attempt):
        return shown_time(attempt.started_at)

    @admin.display(description="latency")
    def latency(self, attempt):
        return shown_latency(attempt.latency_ms)

    @admin.display(description="error")
    def shown_error(self, attempt):
        return error_text(attempt.error, attempt.status_code)


def undeletable_alone(model_admin, request, obj) -> bool:
    """Deliveries and their attempts are the record of what was sent: they go with their subscription (through the
    services, audited), never on their own. Django asks this of each of them when a subscription is deleted (`obj`:
    the model permission, as before); without `obj` (the list's delete action) and on their own delete pages, no."""
    return obj is not None and admin.ModelAdmin.has_delete_permission(model_admin, request, obj)


def shown_latency(ms: float | None) -> str:
    return "" if ms is None else f"{ms:.1f} ms"


def error_text(error: str, status_code: int | None) -> str:
    """An error as recorded, with the reason phrase of its HTTP status where the record has only the code
    (deliveries recorded `HTTP 503:` when the sink's answer had no body)."""
    bare = re.fullmatch(r"HTTP (\d{3}):?\s*", error or "")
    if bare:
        code = int(bare.group(1))
        phrase = HTTPStatus(code).phrase if code in HTTPStatus._value2member_map_ else "unknown status"
        return f"HTTP {code} {phrase} (empty body)"
    return error or ""


@admin.register(Delivery)
class DeliveryAdmin(EstimatedCounts, admin.ModelAdmin):
    """The list shows where each event goes and how it fares; the page every attempt. Only the action writes."""

    list_display = (
        "id",
        "event_subject",
        "sink",
        "protocol",
        "status",
        "attempts",
        "event_type",
        "next_attempt",
        "last_code",
    )
    list_display_links = ("id", "event_subject")
    list_filter = ("status", "subscription__protocol")
    search_fields = ("event__subject", "subscription__id")  # not the sink: its secrets must not be searchable
    list_select_related = ("event", "subscription")

    def get_queryset(self, request):
        """With public reads off, the deliveries of events the user may read (registry/access/read_scope.py)."""
        return super().get_queryset(request).filter(scope_for(request.user).q_of_events("event__owners"))

    fields = (
        "event_subject",
        "event_type",
        "subscription_link",
        "protocol",
        "status",
        "attempts_of",
        "next_attempt",
        "deadline_at",
        "last_status_code",
        "last_error_shown",
        "created",
        "delivered",
    )
    readonly_fields = fields
    inlines = [AttemptInline]
    actions = ["redeliver"]

    @admin.display(description="subject", ordering="event__subject")
    def event_subject(self, obj):
        return breakable(obj.event.subject)

    @admin.display(description="event type", ordering="event__type")
    def event_type(self, obj):
        return breakable(obj.event.type)

    @admin.display(description="sink", ordering="subscription__sink")
    def sink(self, obj):
        return breakable(shown_sink(obj.subscription.sink))

    @admin.display(description="protocol", ordering="subscription__protocol")
    def protocol(self, obj):
        return obj.subscription.protocol

    @admin.display(description="next attempt", ordering="next_attempt_at")
    def next_attempt(self, obj):
        done = obj.status in (Delivery.Status.DELIVERED, Delivery.Status.DEAD)
        return "" if done else shown_time(obj.next_attempt_at)

    @admin.display(description="last code", ordering="last_status_code")
    def last_code(self, obj):
        return obj.last_status_code

    @admin.display(description="subscription")
    def subscription_link(self, obj):
        url = reverse("admin:subscriptions_subscription_change", args=[obj.subscription_id])
        return format_html("<a href='{}'>{}</a>", url, obj.subscription)

    @admin.display(description="attempts")
    def attempts_of(self, obj):
        return f"{obj.attempts} of at most {policy.max_attempts(obj.subscription)}"

    @admin.display(description="deadline (dead letter after)")
    def deadline_at(self, obj):
        return shown_time(obj.deadline)

    @admin.display(description="last error")
    def last_error_shown(self, obj):
        return error_text(obj.last_error, obj.last_status_code)

    @admin.display(description="created")
    def created(self, obj):
        return shown_time(obj.created_at)

    @admin.display(description="delivered")
    def delivered(self, obj):
        return shown_time(obj.delivered_at)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        """A delivery's page only shows (nothing on it is edited); the list's redeliver action needs the permission."""
        return obj is None and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return undeletable_alone(self, request, obj)

    def delete_view(self, request, object_id, extra_context=None):
        raise PermissionDenied("deliveries are deleted with their subscription")

    def change_view(self, request, object_id, form_url="", extra_context=None):
        return super().change_view(request, object_id, form_url, {**(extra_context or {}), "show_delete": False})

    @admin.action(description="Redeliver the selected dead letters", permissions=["change"])
    def redeliver(self, request, queryset):
        try:
            count = services.redeliver(
                delivery_ids=queryset.values_list("pk", flat=True), ctx=WriteContext.from_request(request)
            )
        except Problem as problem:
            self.message_user(request, f"Nothing done: {problem.detail}", messages.ERROR)
            return
        self.message_user(request, f"Queued {count} dead letter(s) for delivery again.", messages.SUCCESS)


class StatusCodeFilter(NewestValuesFilter):
    title, parameter_name, field = "status code", "status_code", "status_code"


@admin.register(DeliveryAttempt)
class DeliveryAttemptAdmin(EstimatedCounts, admin.ModelAdmin):
    """Every try of every delivery: what the sink answered and how long it took."""

    list_display = ("delivery_of", "number", "started", "status_code", "latency", "short_error")
    list_filter = (StatusCodeFilter, "delivery__subscription__protocol")
    search_fields = ("delivery__event__subject", "delivery__subscription__id", "error")
    list_select_related = ("delivery", "delivery__event")

    def get_queryset(self, request):
        """With public reads off, the attempts of deliveries of events the user may read."""
        return super().get_queryset(request).filter(scope_for(request.user).q_of_events("delivery__event__owners"))

    fields = ("delivery", "number", "started_at", "status_code", "latency", "shown_error")
    readonly_fields = fields

    @admin.display(description="delivery", ordering="delivery_id")
    def delivery_of(self, obj):
        return breakable(obj.delivery)

    @admin.display(description="started", ordering="started_at")
    def started(self, obj):
        return shown_time(obj.started_at)

    @admin.display(description="latency", ordering="latency_ms")
    def latency(self, obj):
        return shown_latency(obj.latency_ms)

    @admin.display(description="error")
    def shown_error(self, obj):
        return error_text(obj.error, obj.status_code)

    @admin.display(description="error")
    def short_error(self, obj):
        error = error_text(obj.error, obj.status_code)
        return breakable((error[:80] + "…") if len(error) > 80 else error)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return undeletable_alone(self, request, obj)

    def delete_view(self, request, object_id, extra_context=None):
        raise PermissionDenied("attempts are deleted with their subscription")

    def change_view(self, request, object_id, form_url="", extra_context=None):
        return super().change_view(request, object_id, form_url, {**(extra_context or {}), "show_delete": False})
