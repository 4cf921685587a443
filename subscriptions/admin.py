"""Admin of subscriptions, deliveries and their attempts: status filters and the redeliver action."""
from django.contrib import admin, messages

from . import services
from .models import Delivery, DeliveryAttempt, Subscription
from .validators.protocols import redacted


@admin.register(Subscription)
class SubscriptionAdmin(admin.ModelAdmin):
    list_display = ("id", "protocol", "sink", "status", "status_reason", "modified_on")
    list_filter = ("status", "protocol")
    search_fields = ("id", "sink")
    readonly_fields = ("id", "status", "status_reason", "settings_shown", "created_by", "created_on", "modified_on")
    fields = ("id", "protocol", "sink", "settings_shown", "filters", "config", "status", "status_reason",
              "max_attempts", "ttl_seconds", "created_by", "created_on", "modified_on")
    actions = ["disable", "enable"]

    @admin.display(description="protocol settings (credentials hidden)")
    def settings_shown(self, obj):
        return redacted(obj.protocolsettings)

    def has_add_permission(self, request):
        return False  # created through the Subscriptions API, which validates and runs the handshake

    @admin.action(description="Disable the selected subscriptions", permissions=["change"])
    def disable(self, request, queryset):
        for subscription in queryset:
            services.set_status(subscription, Subscription.Status.DISABLED, f"disabled by {request.user}")
        self.message_user(request, f"Disabled {queryset.count()} subscription(s).")

    @admin.action(description="Enable the selected subscriptions", permissions=["change"])
    def enable(self, request, queryset):
        for subscription in queryset:
            services.set_status(subscription, Subscription.Status.ACTIVE, "")
        self.message_user(request, f"Enabled {queryset.count()} subscription(s).")


class AttemptInline(admin.TabularInline):
    model = DeliveryAttempt
    extra = 0
    can_delete = False
    fields = ("number", "started_at", "status_code", "latency_ms", "error")
    readonly_fields = fields


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    list_display = ("id", "event_subject", "event_type", "subscription", "status", "attempts", "next_attempt_at",
                    "last_status_code")
    list_filter = ("status", "subscription__protocol")
    search_fields = ("event__subject", "subscription__id", "subscription__sink")
    list_select_related = ("event", "subscription")
    readonly_fields = [f.name for f in Delivery._meta.fields]
    inlines = [AttemptInline]
    actions = ["redeliver"]

    @admin.display(description="subject")
    def event_subject(self, obj):
        return obj.event.subject

    @admin.display(description="type")
    def event_type(self, obj):
        return obj.event.type

    def has_add_permission(self, request):
        return False

    @admin.action(description="Redeliver the selected dead letters", permissions=["change"])
    def redeliver(self, request, queryset):
        count = services.redeliver(queryset.values_list("pk", flat=True))
        self.message_user(request, f"Queued {count} dead letter(s) for delivery again.", messages.SUCCESS)
