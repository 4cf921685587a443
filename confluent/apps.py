"""App configuration of the Confluent-compatible Schema Registry API: registers the resolver of schema versions'
`references` attribute with the registry (confluent.references)."""

from django.apps import AppConfig


class ConfluentConfig(AppConfig):
    name = "confluent"
    verbose_name = "Confluent-compatible Schema Registry API"

    def ready(self):
        from . import references

        references.register()
