"""Admin of the catalog: schema groups, schemas, schema versions, definition groups and definitions.

Lists with search, filters and counts; forms that write through the services; version history, compare,
new versions; the governance action that sets a schema's compatibility level.
"""

from __future__ import annotations

import json

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.html import format_html

from confluent.rule_checks import migration_rule_names
from registry import services
from registry.access.read_scope import scope_for
from registry.admin import (
    ServiceAdmin,
    app_version_sections,
    register_document_lexer,
)
from registry.governance.forms import DocumentField, DocumentFormMixin, ServiceForm, pretty_document
from registry.governance.links import breakable, shown_time
from registry.governance.references import ReferencesAdminMixin
from registry.governance.search import SearchAdminMixin
from registry.models import Version
from registry.services import VersionInput
from registry.services.versions import version_attributes
from registry.store.selectors import count_subquery

from .admin_checks import (
    CandidateForm,
    MessageForm,
    MigrationForm,
    compatibility_verdict_section,
    message_initial,
    message_verdict_section,
    migration_section,
)
from .admin_filters import FormatFilter, ResourceOwnerFilter, ResourceTagFilter, VersionFormatFilter
from .admin_groups import compatibility_action  # importing it registers the group admins
from .admin_resources import (
    MetadataForm,
    NewVersionForm,
    ResourceCreateForm,
    compare_sections,
    document_section,
    versions_section,
)
from .models import Definition, Schema, SchemaVersion
from .validators.format_names import schema_format_family


def schema_lexer(media_type: str, format_name: str) -> str | None:
    """Pygments' lexer for a schema document that is not JSON: XML Schema or a .proto file."""
    family, _version = schema_format_family(format_name)
    if "xml" in media_type.lower() or family == "XSD":
        return "xml"
    return "protobuf" if family == "Protobuf" else None


register_document_lexer(schema_lexer)


class ResourceAdmin(SearchAdminMixin, ReferencesAdminMixin, ServiceAdmin):
    entity_kind = "resource"
    group_plural = ""
    resource_plural = ""
    search_target = "resource"
    list_display = ("resource_id", "group_path", "latest_version", "resource_format", "version_count", "modified")
    search_fields = ("rid", "group__gid", "name", "description")
    list_filter = (FormatFilter, ResourceOwnerFilter, ResourceTagFilter)
    list_select_related = ("group", "latest")

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(version_count=count_subquery(Version, resource=OuterRef("pk")))

    @admin.display(description="id", ordering="rid")
    def resource_id(self, obj):
        return breakable(obj.rid)

    @admin.display(description="group", ordering="group__gid")
    def group_path(self, obj):
        return breakable(obj.group.gid)

    @admin.display(description="modified", ordering="modified_on")
    def modified(self, obj):
        return shown_time(obj.modified_on)

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
            return ResourceCreateForm(
                data, request=request, group_plural=self.group_plural, resource_plural=self.resource_plural
            )
        return MetadataForm(data, request=request, resource=obj, with_compatibility=self.resource_plural == "schemas")

    def intro(self, request, obj):
        group_admin = {
            "schemaGroups": "admin:catalog_schemagroup_change",
            "definitionGroups": "admin:catalog_definitiongroup_change",
        }.get(obj.group.group_type)
        link = reverse(group_admin, args=[obj.group_id]) if group_admin else "#"
        return format_html(
            "In group <a href='{}'>{}</a>; latest version {}.",
            link,
            obj.group.path,
            obj.latest.vid if obj.latest else "none",
        )

    def url(self, name, *args):
        return reverse(f"admin:catalog_{self.model._meta.model_name}_{name}", args=args)

    def version_url(self, version):
        return self.url("document", version.resource_id)

    def sections(self, request, obj):
        latest = obj.latest
        out = []
        if latest:
            section = document_section(latest, self.resource_format(obj))  # the version's format, else the schema's
            if not latest.resource_uri:
                section["html"] += format_html(
                    "<p><a class='button' href='{}' id='edit-document'>Edit the document of version {}</a></p>",
                    self.url("document", obj.pk),
                    latest.vid,
                )
            out.append(section)
        out.append(versions_section(obj, self.version_url, self.url("compare", obj.pk), self.url("newversion", obj.pk)))
        return out

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("<int:pk>/compare/", view(self.compare_view), name=f"catalog_{self.model._meta.model_name}_compare"),
            path(
                "<int:pk>/new-version/",
                view(self.new_version_view),
                name=f"catalog_{self.model._meta.model_name}_newversion",
            ),
            path(
                "<int:pk>/document/", view(self.document_view), name=f"catalog_{self.model._meta.model_name}_document"
            ),
            *super().get_urls(),
        ]

    def readable_resource(self, request, pk):
        """The resource of a check page: the model's view permission suffices (a check writes nothing)."""
        resource = get_object_or_404(self.get_queryset(request).select_related("group"), pk=pk)
        if not self.has_view_or_change_permission(request, resource):
            raise PermissionDenied
        return resource

    def check_link(self, name: str, pk: int, label: str, html_id: str) -> dict:
        return {
            "title": "Checks",
            "html": format_html(
                "<p><a class='button' href='{}' id='{}'>{}</a></p>", self.url(name, pk), html_id, label
            ),
        }

    def compare_view(self, request, pk):
        resource = get_object_or_404(self.get_queryset(request), pk=pk)
        a = get_object_or_404(resource.versions, vid=request.GET.get("a"))
        b = get_object_or_404(resource.versions, vid=request.GET.get("b"))
        return self.render_form(
            request,
            resource,
            f"{resource}: version {a.vid} and version {b.vid}",
            sections=compare_sections(
                resource, a, b, self.url("compare", resource.pk), self.url("change", resource.pk)
            ),
        )

    def document_view(self, request, pk):
        """Edit the latest version's document in place (same epoch rules as PUT .../rID)."""
        resource = get_object_or_404(self.get_queryset(request), pk=pk)
        if resource.latest is None:
            return HttpResponseRedirect(self.url("change", resource.pk))
        may_write = self.has_change_permission(request, resource)
        data = request.POST if request.method == "POST" and may_write else None
        form = VersionDocumentForm(data, request=request, version=resource.latest)
        if data is not None and form.is_valid() and form.save():
            self.message_user(request, form.outcome, messages.SUCCESS)
            return HttpResponseRedirect(self.url("change", resource.pk))
        return self.render_form(
            request,
            resource,
            f"Document of {resource}",
            form,
            sections=[document_section(resource.latest, self.resource_format(resource))],
        )

    def new_version_view(self, request, pk):
        resource = get_object_or_404(self.get_queryset(request), pk=pk)
        if not self.has_change_permission(request, resource):
            return self.render_form(request, resource, "Permission denied", intro="You may not change this.")
        source = resource.versions.filter(vid=request.GET.get("from")).first() or resource.latest
        initial = (
            {"document": pretty_document(source.content), "media_type": source.media_type or "application/json"}
            if source
            else {}
        )
        form = NewVersionForm(request.POST or None, request=request, resource=resource, initial=initial)
        if request.method == "POST" and form.is_valid() and form.save() and form.result is not None:
            self.message_user(request, f"Created version {form.result.vid}.", messages.SUCCESS)
            return HttpResponseRedirect(self.url("change", resource.pk))
        return self.render_form(
            request,
            resource,
            f"New version of {resource}",
            form,
            submit_label="Create version",
            intro=f"Starting from version {source.vid}." if source else None,
        )


@admin.register(Schema)
class SchemaAdmin(ResourceAdmin):
    group_plural, resource_plural = "schemaGroups", "schemas"
    actions = ["set_compatibility"]

    def version_url(self, version):
        return reverse("admin:catalog_schemaversion_change", args=[version.pk])

    @admin.action(description="Set the compatibility level of the selected schemas", permissions=["change"])
    def set_compatibility(self, request, queryset):
        def write(ctx, schema, level):
            body = {**version_attributes(schema.latest), "compatibility": level}
            services.put_meta(ctx=ctx, address=services.EntityAddress.of(schema), data=body)

        return compatibility_action(self, request, queryset.select_related("group", "latest"), write, "schema(s)")

    def sections(self, request, obj):
        return [
            self.check_link("check", obj.pk, "Check a candidate version", "check-candidate-link"),
            *super().sections(request, obj),
        ]

    def get_urls(self):
        return [
            path("<int:pk>/check/", self.admin_site.admin_view(self.check_view), name="catalog_schema_check"),
            *super().get_urls(),
        ]

    def check_view(self, request, pk):
        """The compatibility dry run of a pasted candidate version (`catalog.checks.schema_compatibility`)."""
        resource = self.readable_resource(request, pk)
        initial = (
            {
                "document": pretty_document(resource.latest.content),
                "media_type": resource.latest.media_type or "application/json",
            }
            if resource.latest
            else {}
        )
        form = CandidateForm(request.POST if request.method == "POST" else None, initial=initial)
        verdict = form.verdict(request, resource) if form.is_bound and form.is_valid() else None
        return self.render_form(
            request,
            resource,
            f"Check a candidate version of {resource}",
            form,
            sections=[compatibility_verdict_section(verdict)] if verdict else [],
            submit_label="Check compatibility",
            readonly=False,
            intro="A dry run of a new version: the verdict is shown, nothing is saved.",
        )


@admin.register(Definition)
class DefinitionAdmin(ResourceAdmin):
    group_plural, resource_plural = "definitionGroups", "definitions"

    def sections(self, request, obj):
        return [
            self.check_link("validate", obj.pk, "Validate a message", "validate-message-link"),
            *super().sections(request, obj),
        ]

    def get_urls(self):
        return [
            path(
                "<int:pk>/validate/", self.admin_site.admin_view(self.validate_view), name="catalog_definition_validate"
            ),
            *super().get_urls(),
        ]

    def validate_view(self, request, pk):
        """A pasted message checked against this definition (`catalog.message_checks`), nothing written."""
        resource = self.readable_resource(request, pk)
        base_url = request.build_absolute_uri("/").rstrip("/")
        form = MessageForm(
            request.POST if request.method == "POST" else None, initial=message_initial(resource, base_url)
        )
        verdict = (
            form.verdict(resource, base_url, scope_for(request.user)) if form.is_bound and form.is_valid() else None
        )
        sections = [message_verdict_section(verdict, resource.path)] if verdict else []
        return self.render_form(
            request,
            resource,
            f"Validate a message against {resource}",
            form,
            sections,
            submit_label="Validate",
            readonly=False,
            intro="The message is checked against the latest version of this definition; nothing is written. "
            "It starts as a skeleton built from the definition: fill in its values.",
        )


class VersionDocumentForm(DocumentFormMixin, ServiceForm):
    """A version's document edited in place; a JSON document that did not change (formatting aside) is not
    written, so opening and saving a page never makes a new epoch or a change event."""

    media_type = forms.CharField(label="Media type")
    document = DocumentField()
    epoch = forms.IntegerField(required=False, widget=forms.HiddenInput)
    problem_field = "document"

    def __init__(self, *args, version, **kwargs):
        self.version = version
        self.outcome = ""
        kwargs.setdefault(
            "initial",
            {"media_type": version.media_type, "document": pretty_document(version.content), "epoch": version.epoch},
        )
        super().__init__(*args, **kwargs)

    def unchanged(self, data) -> bool:
        if data["media_type"] != self.version.media_type:
            return False
        stored = bytes(self.version.content or b"")
        if data["document"].encode() == stored:
            return True
        try:
            return json.loads(data["document"]) == json.loads(stored)
        except ValueError:
            return False

    def perform(self, data):
        if self.unchanged(data):
            self.outcome = f"No change to {self.version}."
            return self.version
        inp = VersionInput(document=data["document"].encode(), media_type=data["media_type"], epoch=data.get("epoch"))
        _r, version, _created = services.put_version(
            ctx=self.context(), address=services.EntityAddress.of(self.version), data=inp
        )
        self.outcome = f"Saved {version} (epoch {version.epoch})."
        return version


@admin.register(SchemaVersion)
class SchemaVersionAdmin(SearchAdminMixin, ReferencesAdminMixin, ServiceAdmin):
    entity_kind = "version"
    search_target = "version"
    list_display = ("vid", "resource_path", "version_format", "epoch", "modified_by", "modified")
    search_fields = ("vid", "resource__rid", "resource__group__gid")
    list_filter = (VersionFormatFilter, "modified_on")
    list_select_related = ("resource", "resource__group")

    @admin.display(description="resource", ordering="resource__rid")
    def resource_path(self, obj):
        return breakable(obj.resource.path)

    @admin.display(description="modified", ordering="modified_on")
    def modified(self, obj):
        return shown_time(obj.modified_on)

    @admin.display(description="format")
    def version_format(self, obj):
        return obj.extensions.get("format") or obj.resource.extensions.get("format")

    def has_add_permission(self, request):
        return False

    def get_service_form(self, request, obj, data):
        return VersionDocumentForm(data, request=request, version=obj)

    def get_urls(self):
        return [
            path(
                "<int:pk>/migrate/", self.admin_site.admin_view(self.migrate_view), name="catalog_schemaversion_migrate"
            ),
            *super().get_urls(),
        ]

    def migrate_view(self, request, pk):
        """The dry run of a JSONata migration rule of this version's data contract on a pasted message
        (`catalog.checks.migration_dry_run`): the view permission suffices, nothing is written."""
        version = get_object_or_404(self.get_queryset(request).select_related("resource__group"), pk=pk)
        if not self.has_view_or_change_permission(request, version):
            raise PermissionDenied
        form = MigrationForm(
            request.POST if request.method == "POST" else None,
            rule_names=migration_rule_names(version),
            initial={"message": "{}"},
        )
        result = form.result(version) if form.is_bound and form.is_valid() else None
        return self.render_form(
            request,
            version,
            f"Dry-run a migration rule of {version.resource.path}/versions/{version.vid}",
            form,
            sections=[migration_section(result)] if result else [],
            submit_label="Run",
            readonly=False,
            intro="A consumer's migration of a sample message, as its deserializer runs the version's JSONata rule; "
            "nothing is saved.",
        )

    def sections(self, request, obj):
        fmt = self.version_format(obj)
        new_from = reverse("admin:catalog_schema_newversion", args=[obj.resource_id]) + f"?from={obj.vid}"
        schema = reverse("admin:catalog_schema_change", args=[obj.resource_id])
        links = format_html(
            "<p><a class='button' href='{}'>Create a new version from this one</a> <a href='{}'>History of {}</a></p>",
            new_from,
            schema,
            obj.resource.path,
        )
        latest = obj.resource.latest
        if latest is not None and latest.pk != obj.pk:
            compare = reverse("admin:catalog_schema_compare", args=[obj.resource_id])
            links += format_html(
                "<p><a href='{}?a={}&amp;b={}'>Compare with the latest version ({})</a></p>",
                compare,
                obj.vid,
                latest.vid,
                latest.vid,
            )
        section = document_section(obj, fmt)
        return [{**section, "html": section["html"] + links}, *app_version_sections(obj.resource.group.group_type, obj)]
