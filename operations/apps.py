"""App configuration of the operations app (probes, metrics, request ids and logs)."""

from django.apps import AppConfig


class OperationsConfig(AppConfig):
    name = "operations"
    verbose_name = "Operations"
