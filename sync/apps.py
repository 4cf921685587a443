"""App configuration of registry sync."""

from django.apps import AppConfig


class SyncConfig(AppConfig):
    name = "sync"
    verbose_name = "Sync between registries"
