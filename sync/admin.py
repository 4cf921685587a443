"""Admin of sync: sources (with 'sync now' and 'subscribe at the remote' actions) and their runs.

A source's owner is the user its pulls write as (sync/services.py): whoever adds it, and only a registry admin may
name another (or set one on a source that has none). A source is changed, deleted, synced now and subscribed only by
its owner or a registry admin: anyone else changing what it pulls would write with the owner's rights.

A source's `token` is write-only: the form never shows it (a blank field keeps the stored one, a checkbox
removes it) and a page shows only whether one is set; the password in the base URL's user info is shown
masked, and kept when the URL is posted back as shown."""

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.db import transaction
from django.urls import reverse
from django.utils.html import format_html_join

from registry.access.permissions import is_registry_admin
from registry.governance.links import stored_link
from registry.services import WriteContext

from . import services
from .models import SyncRun, SyncSource


def webhook_url(source: SyncSource) -> str:
    path = reverse("sync-webhook", kwargs={"source_id": source.pk, "secret": source.webhook_secret})
    return settings.REGISTRY_BASE_URL.rstrip("/") + path


class SyncSourceForm(forms.ModelForm):
    token = forms.CharField(
        required=False,
        strip=True,
        widget=forms.PasswordInput(render_value=False, attrs={"size": 60, "autocomplete": "off"}),
        help_text="sent as 'Authorization: Token ...'; write-only: never shown, a blank field keeps the stored token",
    )
    clear_token = forms.BooleanField(required=False, label="Remove the stored token")

    class Meta:
        model = SyncSource
        fields = ("name", "base_url", "token", "scope", "path", "interval_seconds", "enabled", "subscribe", "owner")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk is not None:
            self.initial["base_url"] = self.instance.shown_base_url

    def clean_base_url(self):
        url = self.cleaned_data.get("base_url")
        if self.instance.pk is not None and url == self.instance.shown_base_url:
            return self.instance.base_url  # posted back as shown, its password masked: the stored one
        return url

    request_user = None  # the signed-in user (SyncSourceAdmin.get_form)

    def clean(self):
        data = super().clean()
        if data.get("clear_token"):
            data["token"] = ""
        elif not data.get("token"):
            data["token"] = self.instance.token  # kept: the form never had it
        scope, path = data.get("scope") or self.instance.scope, data.get("path", self.instance.path)
        # the remote's URL follows the subscription sink rule; the path names what the scope says (sync/services.py)
        reason = services.base_url_refusal(data["base_url"]) if data.get("base_url") else None
        if reason:
            self.add_error("base_url", reason)
        reason = services.path_refusal(scope, path or "")
        if reason:
            self.add_error("path", reason)
        owner = data.get("owner") or self.instance.owner or self.request_user
        if data.get("base_url") and owner is not None:
            other = services.overlapping_source(data["base_url"], scope, path, owner.pk, self.instance.pk)
            if other is not None:
                raise forms.ValidationError(
                    f"the source {other.name!r} of another owner pulls what this scope names from the same remote: "
                    "what a sync brings is its source's owner's to change (choose another scope, or ask that owner)"
                )
        return data


class SyncRunInline(admin.TabularInline):
    model = SyncRun
    extra = 0
    can_delete = False
    fields = (
        "started_at",
        "trigger",
        "status",
        "created",
        "updated",
        "deleted",
        "unchanged",
        "skipped",
        "skipped_list",
        "error",
    )
    readonly_fields = fields
    ordering = ("-started_at",)
    max_num = 0

    @admin.display(description="skipped: why")
    def skipped_list(self, run):
        return skipped_lines(run)


def skipped_lines(run: SyncRun):
    """The run's report: each entity it skipped, and why."""
    return format_html_join("", "<div><code>{}</code>: {}</div>", ((e["path"], e["reason"]) for e in run.report))


def may_manage(request, source: SyncSource | None) -> bool:
    """Whether the request's user may change, delete, run or subscribe `source`: its owner or a registry admin."""
    return source is None or is_registry_admin(request.user) or source.owner_id == request.user.pk


@admin.register(SyncSource)
class SyncSourceAdmin(admin.ModelAdmin):
    form = SyncSourceForm
    list_display = (
        "name",
        "remote",
        "scope",
        "path",
        "interval_seconds",
        "enabled",
        "subscribe",
        "owner",
        "last_run_at",
        "last_status",
    )
    list_filter = ("enabled", "scope", "last_status")
    readonly_fields = ("remote", "token_state", "remote_subscription_id", "last_run_at", "last_status", "owner_shown")
    raw_id_fields = ("owner",)
    inlines = [SyncRunInline]
    actions = ["sync_now", "subscribe_at_remote"]

    @admin.display(description="base URL", ordering="base_url")
    def remote(self, source):
        return stored_link(source.shown_base_url)

    @admin.display(description="token")
    def token_state(self, source):
        return "set (write-only: not shown)" if source.token else "not set"

    @admin.display(description="owner")
    def owner_shown(self, source):
        if source is None or source.pk is None:
            return "you (its pulls write with your rights)"
        if source.owner is None:
            return "none: the source does not run until a registry admin sets one"
        return source.owner.get_username()

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        form.request_user = request.user  # a class of this request's own (modelform_factory)
        return form

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and may_manage(request, obj)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and may_manage(request, obj)

    def save_model(self, request, obj, form, change):
        """The owner: whoever adds the source; a registry admin may name another (the form offers them the field).
        The change's audit row in the same transaction (the admin's), saying what changed."""
        if obj.owner_id is None or not (change or is_registry_admin(request.user)):
            obj.owner = request.user  # never empty: a registry admin who clears it owns the source
        stored = SyncSource.objects.filter(pk=obj.pk).first() if change else None
        super().save_model(request, obj, form, change)
        ctx = WriteContext.from_request(request)
        services.source_changed(ctx, obj, "update" if change else "create", services.source_state(stored))

    @transaction.atomic
    def delete_model(self, request, obj):
        pk, before = obj.pk, services.source_state(obj)
        super().delete_model(request, obj)
        obj.pk = pk
        services.source_changed(WriteContext.from_request(request), obj, "delete", before)

    @transaction.atomic
    def delete_queryset(self, request, queryset):
        for source in queryset:  # (one by one: each with its audit row)
            self.delete_model(request, source)

    def get_fields(self, request, obj=None):
        writer = self.has_change_permission(request, obj) if obj is not None else self.has_add_permission(request)
        if not writer:  # every field is shown read-only: the base URL masked, the token by its state only
            return (
                "name",
                "remote",
                "token_state",
                "scope",
                "path",
                "interval_seconds",
                "enabled",
                "subscribe",
                "owner_shown",
                "remote_subscription_id",
                "last_run_at",
                "last_status",
            )
        after = ("remote_subscription_id", "last_run_at", "last_status") if obj is not None else ()
        token = ("token_state", "token", "clear_token") if obj is not None else ("token",)
        owner = "owner" if is_registry_admin(request.user) else "owner_shown"
        return ("name", "base_url", *token, "scope", "path", "interval_seconds", "enabled", "subscribe", owner, *after)

    def refused(self, request, source: SyncSource) -> bool:
        """An action on a source the user may not manage: said, and not run."""
        if may_manage(request, source):
            return False
        self.message_user(request, f"{source.name}: only its owner or a registry admin may run it", messages.ERROR)
        return True

    @admin.action(description="Sync now", permissions=["change"])
    def sync_now(self, request, queryset):
        """Each source pulls as its owner (sync/services.py), whoever clicks."""
        for source in queryset:
            if self.refused(request, source):
                continue
            run = services.run_sync(source, trigger="admin")
            level = {SyncRun.Status.OK: messages.SUCCESS, SyncRun.Status.PARTIAL: messages.WARNING}.get(
                run.status, messages.ERROR
            )
            skipped = "; ".join(f"{e['path']}: {e['reason']}" for e in run.report)
            self.message_user(
                request,
                f"{source.name}: {run.status} (created {run.created}, updated {run.updated}, "
                f"deleted {run.deleted}, skipped {run.skipped}) {run.error}{skipped}",
                level,
            )

    @admin.action(description="Subscribe at the remote (pull on its change events)", permissions=["change"])
    def subscribe_at_remote(self, request, queryset):
        for source in queryset:
            if self.refused(request, source):
                continue
            try:
                sid = services.subscribe(source, webhook_url(source))
            except Exception as exc:  # shown to the operator
                self.message_user(request, f"{source.name}: {exc}", messages.ERROR)
            else:
                self.message_user(request, f"{source.name}: subscribed ({sid})", messages.SUCCESS)


@admin.register(SyncRun)
class SyncRunAdmin(admin.ModelAdmin):
    list_display = (
        "source",
        "trigger",
        "started_at",
        "status",
        "created",
        "updated",
        "deleted",
        "unchanged",
        "skipped",
    )
    list_filter = ("status", "trigger", "source")
    readonly_fields = [f.name for f in SyncRun._meta.fields if f.name != "report"] + ["skipped_list"]
    exclude = ("report",)

    @admin.display(description="skipped: why")
    def skipped_list(self, run):
        return skipped_lines(run)

    def has_add_permission(self, request):
        return False
