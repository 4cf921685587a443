"""Admin of sync: sources (with 'sync now' and 'subscribe at the remote' actions) and their runs."""

from django.conf import settings
from django.contrib import admin, messages
from django.urls import reverse

from . import services
from .models import SyncRun, SyncSource


def webhook_url(source: SyncSource) -> str:
    path = reverse("sync-webhook", kwargs={"source_id": source.pk, "secret": source.webhook_secret})
    return settings.REGISTRY_BASE_URL.rstrip("/") + path


class SyncRunInline(admin.TabularInline):
    model = SyncRun
    extra = 0
    can_delete = False
    fields = ("started_at", "trigger", "status", "created", "updated", "deleted", "unchanged", "error")
    readonly_fields = fields
    ordering = ("-started_at",)
    max_num = 0


@admin.register(SyncSource)
class SyncSourceAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "base_url",
        "scope",
        "path",
        "interval_seconds",
        "enabled",
        "subscribe",
        "last_run_at",
        "last_status",
    )
    list_filter = ("enabled", "scope", "last_status")
    readonly_fields = ("remote_subscription_id", "last_run_at", "last_status")
    inlines = [SyncRunInline]
    actions = ["sync_now", "subscribe_at_remote"]

    @admin.action(description="Sync now")
    def sync_now(self, request, queryset):
        for source in queryset:
            run = services.run_sync(source, trigger="admin")
            level = messages.SUCCESS if run.status == SyncRun.Status.OK else messages.ERROR
            self.message_user(
                request,
                f"{source.name}: {run.status} (created {run.created}, updated {run.updated}, "
                f"deleted {run.deleted}) {run.error}",
                level,
            )

    @admin.action(description="Subscribe at the remote (pull on its change events)")
    def subscribe_at_remote(self, request, queryset):
        for source in queryset:
            try:
                sid = services.subscribe(source, webhook_url(source))
            except Exception as exc:  # shown to the operator
                self.message_user(request, f"{source.name}: {exc}", messages.ERROR)
            else:
                self.message_user(request, f"{source.name}: subscribed ({sid})", messages.SUCCESS)


@admin.register(SyncRun)
class SyncRunAdmin(admin.ModelAdmin):
    list_display = ("source", "trigger", "started_at", "status", "created", "updated", "deleted", "unchanged")
    list_filter = ("status", "trigger", "source")
    readonly_fields = [f.name for f in SyncRun._meta.fields]

    def has_add_permission(self, request):
        return False
