"""The admin of the catalog's groups: schema groups (with their compatibility level) and definition groups (with
their Format field); the action that sets a group's or a schema's compatibility level."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import OuterRef
from django.utils.html import format_html, format_html_join

from registry import services
from registry.admin import (
    GroupAdmin,
    GroupForm,
    OwnerFilter,
    TagFilter,
    action_form,
    group_body,
)
from registry.domain.errors import Problem
from registry.domain.model import effective_compatibility
from registry.models import Resource
from registry.services import WriteContext
from registry.store.selectors import count_subquery

from .admin_filters import GroupFormatFilter
from .models import DefinitionGroup, SchemaGroup
from .validators.compatibility import LEVELS


@admin.register(SchemaGroup)
class SchemaGroupAdmin(GroupAdmin):
    group_plural = "schemaGroups"
    resource_admin = "admin:catalog_schema_change"
    list_display = ("group_id", "name", "schema_count", "compatibility", "epoch", "modified_by", "modified")
    actions = ["set_compatibility", "export_document"]
    list_filter = (OwnerFilter, TagFilter, "modified_on")

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(schema_count=count_subquery(Resource, group=OuterRef("pk")))

    @admin.display(description="schemas", ordering="schema_count")
    def schema_count(self, obj):
        return obj.schema_count

    @admin.display(description="compatibility")
    def compatibility(self, obj):
        return obj.extensions.get("compatibility") or f"{effective_compatibility()} (default)"

    @admin.action(description="Set the compatibility level of the selected schema groups", permissions=["change"])
    def set_compatibility(self, request, queryset):
        def write(ctx, group, level):
            services.put_group(
                ctx=ctx, address=services.EntityAddress.of(group), data={**group_body(group), "compatibility": level}
            )

        return compatibility_action(self, request, queryset, write, "schema group(s)")


# suggested in a definition group's Format field (the versions the specs define; any NAME/VERSION is accepted)
MESSAGE_FORMATS = ("CloudEvents/1.0", "AMQP/1.0", "MQTT/3.1.1", "MQTT/5.0", "Kafka/0.11", "HTTP/1.1", "NATS/1.0")


class FormatInput(forms.TextInput):
    """A text input offering the message formats the catalog knows, and those already stored (a datalist)."""

    def __init__(self, suggestions, attrs=None):
        super().__init__({"list": "known-formats", "size": 30, **(attrs or {})})
        self.suggestions = suggestions

    def render(self, name, value, attrs=None, renderer=None):
        options = format_html_join("", "<option value='{}'>", ((s,) for s in self.suggestions()))
        return format_html("{}<datalist id='known-formats'>{}</datalist>", super().render(name, value, attrs), options)


def message_formats() -> list[str]:
    stored = DefinitionGroup.objects.values_list("extensions__format", flat=True)
    return sorted({*MESSAGE_FORMATS, *(f for f in stored.distinct()[:50] if isinstance(f, str))})


class DefinitionGroupForm(GroupForm):
    """A definition group's form: its message format (REQUIRED) is a field of its own, not a key of the JSON."""

    format = forms.CharField(
        max_length=128,
        widget=FormatInput(message_formats),
        error_messages={"required": "format is required (NAME/VERSION, e.g. CloudEvents/1.0)"},
        help_text="the message format of every definition in the group, NAME/VERSION, e.g. CloudEvents/1.0",
    )
    field_order = ("gid", "format", "name", "description", "docs", "tags", "attributes")

    def __init__(self, *args, instance=None, **kwargs):
        super().__init__(*args, instance=instance, **kwargs)
        if instance is not None and not self.is_bound:
            extensions = {k: v for k, v in instance.extensions.items() if k != "owners"}  # the Owners field's
            self.initial["format"] = extensions.pop("format", "")
            self.initial["attributes"] = extensions

    def perform(self, data):
        return super().perform({**data, "attributes": {**(data.get("attributes") or {}), "format": data["format"]}})


@admin.register(DefinitionGroup)
class DefinitionGroupAdmin(GroupAdmin):
    group_plural = "definitionGroups"
    resource_admin = "admin:catalog_definition_change"
    list_display = ("group_id", "name", "group_format", "definition_count", "epoch", "modified_by", "modified")
    list_filter = (GroupFormatFilter, OwnerFilter, TagFilter)

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(definition_count=count_subquery(Resource, group=OuterRef("pk")))

    @admin.display(description="format")
    def group_format(self, obj):
        return obj.extensions.get("format")

    def get_service_form(self, request, obj, data):
        return DefinitionGroupForm(data, request=request, group_plural=self.group_plural, instance=obj)

    @admin.display(description="definitions", ordering="definition_count")
    def definition_count(self, obj):
        return obj.definition_count


class CompatibilityForm(forms.Form):
    compatibility = forms.ChoiceField(choices=[(level, level) for level in LEVELS])


def compatibility_action(modeladmin, request, queryset, write, noun: str):
    """The governance action of the schema group and schema lists: the chosen level written to each selected
    entity by `write(ctx, obj, level)` (a service call); a refusal is reported for its entity only."""

    def apply(data):
        ctx = WriteContext.from_request(request)
        done = 0
        for obj in queryset:
            try:
                write(ctx, obj, data["compatibility"])
                done += 1
            except Problem as problem:
                modeladmin.message_user(request, f"{obj}: {problem.detail}", messages.ERROR)
        if done:
            modeladmin.message_user(
                request,
                f"Compatibility set to {data['compatibility']} on {done} {noun} by {ctx.user}.",
                messages.SUCCESS,
            )

    return action_form(
        modeladmin,
        request,
        queryset,
        CompatibilityForm,
        "set_compatibility",
        "Set the compatibility level",
        apply,
        "Set compatibility",
    )
