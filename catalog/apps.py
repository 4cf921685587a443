"""App configuration: registers `definitionGroups` and `schemaGroups` with the registry engine."""

from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "catalog"
    verbose_name = "Message and schema catalog"

    def ready(self):
        # in ready(): apps.py loads while Django fills its app registry; what this imports needs every app registered
        from . import xr10
        from .types import register

        register()
        xr10.register()
