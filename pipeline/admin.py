"""Admin of bulk imports: start one (upload or server path) as a Celery task, see its status and report."""

import json

from django import forms
from django.contrib import admin
from django.db import transaction
from django.utils.html import format_html

from .models import ImportRun
from .services import server_path_error


class ImportRunForm(forms.ModelForm):
    """An upload, or a server path inside REGISTRY_IMPORT_ROOT (pipeline.services.server_path_error)."""

    source = forms.CharField(
        required=False,
        widget=forms.TextInput(attrs={"size": 80}),
        help_text="a file, directory or glob inside REGISTRY_IMPORT_ROOT (relative paths are "
        "taken inside it); or upload a file below",
    )

    class Meta:
        model = ImportRun
        fields = ("source", "upload", "dry_run")

    def clean(self):
        data = super().clean()
        if data.get("upload"):
            return data
        source = (data.get("source") or "").strip()
        if not source:
            raise forms.ValidationError("upload a file or give a server path")
        error = server_path_error(source)
        if error:
            self.add_error("source", error)
        return data


@admin.register(ImportRun)
class ImportRunAdmin(admin.ModelAdmin):
    form = ImportRunForm
    list_display = ("id", "source_or_upload", "status", "summary", "created_by", "created_at", "finished_at")
    list_filter = ("status", "dry_run")
    fields = (
        "source",
        "upload",
        "dry_run",
        "status",
        "summary",
        "pretty_report",
        "error",
        "created_by",
        "created_at",
        "finished_at",
    )
    readonly_fields = ("status", "summary", "pretty_report", "error", "created_by", "created_at", "finished_at")

    @admin.display(description="input")
    def source_or_upload(self, run):
        return run.upload.name if run.upload else run.source

    @admin.display(description="report")
    def pretty_report(self, run):
        return format_html("<pre style='max-height:30em;overflow:auto'>{}</pre>", json.dumps(run.report, indent=2))

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("source", "upload", "dry_run")
        return self.fields

    def save_model(self, request, obj, form, change):
        if not change:
            obj.created_by = request.user.get_username()
            if obj.upload and not obj.source:
                obj.source = obj.upload.name
        super().save_model(request, obj, form, change)
        if not change:
            from .tasks import run_import

            transaction.on_commit(lambda: run_import.delay(obj.pk))

    def has_change_permission(self, request, obj=None):
        return obj is None and super().has_change_permission(request, obj)
