"""App configuration: registers the `endpoints` group type with the registry engine."""

from django.apps import AppConfig


class EndpointsConfig(AppConfig):
    name = "endpoints"
    verbose_name = "Endpoint registry"

    def ready(self):
        # in ready(): apps.py loads while Django fills its app registry; what this imports needs every app registered
        from . import xr10
        from .types import register

        register()
        xr10.register()
