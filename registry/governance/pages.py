"""Admin pages beside the model admins: import a registry document by upload (with the created / updated /
unchanged report) and export the whole registry as a document (refused above REGISTRY_MAX_INLINE_ENTITIES entities, as
the API's whole-registry answers are, naming the paged way and `manage.py export_registry`)."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.auth.decorators import permission_required
from django.http import HttpResponseRedirect, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse

from ..access.read_scope import scope_for
from ..documents.exports import document_text
from ..documents.formats import is_yaml, parse_document
from ..documents.imports import import_document
from ..documents.precheck import check_size
from ..domain.errors import Problem
from ..domain.model import registry_model
from ..services import WriteContext
from ..store import selectors


class ImportForm(forms.Form):
    document = forms.FileField(help_text="a CloudEvents Registry document: .cereg (JSON) or .cereg.yaml (YAML)")
    drop_owners = forms.BooleanField(
        required=False,
        label="Leave the owners out",
        help_text="a copy from another organisation: its groups' owners are not imported (groups already here keep "
        "theirs); otherwise a registry admin's import makes the teams they name that do not exist, empty",
    )
    force = forms.BooleanField(
        required=False,
        label="Import references that name nothing",
        help_text="a backup holding references left dangling by a forced delete: they are imported as written and "
        "listed as warnings; otherwise they refuse the document",
    )


@permission_required(
    [
        "registry.add_group",
        "registry.change_group",
        "registry.add_resource",
        "registry.add_version",
        "registry.change_version",
    ],
    raise_exception=True,
)
def import_view(request):
    form = ImportForm(request.POST or None, request.FILES or None)
    report, problem = None, None
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["document"]
        try:
            document = parse_document(upload.read(), yaml_format=is_yaml(filename=upload.name))
            check_size(document, max_entities=settings.REGISTRY_IMPORT_MAX_ENTITIES)
            owners = "drop" if form.cleaned_data["drop_owners"] else "keep"
            report = import_document(
                WriteContext.from_request(request), document, owners=owners, force=form.cleaned_data["force"]
            )
        except Problem as exc:
            problem = exc
    context = {
        **admin.site.each_context(request),
        "title": "Import a registry document",
        "form": form,
        "report": report,
        "problem": problem,
    }
    return render(request, "admin/registry/import.html", context)


def export_view(request):
    scope = scope_for(request.user)  # with public reads off, what the user may read
    try:  # refused above the size the API's whole-registry answers are
        selectors.check_whole_registry(scope, [f"/{gt.plural}" for gt in registry_model.group_types])
    except Problem as problem:
        messages.error(request, f"Not exported: {problem.detail}")
        return HttpResponseRedirect(reverse("admin:index"))
    # written a group at a time (exports.document_text): the worker holds a chunk of groups, not the document
    response = StreamingHttpResponse(document_text(scope=scope), content_type="application/cloudevents-registry+json")
    response["Content-Disposition"] = 'attachment; filename="registry.cereg"'
    return response
