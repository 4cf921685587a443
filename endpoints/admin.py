"""Admin of endpoints: list by usage, protocol and deprecation; the governance action that deprecates."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import OuterRef

from registry import services
from registry.admin import GroupAdmin, OwnerFilter, TagFilter, action_form
from registry.domain.errors import Problem
from registry.models import Resource
from registry.services import WriteContext
from registry.store.selectors import count_subquery

from .models import Endpoint

SAMPLE = 2_000  # rows read for a filter's choices


class ValueFilter(admin.SimpleListFilter):
    field = ""

    def lookups(self, request, model_admin):
        # the values of the newest SAMPLE endpoints: a DISTINCT of every row read the whole table (issue 40)
        newest = model_admin.get_queryset(request).order_by("-pk").values_list(self.field, flat=True)[:SAMPLE]
        return sorted({(v, v) for v in newest if isinstance(v, str)})

    def queryset(self, request, queryset):
        return queryset.filter(**{self.field: self.value()}) if self.value() else queryset


class UsageFilter(ValueFilter):
    title, parameter_name, field = "usage", "usage", "extensions__usage"


class ProtocolFilter(ValueFilter):
    title, parameter_name, field = "protocol", "protocol", "extensions__config__protocol"


class FormatFilter(ValueFilter):
    title, parameter_name, field = "format", "format", "extensions__format"


class DeprecatedFilter(admin.SimpleListFilter):
    title, parameter_name = "deprecated", "deprecated"

    def lookups(self, request, model_admin):
        return [("yes", "deprecated"), ("no", "not deprecated")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(extensions__has_key="deprecated")
        if self.value() == "no":
            return queryset.exclude(extensions__has_key="deprecated")
        return queryset


class DeprecateForm(forms.Form):
    effective = forms.DateTimeField(required=False, help_text="when it enters the deprecated state (UTC); empty: now")
    removal = forms.DateTimeField(required=False, help_text="when it may be removed (UTC)")
    alternative = forms.URLField(required=False, help_text="an endpoint to use instead", assume_scheme="https")
    docs = forms.URLField(required=False, label="Docs URL", assume_scheme="https")

    def clean(self):
        data = super().clean()
        effective, removal = data.get("effective"), data.get("removal")
        if effective and removal and removal < effective:
            self.add_error("removal", "the removal cannot come before the effective time")
        return data


def _rfc3339(value):
    return value.strftime("%Y-%m-%dT%H:%M:%SZ") if value else None


@admin.register(Endpoint)
class EndpointAdmin(GroupAdmin):
    group_plural = "endpoints"
    list_display = ("group_id", "name", "usage", "protocol", "deprecation", "definition_count", "epoch", "modified")
    list_filter = (UsageFilter, ProtocolFilter, FormatFilter, DeprecatedFilter, OwnerFilter, TagFilter)
    actions = ["deprecate", "export_document"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(definition_count=count_subquery(Resource, group=OuterRef("pk")))

    @admin.display(description="definitions", ordering="definition_count")
    def definition_count(self, obj):
        return obj.definition_count

    @admin.display(description="usage")
    def usage(self, obj):
        return obj.extensions.get("usage")

    @admin.display(description="protocol")
    def protocol(self, obj):
        config = obj.extensions.get("config")
        return config.get("protocol") if isinstance(config, dict) else None

    @admin.display(description="deprecated")
    def deprecation(self, obj):
        deprecated = obj.extensions.get("deprecated")
        if deprecated is None:
            return ""
        return f"removal {deprecated.get('removal')}" if deprecated.get("removal") else "yes"

    @admin.action(description="Deprecate the selected endpoints", permissions=["change"])
    def deprecate(self, request, queryset):
        def apply(data):
            ctx = WriteContext.from_request(request)
            effective = data["effective"] or ctx.now
            deprecated = {
                k: v
                for k, v in {
                    "effective": _rfc3339(effective),
                    "removal": _rfc3339(data["removal"]),
                    "alternative": data["alternative"] or None,
                    "docs": data["docs"] or None,
                }.items()
                if v
            }
            done = 0
            for endpoint in queryset:
                body = {k: getattr(endpoint, k) for k in ("name", "description", "docs") if getattr(endpoint, k)}
                if endpoint.tags:
                    body["tags"] = endpoint.tags
                body.update({**endpoint.extensions, "deprecated": deprecated})
                try:
                    services.put_group(ctx=ctx, address=services.EntityAddress.of(endpoint), data=body)
                    done += 1
                except Problem as problem:
                    self.message_user(request, f"{endpoint.gid}: {problem.detail}", messages.ERROR)
            if done:
                self.message_user(request, f"Deprecated {done} endpoint(s).", messages.SUCCESS)

        return action_form(
            self, request, queryset, DeprecateForm, "deprecate", "Deprecate endpoints", apply, "Deprecate"
        )
