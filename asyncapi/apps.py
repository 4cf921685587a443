"""The AsyncAPI app's configuration: its admin panel and the export links on group pages, registered with the
registry's admin (which names no app)."""

from django.apps import AppConfig


class AsyncAPIConfig(AppConfig):
    name = "asyncapi"
    verbose_name = "AsyncAPI"

    def ready(self):
        from registry import dashboard
        from registry.admin import register_group_section

        from . import admin

        dashboard.register_panel("admin/asyncapi/dashboard_panel.html", admin.dashboard_panel)
        register_group_section("definitionGroups", admin.message_group_section)
        register_group_section("endpoints", admin.endpoint_section)
