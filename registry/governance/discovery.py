"""The admin's modules are loaded when something needs them, not at start-up.

Django's default `AdminConfig` imports every app's `admin.py` in `ready()`, and with them the admin's forms,
search, map and service helpers: about half of a management command's start-up, though only the admin's pages
and the admin's system checks use them. `AdminConfig` here (INSTALLED_APPS) discovers them instead when the URLs
load (config/urls.py, before `admin.site.urls`) and before any admin system check runs, so `manage.py check`
and the pages see the same registered admins as before. `discover_admin()` may be called any number of times.
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.apps import SimpleAdminConfig
from django.contrib.admin.checks import check_admin_app, check_dependencies
from django.core import checks

from .actions import check_action_permissions


def discover_admin() -> admin.AdminSite:
    """Import every installed app's `admin` module (once: a module already imported is not run again)."""
    admin.autodiscover()
    return admin.site


def check_discovered_admins(app_configs=None, **kwargs):
    """Django's checks of the registered admins, after discovery (they would find no admin before it)."""
    discover_admin()
    return check_admin_app(app_configs, **kwargs)


class AdminConfig(SimpleAdminConfig):
    """django.contrib.admin, discovered on first use (module docstring)."""

    def ready(self):
        checks.register(check_dependencies, checks.Tags.admin)
        checks.register(check_discovered_admins, checks.Tags.admin)
        checks.register(check_action_permissions, checks.Tags.admin)  # registry.E101
