"""App configuration of the Confluent-compatible Schema Registry API: registers the resolver of schema versions'
`references` attribute with the registry (confluent.references), and the attributes that keep this API's settings
on schema groups and schemas (confluent.attributes)."""

from django.apps import AppConfig


class ConfluentConfig(AppConfig):
    name = "confluent"
    verbose_name = "Confluent-compatible Schema Registry API"

    def ready(self):
        from . import attributes, references

        references.register()
        attributes.register()
