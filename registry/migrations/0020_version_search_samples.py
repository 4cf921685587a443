"""Indexes of a sample of the documents' vectors on PostgreSQL (nothing on other databases): every 16th, 256th and
4,096th version by id (`registry.store.search.SAMPLES`, `sampled`), each a GIN index of the same expression as
migration 0004's. A word in most documents has a list in 0004's index as long as the registry, which a lookup reads
whole before its LIMIT; its capped lookup reads the sparsest sample expected to hold its LIMIT's matches instead
(issue 40 part B, docs/performance.md)."""

from django.db import migrations

SAMPLES = (16, 256, 4096)


def add_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    from django.contrib.postgres.indexes import GinIndex

    from registry.store.search import sampled, search_vector

    version = apps.get_model("registry", "Version")
    for every in SAMPLES:
        schema_editor.add_index(
            version, GinIndex(search_vector(), name=f"version_search_{every}", condition=sampled(every))
        )


def drop_indexes(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for every in SAMPLES:
            schema_editor.execute(f"DROP INDEX IF EXISTS version_search_{every}")


class Migration(migrations.Migration):
    dependencies = [("registry", "0019_version_resource_created")]
    operations = [migrations.RunPython(add_indexes, drop_indexes, elidable=False)]
