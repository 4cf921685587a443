"""Import runs started from the admin: what was imported, by whom, its status and its report."""
from django.db import models


class ImportRun(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        RUNNING = "running", "running"
        DONE = "done", "done"
        REJECTED = "rejected", "done, with rejected entities"
        FAILED = "failed", "failed"

    source = models.TextField(help_text="a path on the server (file, directory or glob)")
    upload = models.FileField(upload_to="imports/", null=True, blank=True)
    dry_run = models.BooleanField(default=False)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    created_by = models.CharField(max_length=150, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    summary = models.CharField(max_length=200, blank=True, default="")
    report = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"import {self.pk}: {self.source} ({self.status})"
