"""App configuration of the registry engine."""

from django.apps import AppConfig


class RegistryConfig(AppConfig):
    name = "registry"
    verbose_name = "Registry"
    # the admin's face (site header, dashboard search panel) is set up with its modules, in registry/admin.py:
    # they are loaded on first use (registry/governance/discovery.py)
