"""Admin forms and page sections for resources and versions: create, edit metadata, new versions,
documents shown highlighted, and two versions compared side by side with the compatibility verdict."""

from __future__ import annotations

import difflib
import json
from typing import cast

from django import forms
from django.db.models import Q
from django.utils.html import escape, format_html

from registry import services
from registry.admin import highlighted
from registry.domain.attributes import version_order, version_sort_key
from registry.governance.forms import DocumentField, DocumentFormMixin, JSONField, ServiceForm
from registry.governance.links import breakable, stored_link
from registry.models import Group, OutboxEvent, Version
from registry.services import VersionInput
from registry.services.versions import version_attributes

from .admin_checks import changes_section
from .selectors import schema_compatibility
from .validators.compatibility import LEVELS, check_compatibility


class ResourceCreateForm(DocumentFormMixin, ServiceForm):
    group = forms.ModelChoiceField(queryset=Group.objects.none())
    rid = forms.CharField(label="Id", max_length=128)
    format = forms.CharField(
        required=False, help_text="e.g. JsonSchema/draft-07, Avro/1.11, Protobuf/3, CloudEvents/1.0"
    )
    description = forms.CharField(required=False)
    media_type = forms.CharField(initial="application/json", label="Media type")
    document = DocumentField(help_text="JSON documents are checked for syntax, then validated against the format")
    problem_field = "document"

    def __init__(self, *args, group_plural: str, resource_plural: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.group_plural, self.resource_plural = group_plural, resource_plural
        cast(forms.ModelChoiceField, self.fields["group"]).queryset = Group.objects.filter(
            group_type=group_plural
        ).order_by("gid")

    def perform(self, data):
        attributes = {k: data[k] for k in ("format", "description") if data.get(k)}
        inp = VersionInput(document=data["document"].encode(), media_type=data["media_type"], attributes=attributes)
        return services.create_resource(
            ctx=self.context(),
            address=services.EntityAddress.of(data["group"]).resource(self.resource_plural, data["rid"]),
            data=inp,
        )


FIELDS = ("name", "description", "docs", "tags", "format", "compatibility")
SHOWN_VERSIONS = 200  # the newest versions a resource's page lists and offers to compare


class MetadataForm(ServiceForm):
    """The latest version's metadata: name, description, format and (schemas) the compatibility level."""

    name = forms.CharField(required=False)
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3, "cols": 80}))
    docs = forms.CharField(required=False, label="Docs URL")
    tags = JSONField(
        help_text='a map of string to string, e.g. {"owner": "team-orders"}',
        widget=forms.Textarea(
            attrs={
                "rows": 4,
                "cols": 80,
                "class": "vLargeTextField json-editor",
                "spellcheck": "false",
                "style": "font-family: monospace",
            }
        ),
    )
    format = forms.CharField(required=False)
    compatibility = forms.ChoiceField(
        required=False, choices=[("", "(inherit: backward_transitive)")] + [(level, level) for level in LEVELS]
    )
    epoch = forms.IntegerField(required=False, widget=forms.HiddenInput)
    problem_field = "format"

    def __init__(self, *args, resource, with_compatibility: bool, **kwargs):
        self.resource = resource
        latest = resource.latest
        attrs = version_attributes(latest) if latest else {}
        kwargs.setdefault("initial", {**{k: attrs.get(k) for k in FIELDS}, "epoch": latest.epoch if latest else None})
        super().__init__(*args, **kwargs)
        if not with_compatibility:
            del self.fields["compatibility"]

    def perform(self, data):
        current = version_attributes(self.resource.latest)
        body = {**current, **{k: data.get(k) or None for k in FIELDS if k in self.fields}}
        body = {k: v for k, v in body.items() if v is not None}
        resource, _version = services.put_meta(
            ctx=self.context(),
            address=services.EntityAddress.of(self.resource),
            data=body,
            expected_epoch=data.get("epoch"),
        )
        return resource


class NewVersionForm(DocumentFormMixin, ServiceForm):
    media_type = forms.CharField(initial="application/json", label="Media type")
    document = DocumentField(
        help_text="validated against the format and, for schemas, checked for compatibility with the earlier versions"
    )
    problem_field = "document"

    def __init__(self, *args, resource, **kwargs):
        self.resource = resource
        super().__init__(*args, **kwargs)

    def perform(self, data):
        inp = VersionInput(document=data["document"].encode(), media_type=data["media_type"])
        _resource, version = services.create_version(
            ctx=self.context(), address=services.EntityAddress.of(self.resource), data=inp
        )
        return version


def ordered_versions(resource, newest: int | None = None) -> list[Version]:
    """The resource's versions (the `newest` last ones), oldest first, without their documents (the history table
    and the compare form show none)."""
    found = Version.objects.filter(resource=resource).defer("content")
    if newest is not None:
        found = found.order_by("-created_on", "-pk")[:newest]  # version_order's, newest first
    return sorted(found, key=version_order)


def compare_form(vids: list[str], compare_url: str, a: str | None = None, b: str | None = None) -> str:
    """Two version pickers (defaults: the latest version, by id (registry.domain.attributes.version_sort_key), and the one
    before it) and a Compare button."""
    by_id = sorted(vids, key=version_sort_key)
    a = a if a in vids else (by_id[-2] if len(by_id) > 1 else by_id[0] if by_id else "")
    b = b if b in vids else (by_id[-1] if by_id else "")

    def select(name, chosen):
        options = "".join(
            format_html("<option value='{}'{}>{}</option>", v, " selected" if v == chosen else "", v) for v in vids
        )
        return f"<select name='{name}' id='compare-{name}'>{options}</select>"

    return (
        format_html("<form method='get' action='{}' id='compare-form'>", compare_url)
        + f"Compare version {select('a', a)} with version {select('b', b)} "
        "<input type='submit' value='Compare'></form>"
    )


def change_events(resource, limit: int = 20) -> list[OutboxEvent]:
    """The latest change events of a resource and its versions (the outbox keeps every committed write)."""
    return list(
        OutboxEvent.objects.filter(
            Q(subject=resource.path) | Q(subject__startswith=resource.path + "/versions/")
        ).order_by("-created_at")[:limit]
    )


def versions_section(resource, version_url, compare_url: str, new_version_url: str) -> dict:
    """Who changed what and when (versions, then change events), a compare form, a new-version link."""
    versions = ordered_versions(resource, SHOWN_VERSIONS + 1)
    more_note = ""
    if len(versions) > SHOWN_VERSIONS:  # the newest SHOWN_VERSIONS, and how many there are
        versions = versions[1:]
        more_note = format_html(
            "<p id='more-versions'>The newest {} of {} versions; <code>GET {}/versions</code> lists every one.</p>",
            SHOWN_VERSIONS,
            Version.objects.filter(resource=resource).count(),
            resource.path,
        )
    latest_id = resource.latest_id
    rows = []
    for version in reversed(versions):
        rows.append(
            format_html(
                "<tr><td><a href='{}'>{}</a>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                version_url(version),
                version.vid,
                " (latest)" if version.pk == latest_id else "",
                version.epoch,
                version.extensions.get("format") or resource.extensions.get("format") or "",  # (the schema's)
                version.created_by or "",
                version.created_on.strftime("%Y-%m-%d %H:%M:%S"),
                version.modified_by or "",
                version.modified_on.strftime("%Y-%m-%d %H:%M:%S"),
            )
        )
    table = (
        "<table id='version-history'><tr><th>version</th><th>epoch</th><th>format</th><th>created by</th>"
        "<th>created</th><th>last changed by</th><th>last changed</th></tr>" + "".join(rows) + "</table>"
    )
    events = "".join(
        format_html(
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            e.time.strftime("%Y-%m-%d %H:%M:%S"),
            e.type.rsplit(".", 2)[-2],
            breakable(e.subject),
        )
        for e in change_events(resource)
    )
    events_table = (
        (
            "<h3>Change events</h3><table id='change-events'><tr><th>when</th><th>what</th><th>path</th></tr>"
            + events
            + "</table>"
        )
        if events
        else ""
    )
    compare = compare_form([v.vid for v in versions], compare_url) if len(versions) > 1 else ""
    new_version = format_html("<a class='button' href='{}'>Create a new version</a>", new_version_url)
    return {"title": "History", "html": f"{more_note}{table}<p>{compare}</p><p>{new_version}</p>{events_table}"}


def comparable_text(version: Version) -> list[str]:
    content = bytes(version.content or b"")
    try:
        return json.dumps(json.loads(content), indent=2, sort_keys=True, ensure_ascii=False).splitlines()
    except ValueError:
        return content.decode("utf-8", errors="replace").splitlines()


def compare_sections(resource, a: Version, b: Version, compare_url: str = "", back_url: str = "") -> list[dict]:
    """The verdicts (backward and forward between the two), the changes (semantic for JSON Schema, Avro and
    Protobuf schemas, else a line diff) and a side-by-side diff, JSON-aware."""
    text_a, text_b = comparable_text(a), comparable_text(b)
    diff = difflib.HtmlDiff(wrapcolumn=70).make_table(
        text_a, text_b, f"version {a.vid}", f"version {b.vid}", context=False
    )
    if text_a == text_b:
        diff = "<p>The two documents are the same (JSON compared with sorted keys).</p>" + diff
    fmt = b.extensions.get("format") or a.extensions.get("format") or resource.extensions.get("format")
    level = schema_compatibility(resource)
    verdicts = []
    old, new = bytes(a.content or b""), bytes(b.content or b"")
    for direction, label in (
        ("backward", f"backward (version {b.vid} reads data written with {a.vid})"),
        ("forward", f"forward (version {a.vid} reads data written with {b.vid})"),
    ):
        issues = check_compatibility(fmt, direction, [old], new)
        if issues:
            items = "".join(format_html("<li>{}: {} ({})</li>", i.path, i.change, i.reason) for i in issues)
            verdicts.append(f"<p><span class='verdict-bad'>incompatible</span> {escape(label)}</p><ul>{items}</ul>")
        else:
            verdicts.append(f"<p><span class='verdict-ok'>compatible</span> {escape(label)}</p>")
    pick = ""
    if compare_url:
        vids = [v.vid for v in ordered_versions(resource, SHOWN_VERSIONS)]
        vids += [vid for vid in dict.fromkeys((a.vid, b.vid)) if vid not in vids]  # the two compared, if older
        pick = "<p>" + compare_form(vids, compare_url, a.vid, b.vid) + "</p>"
    if back_url:
        pick += format_html("<p><a href='{}'>Back to {}</a></p>", back_url, resource.path)
    title = f"Compatibility ({fmt or 'unknown format'}"
    title += f"; the schema's level: {level})" if resource.resource_type == "schemas" else ")"
    return [
        {"title": "Versions compared", "html": pick},
        {"title": title, "html": "".join(verdicts)},
        changes_section(resource, a, b),
        {"title": "Documents side by side", "html": diff},
    ]


def document_section(version: Version, fmt: str | None) -> dict:
    if version.resource_uri:
        return {
            "title": "Document",
            "html": format_html("<p id='stored-elsewhere'>Stored elsewhere: {}</p>", stored_link(version.resource_uri)),
        }
    return {
        "title": f"Document ({version.media_type or ''})",
        "html": highlighted(bytes(version.content or b""), version.media_type, fmt),
    }
