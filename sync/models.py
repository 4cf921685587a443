"""Sync sources (a remote registry and what of it to pull, and the user whose rights each pull has: its owner) and the
record of each sync run (its counts, and the entities it skipped with why: outside the scope, not brought by this
source, refused to the owner)."""

import secrets
from urllib.parse import urlsplit

from django.conf import settings
from django.db import models

MASK = "***"


def new_secret() -> str:
    return secrets.token_urlsafe(24)


class SyncSource(models.Model):
    class Scope(models.TextChoices):
        REGISTRY = "registry", "whole registry"
        GROUP = "group", "one group"
        RESOURCE = "resource", "one resource"

    name = models.CharField(max_length=128, unique=True)
    base_url = models.URLField(help_text="the remote registry's base URL, e.g. https://registry.example.com")
    token = models.CharField(max_length=256, blank=True, default="", help_text="sent as 'Authorization: Token ...'")
    scope = models.CharField(max_length=16, choices=Scope.choices, default=Scope.REGISTRY)
    path = models.CharField(
        max_length=512,
        blank=True,
        default="",
        help_text="for a group or resource scope: /schemaGroups/g or /schemaGroups/g/schemas/s",
    )
    interval_seconds = models.PositiveIntegerField(default=300)
    enabled = models.BooleanField(default=True)
    subscribe = models.BooleanField(default=False, help_text="subscribe at the remote and pull on its change events")
    webhook_secret = models.CharField(max_length=64, default=new_secret, editable=False)
    remote_subscription_id = models.CharField(max_length=128, blank=True, default="")
    last_run_at = models.DateTimeField(null=True, blank=True)
    last_status = models.CharField(max_length=16, blank=True, default="")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="the user the source's pulls write as: each pulled change needs their rights (docs/teams.md); set "
        "to whoever creates the source, changed by registry admins only; a source without one does not run",
    )

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return f"{self.name} ({self.shown_base_url}{self.path})"

    @property
    def shown_base_url(self) -> str:
        """The base URL as pages show it: the password of its user info masked."""
        try:
            parts = urlsplit(self.base_url)
        except ValueError:
            return self.base_url
        if "@" not in parts.netloc:
            return self.base_url
        userinfo, host = parts.netloc.rsplit("@", 1)
        userinfo = f"{userinfo.split(':', 1)[0]}:{MASK}" if ":" in userinfo else MASK
        return parts._replace(netloc=f"{userinfo}@{host}").geturl()

    @property
    def path_parts(self) -> list[str]:
        """The path's segments: [group type, group id] for a group, and [resource type, resource id] after them for a
        resource; [] for the whole registry."""
        return [p for p in self.path.split("/") if p] if self.scope != self.Scope.REGISTRY else []

    @property
    def origin(self) -> str:
        return self.base_url.rstrip("/")


class SyncRun(models.Model):
    class Status(models.TextChoices):
        RUNNING = "running", "running"
        OK = "ok", "ok"
        PARTIAL = "partial", "partial: some entities skipped (see its report)"
        FAILED = "failed", "failed"

    source = models.ForeignKey(SyncSource, on_delete=models.CASCADE, related_name="runs")
    trigger = models.CharField(max_length=16, default="schedule")
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RUNNING)
    created = models.PositiveIntegerField(default=0)
    updated = models.PositiveIntegerField(default=0)
    deleted = models.PositiveIntegerField(default=0)
    unchanged = models.PositiveIntegerField(default=0)
    skipped = models.PositiveIntegerField(default=0)
    # what the run did not write, and why: [{"path": ..., "reason": ...}] (outside the source's scope, not brought by
    # this source, refused to its owner)
    report = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-started_at"]

    def __str__(self):
        return f"{self.source.name} {self.started_at:%Y-%m-%d %H:%M:%S} {self.status}"
