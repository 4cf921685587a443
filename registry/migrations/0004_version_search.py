"""The GIN index of the full-text search (registry/store/search.py) on PostgreSQL; nothing on other databases."""
from django.db import migrations

INDEX = "version_search"


def add_index(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    from django.contrib.postgres.indexes import GinIndex

    from registry.store.search import search_vector

    schema_editor.add_index(apps.get_model("registry", "Version"), GinIndex(search_vector(), name=INDEX))


def drop_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [("registry", "0003_roles")]
    operations = [migrations.RunPython(add_index, drop_index, elidable=False)]
