"""App configuration of the Confluent-compatible Schema Registry API: registers the resolver of schema versions'
`references` attribute with the registry (confluent.references), the attributes that keep this API's settings
on schema groups and schemas (confluent.attributes), and the numbering of what every committed write wrote to schemas
(confluent.numbering.number_written), so that this API's reads find their subjects numbered."""

from django.apps import AppConfig


class ConfluentConfig(AppConfig):
    name = "confluent"
    verbose_name = "Confluent-compatible Schema Registry API"

    def ready(self):
        # in ready(): apps.py loads while Django fills its app registry; what this imports needs every app registered
        from registry.commit_listeners import register_on_commit_paths

        from . import attributes, numbering, references

        references.register()
        attributes.register()
        register_on_commit_paths(numbering.number_written)
