"""Import runs started from the admin (what was imported, by whom, its status and its report) with their uploaded
inputs, and the inputs that imports left the registry consistent with (so the same input again needs no Spark at
all)."""

from django.conf import settings
from django.db import models


class ImportRun(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        RUNNING = "running", "running"
        DONE = "done", "done"
        REJECTED = "rejected", "done, with rejected entities"
        FAILED = "failed", "failed"

    source = models.TextField(help_text="a path on the server (file, directory or glob), or the uploaded file's name")
    upload_name = models.CharField(
        max_length=255, blank=True, default="", help_text="the uploaded file's name; empty: the run read a server path"
    )
    dry_run = models.BooleanField(default=False)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    created_by = models.CharField(max_length=150, blank=True, default="")  # the name, as it was when it started
    # whose rights the run writes with: the user (by id, not by a name another user may take) who started it in the
    # admin; a run whose user is gone (deleted: null) or inactive fails, never runs as anyone else (pipeline/tasks.py)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", editable=False
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    progress = models.TextField(blank=True, default="", help_text="the import's steps so far, one a line")
    summary = models.CharField(max_length=200, blank=True, default="")
    report = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"import {self.pk}: {self.source}"  # its status changes: shown on its own, not in titles


class ImportUpload(models.Model):
    """The bytes of an import run's uploaded input, in the database: whichever web replica received the upload, any
    worker reads it, with no volume shared between pods (docs/deploy.md). A table of its own, so that the lists of
    runs never read them; deleted with the run."""

    run = models.OneToOneField(ImportRun, on_delete=models.CASCADE, primary_key=True, related_name="+")
    content = models.BinaryField()

    def __str__(self):
        return f"upload of import {self.run_id}"


class ImportedInput(models.Model):
    """An input (its files' paths and bytes, as one fingerprint) that a bulk import read completely, with no
    rejected entity and no other write to the registry while it ran: the registry was then exactly as the
    input says, at change marker `marker`. While the marker is unchanged, the same input changes nothing."""

    fingerprint = models.CharField(max_length=64, unique=True)
    marker = models.CharField(max_length=80)
    entities = models.PositiveIntegerField()
    recorded_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"input {self.fingerprint[:12]} ({self.entities} entities)"
