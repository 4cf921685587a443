"""App configuration for subscriptions and delivery."""

from django.apps import AppConfig


class SubscriptionsConfig(AppConfig):
    name = "subscriptions"
    verbose_name = "Subscriptions and deliveries"

    def ready(self):
        from registry import dashboard

        from . import tasks  # noqa: F401  registers the relay kick with the engine's on-commit hook
        from .health import dashboard_panel as health_panel
        from .selectors import dashboard_panel

        dashboard.register_panel("admin/subscriptions/dashboard_panel.html", dashboard_panel)
        dashboard.register_panel("admin/subscriptions/health_panel.html", health_panel)
