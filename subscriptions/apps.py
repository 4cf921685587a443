"""App configuration for subscriptions and delivery."""

from django.apps import AppConfig


class SubscriptionsConfig(AppConfig):
    name = "subscriptions"
    verbose_name = "Subscriptions and deliveries"
    # the admin dashboard's panels are registered with the admin's modules (subscriptions/admin.py)

    def ready(self):
        # here, not at the top: Django loads app configs before the models
        from registry.commit_listeners import register_on_commit

        from .relay_kicks import kick_relay

        register_on_commit(kick_relay)  # the engine calls it after every commit that wrote change events
