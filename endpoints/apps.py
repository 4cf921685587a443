"""App configuration: registers the `endpoints` group type with the registry engine."""
from django.apps import AppConfig


class EndpointsConfig(AppConfig):
    name = "endpoints"
    verbose_name = "Endpoint registry"

    def ready(self):
        from .types import register

        register()
