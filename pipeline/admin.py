"""Admin of bulk imports: start one (upload or server path) in the background (pipeline.tasks.start_import), and
follow it on its page: status, each step as it happens (the page reloads itself while the run is queued or
running), then the summary and the report. An uploaded input is kept in the database (ImportUpload: any web replica
takes it, any worker reads it) and downloaded from the run's page."""

import io
import json

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import FileResponse, Http404, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.html import format_html

from registry.governance.links import breakable, shown_time

from .models import ImportRun, ImportUpload
from .services import server_path_error

RELOAD_SECONDS = 2


class ImportRunForm(forms.ModelForm):
    """An upload (at most REGISTRY_MAX_IMPORT_BYTES: it is kept in the database), or a server path inside
    REGISTRY_IMPORT_ROOT (pipeline.services.server_path_error)."""

    source = forms.CharField(
        required=False,
        label="Server path",
        widget=forms.TextInput(attrs={"size": 80}),
        help_text="a file, directory or glob inside REGISTRY_IMPORT_ROOT (relative paths are "
        "taken inside it); or upload a file below",
    )
    upload = forms.FileField(required=False, label="Upload")

    class Meta:
        model = ImportRun
        fields = ("source", "dry_run")

    def clean_upload(self):
        upload = self.cleaned_data.get("upload")
        limit = settings.REGISTRY_MAX_IMPORT_BYTES
        if upload and upload.size > limit:
            raise forms.ValidationError(
                f"{upload.size} bytes: an upload is kept in the database, at most {limit} bytes "
                "(REGISTRY_MAX_IMPORT_BYTES); import larger inputs by server path"
            )
        return upload

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
    list_display = ("id", "input_name", "status", "summary", "created_by", "created", "finished")
    list_filter = ("status", "dry_run")
    fields = (
        "input",
        "dry_run",
        "status",
        "steps",
        "summary",
        "pretty_report",
        "error",
        "created_by",
        "created",
        "started",
        "finished",
    )
    readonly_fields = tuple(name for name in fields if name != "dry_run")

    @admin.display(description="input")
    def input(self, run):
        if not run.upload_name:
            return format_html("server path <code>{}</code>", breakable(run.source))
        url = reverse("admin:pipeline_importrun_upload", args=[run.pk])
        return format_html("uploaded file <a href='{}' id='import-upload'>{}</a>", url, breakable(run.upload_name))

    @admin.display(description="input")
    def input_name(self, run):
        return breakable(f"upload {run.upload_name}" if run.upload_name else run.source)

    @admin.display(description="progress")
    def steps(self, run):
        pending = run.status in (ImportRun.Status.QUEUED, ImportRun.Status.RUNNING)
        reload = (
            format_html("<script>setTimeout(() => location.reload(), {})</script>", RELOAD_SECONDS * 1000)
            if pending
            else ""
        )
        shown = run.progress or ("waiting for a worker" if run.status == ImportRun.Status.QUEUED else "")
        return format_html("<pre id='import-progress'>{}</pre>{}", shown, reload)

    @admin.display(description="report")
    def pretty_report(self, run):
        return format_html("<pre style='max-height:30em;overflow:auto'>{}</pre>", json.dumps(run.report, indent=2))

    @admin.display(description="created", ordering="created_at")
    def created(self, run):
        return shown_time(run.created_at)

    @admin.display(description="started", ordering="started_at")
    def started(self, run):
        return shown_time(run.started_at)

    @admin.display(description="finished", ordering="finished_at")
    def finished(self, run):
        return shown_time(run.finished_at)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("source", "upload", "dry_run")
        return self.fields

    def get_urls(self):
        view = self.admin_site.admin_view(self.upload_view)
        return [path("<int:pk>/upload/", view, name="pipeline_importrun_upload"), *super().get_urls()]

    def upload_view(self, request, pk):
        """The uploaded input of a run, for users who may see the run."""
        run = get_object_or_404(ImportRun, pk=pk)
        if not self.has_view_or_change_permission(request, run):
            raise PermissionDenied
        if not run.upload_name:
            raise Http404("this run read a server path, not an upload")
        content = ImportUpload.objects.filter(run=run).values_list("content", flat=True).first()
        if content is None:
            raise Http404("the uploaded file is no longer kept")
        return FileResponse(io.BytesIO(content), as_attachment=True, filename=run.upload_name)

    def save_model(self, request, obj, form, change):
        upload = form.cleaned_data.get("upload") if not change else None
        if not change:
            obj.created_by = request.user.get_username()
            obj.started_by = request.user  # whose rights the run writes with (pipeline/tasks.py)
            if upload:
                obj.upload_name = upload.name  # Django's upload handlers keep the base name only
                obj.source = obj.source or upload.name
        super().save_model(request, obj, form, change)
        if upload:
            ImportUpload.objects.create(run=obj, content=b"".join(upload.chunks()))
        if not change:
            # here: the tasks load Celery, which a process needs only once it queues a task (start-up of commands)
            from .tasks import start_import

            transaction.on_commit(lambda: start_import(obj.pk))

    def response_add(self, request, obj, post_url_continue=None):
        self.message_user(
            request,
            f"Import {obj.pk} started in the background: this page shows its progress.",
            messages.SUCCESS,
        )
        return HttpResponseRedirect(reverse("admin:pipeline_importrun_change", args=[obj.pk]))

    def has_change_permission(self, request, obj=None):
        return obj is None and super().has_change_permission(request, obj)
