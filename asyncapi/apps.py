"""The AsyncAPI app's configuration. Its admin panel and the export links on group pages are registered with the
registry's admin by its admin module (asyncapi/admin.py), loaded with the admin's modules on first use
(registry/governance/discovery.py)."""

from django.apps import AppConfig


class AsyncAPIConfig(AppConfig):
    name = "asyncapi"
    verbose_name = "AsyncAPI"
