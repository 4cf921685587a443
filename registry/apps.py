"""App configuration of the registry engine."""

from django.apps import AppConfig


class RegistryConfig(AppConfig):
    name = "registry"
    verbose_name = "Registry"

    def ready(self):
        # here, not at the top: Django loads app configs before the models, and these import models
        from django.conf import settings
        from django.contrib import admin

        from . import dashboard
        from .admin_search import dashboard_panel

        dashboard.register_panel("admin/registry/search_panel.html", dashboard_panel)
        # the governance UI's face: the registry's name (REGISTRY_NAME) instead of "Django administration"
        admin.site.site_header = admin.site.site_title = settings.REGISTRY_NAME
        admin.site.index_title = "Catalog"
