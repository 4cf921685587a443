"""The admin's "Import AsyncAPI" page: documents and the files they refer to, a group prefix, a dry run; the report
or every error with its place. It calls `asyncapi.services.import_asyncapi`, as every other door does. Linked from
the dashboard's panel (asyncapi/admin.py); mounted in config/urls.py."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.shortcuts import render

from registry.domain.errors import Problem
from registry.services import WriteContext

from .api.views import uploaded
from .services import import_asyncapi
from .sources import Source

IMPORT_PERMISSIONS = (
    "registry.add_group",
    "registry.change_group",
    "registry.add_resource",
    "registry.add_version",
    "registry.change_version",
)


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Several files in one field (Django's documented recipe)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        if isinstance(data, list | tuple):
            return [super(MultipleFileField, self).clean(item, initial) for item in data]
        return [super().clean(data, initial)] if data else []


class AsyncAPIImportForm(forms.Form):
    documents = MultipleFileField(help_text="AsyncAPI 2.6, 3.0 or 3.1 documents (.yaml, .yml, .json)")
    files = MultipleFileField(
        required=False, help_text="the files their $refs name (schemas, traits), matched by file name"
    )
    group_prefix = forms.CharField(
        required=False,
        max_length=64,
        help_text="prefix of the ids of the groups made; empty: each document's title in PascalCase",
    )
    no_prefix = forms.BooleanField(required=False, label="No prefix", help_text="ids without any prefix")
    dry_run = forms.BooleanField(required=False, help_text="check and show what would change; write nothing")


def import_view(request):
    if not request.user.has_perms(IMPORT_PERMISSIONS):
        raise PermissionDenied
    form = AsyncAPIImportForm(request.POST or None, request.FILES or None)
    report, problem = None, None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        read = uploaded(data["files"])
        sources = [Source(d.name, d.read(), read_beside=read) for d in data["documents"]]
        prefix = "" if data["no_prefix"] else (data["group_prefix"] or None)
        try:
            report = import_asyncapi(
                ctx=WriteContext.from_request(request), sources=sources, group_prefix=prefix, dry_run=data["dry_run"]
            )
        except Problem as exc:
            problem = exc
    context = {
        **admin.site.each_context(request),
        "title": "Import AsyncAPI documents",
        "form": form,
        "report": report,
        "problem": problem,
    }
    return render(request, "admin/asyncapi/import.html", context, status=400 if problem else 200)
