"""App configuration of the registry engine."""
from django.apps import AppConfig


class RegistryConfig(AppConfig):
    name = "registry"
    verbose_name = "Registry"

    def ready(self):
        from . import dashboard
        from .admin_search import dashboard_panel

        dashboard.register_panel("admin/registry/search_panel.html", dashboard_panel)
