"""A partial index of the versions that hold Confluent references (the version attribute `references`) on
PostgreSQL; nothing on other databases. registry.domain.references reads those versions for `?referencedby`, the delete
rule and the catalog map: without it each read scanned every version of the registry (issue 40)."""

from django.db import migrations

INDEX = "version_holds_references"


def add_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        # the predicate as Django writes `extensions__has_key="references"` (client-side binding inlines it)
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {INDEX} ON registry_version (resource_id) WHERE extensions ? 'references'"
        )


def drop_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [("confluent", "0008_schema_guids_required"), ("registry", "0016_version_resource_order")]
    operations = [migrations.RunPython(add_index, drop_index, elidable=False)]
