"""The governance UI's engine part: a ModelAdmin base whose add/change pages are service forms (the same
writes, validation, epochs and events as the API), and the group form shared by every group type."""

from __future__ import annotations

import json
from typing import ClassVar

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.db.models import OuterRef, TextField
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast
from django.http import HttpResponseRedirect, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.html import format_html
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name

# the two lexers from their own modules rather than through pygments.lexers' lazy attribute lookup: once, a `make run`
# started under a loaded test run failed on that lookup (ImportError: cannot import name 'JsonLexer'); its cause was
# not found, and this import does not take that path
from pygments.lexers.data import JsonLexer
from pygments.lexers.special import TextLexer

from . import services  # noqa: F401
from .access.read_scope import scope_for
from .documents.exports import document_text
from .domain.errors import Problem
from .domain.model import registry_model
from .governance import access as admin_access
from .governance import dashboard, teams, tokens  # noqa: F401 - the team and token admins
from .governance.counts import EstimatedCounts
from .governance.forms import JSONField, ServiceForm
from .governance.history import AuditHistoryMixin
from .governance.links import breakable, shown_time
from .governance.references import ReferencesAdminMixin
from .governance.search import SearchAdminMixin, dashboard_panel
from .models import OutboxEvent, Version
from .store.selectors import count_subquery

dashboard.register_panel("admin/registry/search_panel.html", dashboard_panel)
dashboard.register_panel("admin/registry/my_groups_panel.html", admin_access.my_groups)
# the governance UI's face: the registry's name (REGISTRY_NAME) instead of "Django administration"
admin.site.site_header = admin.site.site_title = settings.REGISTRY_NAME
admin.site.index_title = "Catalog"


class GroupForm(ServiceForm):
    gid = forms.CharField(label="Id", max_length=128)
    name = forms.CharField(required=False)
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3, "cols": 80}))
    docs = forms.CharField(required=False, label="Docs URL")
    tags = JSONField(help_text='a map of string to string, e.g. {"owner": "team-orders"}')
    owners = JSONField(
        label="Owners",
        help_text='teams and their roles (reader, editor, owner), e.g. {"team-payments": "owner"}; empty: no owners',
    )
    attributes = JSONField(label="Attributes", help_text="the group type's extension attributes, as JSON")
    epoch = forms.IntegerField(required=False, widget=forms.HiddenInput)
    problem_field = "attributes"

    def __init__(self, *args, group_plural: str, instance=None, **kwargs):
        self.group_plural, self.instance = group_plural, instance
        if instance is not None:
            kwargs.setdefault(
                "initial",
                {
                    "gid": instance.gid,
                    "name": instance.name,
                    "description": instance.description,
                    "docs": instance.docs,
                    "tags": instance.tags,
                    "owners": instance.extensions.get("owners") or {},
                    "attributes": {k: v for k, v in instance.extensions.items() if k != "owners"},
                    "epoch": instance.epoch,
                },
            )
        super().__init__(*args, **kwargs)
        if instance is not None:
            self.fields["gid"].disabled = True

    def clean_attributes(self):
        """The owners are the Owners field's: in the attributes too, one of the two would be lost without a word."""
        attributes = self.cleaned_data.get("attributes") or {}
        if "owners" in attributes:
            raise forms.ValidationError("owners: set them in the Owners field, not among the attributes")
        return attributes

    def perform(self, data):
        body = {k: data[k] for k in ("name", "description", "docs") if data.get(k)}
        if data.get("tags"):
            body["tags"] = data["tags"]
        body.update(data.get("attributes") or {})
        if data.get("owners"):
            body["owners"] = data["owners"]
        if self.instance is None:
            return services.create_group(
                ctx=self.context(), address=services.EntityAddress(self.group_plural), data={"id": data["gid"], **body}
            )
        group, _created = services.put_group(
            ctx=self.context(),
            address=services.EntityAddress.of(self.instance),
            data=body,
            expected_epoch=data.get("epoch"),
        )
        return group


def tag_value(key: str, field: str):
    """The text of one key of a JSON map (any key: no lookup-path parsing), comparable with a string."""
    # the cast keeps the comparison a text one (KeyTextTransform's own exact lookup expects JSON on SQLite)
    return Cast(KeyTextTransform(key, field), TextField())


class TagFilter(admin.SimpleListFilter):
    """Filter by one tag, offered as KEY=VALUE from the tags in use (sampled: the first 500 rows)."""

    title = "tag"
    parameter_name = "tag"
    field = "tags"

    def lookups(self, request, model_admin):
        pairs: set[str] = set()
        for tags in model_admin.get_queryset(request).values_list(self.field, flat=True)[:500]:
            if isinstance(tags, dict):
                pairs.update(f"{k}={v}" for k, v in tags.items() if isinstance(v, str))
        return [(p, p) for p in sorted(pairs)[:100]]

    def queryset(self, request, queryset):
        chosen = self.value()
        if not chosen or "=" not in chosen:
            return queryset
        key, value = chosen.split("=", 1)
        return queryset.alias(_tag=tag_value(key, self.field)).filter(_tag=value)


OWNER_SAMPLE = 2_000


class OwnerFilter(admin.SimpleListFilter):
    """Filter by the `owner` tag, the registry's convention for who is responsible for an entity."""

    title = "owner tag"
    parameter_name = "owner"
    field = "tags"

    def lookups(self, request, model_admin):
        # the owners of the newest OWNER_SAMPLE entries: a DISTINCT of every row read the whole table (issue 40)
        values = (
            model_admin.get_queryset(request)
            .order_by("-pk")
            .annotate(_owner=KeyTextTransform("owner", self.field))
            .values_list("_owner", flat=True)[:OWNER_SAMPLE]
        )
        return sorted({(v, v) for v in values if isinstance(v, str)})[:200]

    def queryset(self, request, queryset):
        if not self.value():
            return queryset
        return queryset.alias(_owner=tag_value("owner", self.field)).filter(_owner=self.value())


class ServiceAdmin(EstimatedCounts, AuditHistoryMixin, admin.ModelAdmin):
    """Add and change pages render a service form; deletes go through the services too. What a user may do is the
    services' one table (registry/access/permissions.py), as for every binding: `entity_kind` names the kind of entity the
    admin's model is (its add, change and delete are that kind's create, update and delete; a resource's change
    page changes its latest version)."""

    form_template = "admin/registry/service_form.html"
    entity_kind: str | None = None  # "group", "resource" or "version"; None: Django's model permissions

    def _may(self, request, operation: str, obj=None) -> bool:
        kind = self.entity_kind
        assert kind is not None  # (asked only of an admin with an entity kind: the callers check)
        if kind == "resource" and operation == "update":
            kind = "version"
        return admin_access.may(request.user, kind, operation, obj)

    def has_add_permission(self, request):
        return self._may(request, "create") if self.entity_kind else super().has_add_permission(request)

    def has_change_permission(self, request, obj=None):
        return self._may(request, "update", obj) if self.entity_kind else super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return self._may(request, "delete", obj) if self.entity_kind else super().has_delete_permission(request, obj)

    def has_view_permission(self, request, obj=None):
        if not self.entity_kind:
            return super().has_view_permission(request, obj)
        return admin_access.may_view(request.user, obj, super().has_view_permission(request))

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        return admin_access.readable(queryset, request.user) if self.entity_kind else queryset

    def get_list_display(self, request):
        shown = super().get_list_display(request)
        if not self.entity_kind:
            return shown
        kind = "version" if self.entity_kind == "resource" else self.entity_kind
        return (*shown, admin_access.access_column(request.user, kind))

    def get_service_form(self, request, obj, data):  # pragma: no cover - subclasses implement it
        raise NotImplementedError

    def sections(self, request, obj) -> list[dict]:
        return []

    def page_sections(self, request, obj) -> list[dict]:
        """Everything below the form of a change page (mixins add theirs after the admin's own sections)."""
        return self.sections(request, obj)

    def intro(self, request, obj):
        """A line above the form of a change page (HTML made with format_html, or plain text)."""
        return None

    def render_form(
        self,
        request,
        obj,
        title: str,
        form=None,
        sections=None,
        submit_label=None,
        intro=None,
        hidden_inputs=(),
        submit_name="_save",
        with_delete=False,
        readonly=None,
    ):
        """readonly: None = the user may not change `obj`; False for a form that writes nothing (a check)."""
        if readonly is None:
            readonly = obj is not None and not self.has_change_permission(request, obj)
        delete_url = None
        if obj is not None and with_delete and self.has_delete_permission(request, obj):
            opts = self.model._meta
            delete_url = reverse(f"admin:{opts.app_label}_{opts.model_name}_delete", args=[obj.pk])
        context = {
            **self.admin_site.each_context(request),
            "title": title,
            "form": form,
            "opts": self.model._meta,
            "readonly": readonly,
            "sections": sections or [],
            "submit_label": submit_label,
            "intro": intro,
            "highlight_css": highlight_css(),
            "hidden_inputs": hidden_inputs,
            "submit_name": submit_name,
            "delete_url": delete_url,
            "history_url": reverse(
                f"admin:{self.model._meta.app_label}_{self.model._meta.model_name}_history", args=[obj.pk]
            )
            if obj is not None and self.entity_kind
            else None,
        }
        return render(request, self.form_template, context)

    def form_view(self, request, obj):
        if obj is None and not self.has_add_permission(request):
            return self.render_form(request, obj, "Permission denied", intro="You may not add entries here.")
        may_write = obj is None or self.has_change_permission(request, obj)
        # the form writes when validated, so it is bound to the POST only for users who may write
        data = request.POST if request.method == "POST" and may_write else None
        form = self.get_service_form(request, obj, data)
        if data is not None:
            if form.is_valid() and form.save():
                saved = form.result
                self.log_service_write(request, obj, saved, form)
                self.message_user(request, getattr(form, "outcome", "") or f"Saved {saved}.", messages.SUCCESS)
                return HttpResponseRedirect(
                    reverse(f"admin:{self.model._meta.app_label}_{self.model._meta.model_name}_change", args=[saved.pk])
                )
        title = (
            f"{'Change' if may_write else 'View'} {obj}" if obj is not None else f"Add {self.model._meta.verbose_name}"
        )
        if obj is None:
            return self.render_form(request, obj, title, form)
        return self.render_form(
            request,
            obj,
            title,
            form,
            self.page_sections(request, obj),
            intro=self.intro(request, obj),
            with_delete=True,
        )

    def log_service_write(self, request, before, saved, form) -> None:
        """Django's admin history (the object's History page, the recent actions) for a write the service made."""
        logged = saved if isinstance(saved, self.model) else self.model.objects.filter(pk=saved.pk).first()
        if logged is None:
            return
        if before is None:
            self.log_addition(request, logged, [{"added": {}}])
        else:
            self.log_change(request, logged, [{"changed": {"fields": sorted(form.changed_data)}}])

    def add_view(self, request, form_url="", extra_context=None):
        return self.form_view(request, None)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        obj = self.get_object(request, object_id)
        if obj is None or not self.has_view_or_change_permission(request, obj):
            return self._get_obj_does_not_exist_redirect(request, self.model._meta, object_id)
        return self.form_view(request, obj)


# apps add sections to a group type's admin page: fn(group) -> {"title", "html"} or None (the AsyncAPI export links)
group_sections: dict[str, list] = {}


def register_group_section(group_plural: str, fn) -> None:
    found = group_sections.setdefault(group_plural, [])
    if fn not in found:
        found.append(fn)


# and to a version's page of a group type's resources: fn(version) -> {"title", "html"} or None (the Confluent API's
# metadata and rules of a schema version)
version_sections: dict[str, list] = {}


def register_version_section(group_plural: str, fn) -> None:
    found = version_sections.setdefault(group_plural, [])
    if fn not in found:
        found.append(fn)


def app_version_sections(group_plural: str, version) -> list[dict]:
    return [section for fn in version_sections.get(group_plural, []) if (section := fn(version))]


class GroupAdmin(SearchAdminMixin, ReferencesAdminMixin, ServiceAdmin):
    entity_kind = "group"
    """Base of the group types' admins (schema groups, definition groups, endpoints)."""

    group_plural = ""
    list_display: tuple[str, ...] = ("group_id", "name", "description", "epoch", "modified_by", "modified")
    search_fields = ("gid", "name", "description")
    list_filter: ClassVar[tuple] = ("modified_on",)  # the apps' admins add their filters (classes) to it
    ordering = ("gid",)
    actions = ["export_document"]

    resource_admin = ""  # the admin URL name of this group type's resources' change page, if any

    @admin.display(description="id", ordering="gid")
    def group_id(self, obj):
        return breakable(obj.gid)

    @admin.display(description="modified", ordering="modified_on")
    def modified(self, obj):
        return shown_time(obj.modified_on)

    def get_service_form(self, request, obj, data):
        return GroupForm(data, request=request, group_plural=self.group_plural, instance=obj)

    def sections(self, request, obj):
        return self.resource_sections(request, obj) + [
            section for fn in group_sections.get(self.group_plural, []) if (section := fn(obj))
        ]

    def resource_sections(self, request, obj):
        """The group's resources with their latest version, version count and format."""
        rows = []
        # counted for the rows shown, not by grouping every version of the group (issue 40)
        resources = obj.resources.select_related("latest").annotate(n=count_subquery(Version, resource=OuterRef("pk")))
        resources = resources.order_by("rid")
        for resource in resources[:500]:
            latest = resource.latest
            name = (
                format_html(
                    "<a href='{}'>{}</a>", reverse(self.resource_admin, args=[resource.pk]), breakable(resource.rid)
                )
                if self.resource_admin
                else breakable(resource.rid)
            )
            rows.append(
                format_html(
                    "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    name,
                    resource.resource_type,
                    latest.vid if latest else "",
                    resource.n,
                    ((latest.extensions.get("format") if latest else "") or resource.extensions.get("format")) or "",
                )
            )
        if not rows:
            return [{"title": "Resources", "html": "<p>None yet.</p>"}]
        return [
            {
                "title": f"Resources ({len(rows)})",
                "html": "<table id='group-resources'><tr><th>id</th><th>type</th><th>latest version</th>"
                "<th>versions</th><th>format</th></tr>" + "".join(rows) + "</table>",
            }
        ]

    @admin.action(description="Export the selected groups as a registry document", permissions=["view"])
    def export_document(self, request, queryset):
        # the selected groups only, read in chunks: not every group of the type, then filtered (issue 40); written a
        # group at a time (exports.document_text)
        text = document_text(self.group_plural, ids=[g.gid for g in queryset])
        response = StreamingHttpResponse(text, content_type="application/cloudevents-registry+json")
        response["Content-Disposition"] = f'attachment; filename="{self.group_plural}.cereg"'
        return response


def group_body(group) -> dict:
    """A group's current attributes as a PUT body (a governance action changes one and puts the rest back)."""
    body = {k: getattr(group, k) for k in ("name", "description", "docs") if getattr(group, k)}
    if group.tags:
        body["tags"] = group.tags
    body.update(group.extensions)
    return body


def highlight_css() -> str:

    return HtmlFormatter(style="default").get_style_defs(".registry-doc")


# apps name the Pygments lexer of their documents that are not JSON: fn(media type, format) -> lexer name or None
document_lexers: list = []


def register_document_lexer(fn) -> None:
    if fn not in document_lexers:
        document_lexers.append(fn)


def highlighted(content: bytes, media_type: str | None, format_name: str | None = None) -> str:
    """A document as syntax-highlighted HTML (JSON pretty-printed; other text by the lexer an app names)."""

    text = content.decode("utf-8", errors="replace")
    lexer = TextLexer()
    try:
        text = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
        lexer = JsonLexer()
    except ValueError:
        name = next((found for fn in document_lexers if (found := fn(media_type or "", format_name or ""))), None)
        if name is not None:
            lexer = get_lexer_by_name(name)
    return f"<div class='registry-doc'>{highlight(text, lexer, HtmlFormatter(nowrap=False))}</div>"


class EventTypeFilter(admin.SimpleListFilter):
    """The change events' types, from the registry's model (each group type's `updated` and `deleted`): no
    DISTINCT over every event (the outbox grows with every write)."""

    title = "type"
    parameter_name = "type"

    def lookups(self, request, model_admin):
        types = [
            f"{gt.event_type_prefix}.{action}.v1"
            for gt in registry_model.group_types
            for action in ("updated", "deleted")
        ]
        return [(t, t) for t in sorted(types)]

    def queryset(self, request, queryset):
        return queryset.filter(type=self.value()) if self.value() else queryset


@admin.register(OutboxEvent)
class OutboxEventAdmin(EstimatedCounts, admin.ModelAdmin):
    """Recent changes: the change events written by every write, and whether they were relayed."""

    list_display = ("when", "event_type", "event_subject", "relayed")
    list_filter = (EventTypeFilter,)
    search_fields = ("subject",)
    readonly_fields = ("id", "type", "source", "subject", "time", "created_at", "relayed_at")

    @admin.display(description="time", ordering="time")
    def when(self, event):
        return shown_time(event.time)

    @admin.display(description="type", ordering="type")
    def event_type(self, event):
        return breakable(event.type)

    @admin.display(description="subject", ordering="subject")
    def event_subject(self, event):
        return breakable(event.subject)

    @admin.display(description="relayed", ordering="relayed_at")
    def relayed(self, event):
        return shown_time(event.relayed_at)

    def get_queryset(self, request):
        """With public reads off, the events of the groups the user may read (their owners when made)."""
        return super().get_queryset(request).filter(scope_for(request.user).q_of_events())

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


def action_form(admin_obj, request, queryset, form_class, action: str, title: str, apply, submit_label: str):
    """An admin action with an intermediate form: shown first, applied when submitted."""
    form = form_class(request.POST if "apply" in request.POST else None)
    if form.is_valid():
        return apply(form.cleaned_data)
    hidden = [("action", action)] + [("_selected_action", obj.pk) for obj in queryset]
    # the submit is named "apply", not "_save", which the changelist takes for a list_editable save
    return admin_obj.render_form(
        request,
        None,
        title,
        form,
        hidden_inputs=hidden,
        submit_label=submit_label,
        intro=", ".join(str(o) for o in queryset),
        submit_name="apply",
    )


__all__ = [
    "GroupAdmin",
    "GroupForm",
    "group_body",
    "OwnerFilter",
    "Problem",
    "ServiceAdmin",
    "TagFilter",
    "action_form",
    "highlighted",
]
