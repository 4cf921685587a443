"""App configuration of the Confluent-compatible Schema Registry API."""

from django.apps import AppConfig


class ConfluentConfig(AppConfig):
    name = "confluent"
    verbose_name = "Confluent-compatible Schema Registry API"
