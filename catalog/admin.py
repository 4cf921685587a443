"""Admin of the catalog: schema groups, schemas, schema versions, definition groups and definitions.

Lists with search, filters and counts; forms that write through the services; version history, compare,
new versions; the governance action that sets a schema's compatibility level.
"""
from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import Count
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse

from registry import services
from registry.admin import GroupAdmin, ServiceAdmin, action_form, highlighted
from registry.admin_forms import ServiceForm
from registry.services import VersionInput, WriteContext
from registry.services.resources import version_attributes

from .admin_resources import (
    MetadataForm,
    NewVersionForm,
    ResourceCreateForm,
    compare_sections,
    document_section,
    versions_section,
)
from .models import Definition, DefinitionGroup, Schema, SchemaGroup, SchemaVersion
from .validators.compatibility import LEVELS


class FormatFilter(admin.SimpleListFilter):
    title = "format"
    parameter_name = "format"
    field = "latest__extensions__format"

    def lookups(self, request, model_admin):
        values = model_admin.get_queryset(request).values_list(self.field, flat=True).distinct()
        return sorted({(v, v) for v in values if v})

    def queryset(self, request, queryset):
        return queryset.filter(**{self.field: self.value()}) if self.value() else queryset


class GroupFormatFilter(FormatFilter):
    field = "extensions__format"


class TagOwnerFilter(admin.SimpleListFilter):
    title = "owner tag"
    parameter_name = "owner"

    def lookups(self, request, model_admin):
        values = model_admin.get_queryset(request).values_list("tags__owner", flat=True).distinct()
        return sorted({(v, v) for v in values if v})

    def queryset(self, request, queryset):
        return queryset.filter(tags__owner=self.value()) if self.value() else queryset


@admin.register(SchemaGroup)
class SchemaGroupAdmin(GroupAdmin):
    group_plural = "schemaGroups"
    list_display = ("gid", "name", "schema_count", "epoch", "modified_by", "modified_on")
    list_filter = (TagOwnerFilter, "modified_on")

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(schema_count=Count("resources"))

    @admin.display(description="schemas", ordering="schema_count")
    def schema_count(self, obj):
        return obj.schema_count


@admin.register(DefinitionGroup)
class DefinitionGroupAdmin(GroupAdmin):
    group_plural = "definitionGroups"
    list_display = ("gid", "name", "group_format", "definition_count", "epoch", "modified_by", "modified_on")
    list_filter = (GroupFormatFilter, TagOwnerFilter)

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(definition_count=Count("resources"))

    @admin.display(description="format")
    def group_format(self, obj):
        return obj.extensions.get("format")

    @admin.display(description="definitions", ordering="definition_count")
    def definition_count(self, obj):
        return obj.definition_count


class CompatibilityForm(forms.Form):
    compatibility = forms.ChoiceField(choices=[(level, level) for level in LEVELS])


class ResourceAdmin(ServiceAdmin):
    group_plural = ""
    resource_plural = ""
    list_display = ("rid", "group", "latest_version", "resource_format", "version_count", "modified_on")
    search_fields = ("rid", "group__gid", "name", "description")
    list_filter = (FormatFilter,)
    list_select_related = ("group", "latest")

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(version_count=Count("versions"))

    @admin.display(description="latest version")
    def latest_version(self, obj):
        return obj.latest.vid if obj.latest else None

    @admin.display(description="format")
    def resource_format(self, obj):
        return (obj.latest.extensions.get("format") if obj.latest else None) or obj.extensions.get("format")

    @admin.display(description="versions", ordering="version_count")
    def version_count(self, obj):
        return obj.version_count

    def get_service_form(self, request, obj, data):
        if obj is None:
            return ResourceCreateForm(data, request=request, group_plural=self.group_plural,
                                      resource_plural=self.resource_plural)
        return MetadataForm(data, request=request, resource=obj,
                            with_compatibility=self.resource_plural == "schemas")

    def url(self, name, *args):
        return reverse(f"admin:catalog_{self.model._meta.model_name}_{name}", args=args)

    def version_url(self, version):
        return "#"

    def sections(self, request, obj):
        latest = obj.latest
        out = [document_section(latest, version_attributes(latest).get("format"))] if latest else []
        out.append(versions_section(obj, self.version_url, self.url("compare", obj.pk),
                                    self.url("newversion", obj.pk)))
        return out

    def get_urls(self):
        view = self.admin_site.admin_view
        return [path("<int:pk>/compare/", view(self.compare_view), name=f"catalog_{self.model._meta.model_name}_compare"),
                path("<int:pk>/new-version/", view(self.new_version_view),
                     name=f"catalog_{self.model._meta.model_name}_newversion"),
                *super().get_urls()]

    def compare_view(self, request, pk):
        resource = get_object_or_404(self.get_queryset(request), pk=pk)
        a = get_object_or_404(resource.versions, vid=request.GET.get("a"))
        b = get_object_or_404(resource.versions, vid=request.GET.get("b"))
        return self.render_form(request, resource, f"{resource}: version {a.vid} and version {b.vid}",
                                sections=compare_sections(resource, a, b))

    def new_version_view(self, request, pk):
        resource = get_object_or_404(self.get_queryset(request), pk=pk)
        if not self.has_change_permission(request, resource):
            return self.render_form(request, resource, "Permission denied", intro="You may not change this.")
        source = resource.versions.filter(vid=request.GET.get("from")).first() or resource.latest
        initial = {"document": bytes(source.content or b"").decode("utf-8", "replace"),
                   "media_type": source.media_type or "application/json"} if source else {}
        form = NewVersionForm(request.POST or None, request=request, resource=resource, initial=initial)
        if request.method == "POST" and form.is_valid():
            self.message_user(request, f"Created version {form.result.vid}.", messages.SUCCESS)
            return HttpResponseRedirect(self.url("change", resource.pk))
        return self.render_form(request, resource, f"New version of {resource}", form,
                                submit_label="Create version",
                                intro=f"Starting from version {source.vid}." if source else None)

    def delete_model(self, request, obj):
        services.delete_resource(WriteContext.from_request(request), obj.group.group_type, obj.group.gid,
                                 obj.resource_type, obj.rid)

    def delete_queryset(self, request, queryset):
        for obj in queryset.select_related("group"):
            self.delete_model(request, obj)


@admin.register(Schema)
class SchemaAdmin(ResourceAdmin):
    group_plural, resource_plural = "schemaGroups", "schemas"
    actions = ["set_compatibility"]

    def version_url(self, version):
        return reverse("admin:catalog_schemaversion_change", args=[version.pk])

    @admin.action(description="Set the compatibility level of the selected schemas", permissions=["change"])
    def set_compatibility(self, request, queryset):
        def apply(data):
            ctx = WriteContext.from_request(request)
            for schema in queryset.select_related("group", "latest"):
                body = {**version_attributes(schema.latest), "compatibility": data["compatibility"]}
                services.put_meta(ctx, "schemaGroups", schema.group.gid, "schemas", schema.rid, None, body)
            self.message_user(request, f"Compatibility set to {data['compatibility']} on {queryset.count()} "
                                       f"schema(s) by {ctx.user}.", messages.SUCCESS)

        return action_form(self, request, queryset, CompatibilityForm, "set_compatibility",
                           "Set the compatibility level", apply, "Set compatibility")


@admin.register(Definition)
class DefinitionAdmin(ResourceAdmin):
    group_plural, resource_plural = "definitionGroups", "definitions"


class VersionDocumentForm(ServiceForm):
    media_type = forms.CharField(label="Media type")
    document = forms.CharField(widget=forms.Textarea(attrs={"rows": 16, "cols": 100, "style": "font-family: monospace"}))
    epoch = forms.IntegerField(required=False, widget=forms.HiddenInput)
    problem_field = "document"

    def __init__(self, *args, version, **kwargs):
        self.version = version
        kwargs.setdefault("initial", {"media_type": version.media_type,
                                      "document": bytes(version.content or b"").decode("utf-8", "replace"),
                                      "epoch": version.epoch})
        super().__init__(*args, **kwargs)

    def perform(self, data):
        resource = self.version.resource
        inp = VersionInput(document=data["document"].encode(), media_type=data["media_type"], epoch=data.get("epoch"))
        _r, version, _created = services.put_version(self.context(), resource.group.group_type, resource.group.gid,
                                                     resource.resource_type, resource.rid, self.version.vid, inp)
        return version


@admin.register(SchemaVersion)
class SchemaVersionAdmin(ServiceAdmin):
    list_display = ("vid", "resource", "version_format", "epoch", "modified_by", "modified_on")
    search_fields = ("vid", "resource__rid", "resource__group__gid")
    list_select_related = ("resource", "resource__group")

    @admin.display(description="format")
    def version_format(self, obj):
        return obj.extensions.get("format") or obj.resource.extensions.get("format")

    def has_add_permission(self, request):
        return False

    def get_service_form(self, request, obj, data):
        return VersionDocumentForm(data, request=request, version=obj)

    def sections(self, request, obj):
        fmt = self.version_format(obj)
        new_from = reverse("admin:catalog_schema_newversion", args=[obj.resource_id]) + f"?from={obj.vid}"
        return [{"title": "Document", "html": highlighted(bytes(obj.content or b""), obj.media_type, fmt)
                 + f"<p><a class='button' href='{new_from}'>Create a new version from this one</a></p>"}]

    def delete_model(self, request, obj):
        resource = obj.resource
        services.delete_version(WriteContext.from_request(request), resource.group.group_type, resource.group.gid,
                                resource.resource_type, resource.rid, obj.vid)
