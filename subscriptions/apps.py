"""App configuration for subscriptions and delivery."""
from django.apps import AppConfig


class SubscriptionsConfig(AppConfig):
    name = "subscriptions"
    verbose_name = "Subscriptions and deliveries"
