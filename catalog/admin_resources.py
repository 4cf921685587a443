"""Admin forms and page sections for resources and versions: create, edit metadata, new versions,
documents shown highlighted, and two versions compared side by side with the compatibility verdict."""
from __future__ import annotations

import difflib
import json

from django import forms
from django.utils.html import escape, format_html

from registry import services
from registry.admin import highlighted
from registry.admin_forms import ServiceForm
from registry.attributes import version_sort_key
from registry.models import Group, Version
from registry.services import VersionInput
from registry.services.resources import version_attributes

from .validators.compatibility import LEVELS, check_compatibility


class ResourceCreateForm(ServiceForm):
    group = forms.ModelChoiceField(queryset=Group.objects.none())
    rid = forms.CharField(label="Id", max_length=128)
    format = forms.CharField(required=False, help_text="e.g. JsonSchema/draft-07, Avro/1.11, Protobuf/3, CloudEvents/1.0")
    description = forms.CharField(required=False)
    media_type = forms.CharField(initial="application/json", label="Media type")
    document = forms.CharField(widget=forms.Textarea(attrs={"rows": 16, "cols": 100, "style": "font-family: monospace"}))
    problem_field = "document"

    def __init__(self, *args, group_plural: str, resource_plural: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.group_plural, self.resource_plural = group_plural, resource_plural
        self.fields["group"].queryset = Group.objects.filter(group_type=group_plural).order_by("gid")

    def perform(self, data):
        attributes = {k: data[k] for k in ("format", "description") if data.get(k)}
        inp = VersionInput(document=data["document"].encode(), media_type=data["media_type"], attributes=attributes)
        return services.create_resource(self.context(), self.group_plural, data["group"].gid, self.resource_plural,
                                        data["rid"], inp)


class MetadataForm(ServiceForm):
    """The latest version's metadata: name, description, format and (schemas) the compatibility level."""

    name = forms.CharField(required=False)
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3, "cols": 80}))
    format = forms.CharField(required=False)
    compatibility = forms.ChoiceField(required=False, choices=[("", "(inherit: backward_transitive)")] +
                                      [(level, level) for level in LEVELS])
    epoch = forms.IntegerField(required=False, widget=forms.HiddenInput)
    problem_field = "format"

    def __init__(self, *args, resource, with_compatibility: bool, **kwargs):
        self.resource = resource
        latest = resource.latest
        attrs = version_attributes(latest) if latest else {}
        kwargs.setdefault("initial", {**{k: attrs.get(k) for k in ("name", "description", "format", "compatibility")},
                                      "epoch": latest.epoch if latest else None})
        super().__init__(*args, **kwargs)
        if not with_compatibility:
            del self.fields["compatibility"]

    def perform(self, data):
        current = version_attributes(self.resource.latest)
        body = {**current, **{k: data.get(k) or None for k in ("name", "description", "format", "compatibility")
                              if k in self.fields}}
        body = {k: v for k, v in body.items() if v is not None}
        resource, _version = services.put_meta(self.context(), self.resource.group.group_type, self.resource.group.gid,
                                               self.resource.resource_type, self.resource.rid, None, body,
                                               epoch=data.get("epoch"))
        return resource


class NewVersionForm(ServiceForm):
    media_type = forms.CharField(initial="application/json", label="Media type")
    document = forms.CharField(widget=forms.Textarea(attrs={"rows": 16, "cols": 100, "style": "font-family: monospace"}))
    problem_field = "document"

    def __init__(self, *args, resource, **kwargs):
        self.resource = resource
        super().__init__(*args, **kwargs)

    def perform(self, data):
        inp = VersionInput(document=data["document"].encode(), media_type=data["media_type"])
        _resource, version = services.create_version(self.context(), self.resource.group.group_type,
                                                     self.resource.group.gid, self.resource.resource_type,
                                                     self.resource.rid, inp)
        return version


def ordered_versions(resource) -> list[Version]:
    return sorted(Version.objects.filter(resource=resource), key=lambda v: version_sort_key(v.vid))


def versions_section(resource, version_url, compare_url: str, new_version_url: str) -> dict:
    """Who changed what and when, a compare form, and a link to create a new version."""
    rows = []
    for version in reversed(ordered_versions(resource)):
        rows.append(format_html("<tr><td><a href='{}'>{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                                version_url(version), version.vid, version.epoch, version.created_by or "",
                                version.modified_by or "", version.modified_on.strftime("%Y-%m-%d %H:%M:%S")))
    vids = [v.vid for v in ordered_versions(resource)]
    options = "".join(f"<option value='{escape(v)}'>{escape(v)}</option>" for v in vids)
    compare = (f"<form method='get' action='{compare_url}' id='compare-form'>Compare "
               f"<select name='a'>{options}</select> with <select name='b'>"
               + "".join(f"<option value='{escape(v)}'{' selected' if i == len(vids) - 1 else ''}>{escape(v)}</option>"
                         for i, v in enumerate(vids))
               + "</select> <input type='submit' value='Compare'></form>")
    table = ("<table><tr><th>version</th><th>epoch</th><th>created by</th><th>changed by</th><th>changed</th></tr>"
             + "".join(rows) + "</table>")
    return {"title": "History", "html": table + f"<p>{compare}</p><p><a class='button' href='{new_version_url}'>"
                                               "Create a new version</a></p>"}


def comparable_text(version: Version) -> list[str]:
    content = bytes(version.content or b"")
    try:
        return json.dumps(json.loads(content), indent=2, sort_keys=True, ensure_ascii=False).splitlines()
    except ValueError:
        return content.decode("utf-8", errors="replace").splitlines()


def compare_sections(resource, a: Version, b: Version) -> list[dict]:
    diff = difflib.HtmlDiff(wrapcolumn=70).make_table(comparable_text(a), comparable_text(b), f"version {a.vid}",
                                                      f"version {b.vid}", context=False)
    fmt = b.extensions.get("format") or a.extensions.get("format") or resource.extensions.get("format")
    verdicts = []
    old, new = bytes(a.content or b""), bytes(b.content or b"")
    for level, label in (("backward", f"backward (version {b.vid} reads data written with {a.vid})"),
                         ("forward", f"forward (version {a.vid} reads data written with {b.vid})")):
        issues = check_compatibility(fmt, level, [old], new)
        if issues:
            items = "".join(format_html("<li>{}: {} ({})</li>", i.path, i.change, i.reason) for i in issues)
            verdicts.append(f"<p><span class='verdict-bad'>incompatible</span> {escape(label)}</p><ul>{items}</ul>")
        else:
            verdicts.append(f"<p><span class='verdict-ok'>compatible</span> {escape(label)}</p>")
    return [{"title": f"Compatibility ({escape(fmt or 'unknown format')})", "html": "".join(verdicts)},
            {"title": "Differences", "html": diff}]


def document_section(version: Version, fmt: str | None) -> dict:
    if version.resource_uri:
        return {"title": "Document", "html": format_html("Stored elsewhere: <a href='{0}'>{0}</a>", version.resource_uri)}
    return {"title": f"Document ({escape(version.media_type or '')})",
            "html": highlighted(bytes(version.content or b""), version.media_type, fmt)}
