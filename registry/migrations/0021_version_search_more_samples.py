"""Two more samples of the documents' vectors on PostgreSQL (nothing on other databases): every 64th and 1,024th
version by id, as migration 0020's. Between 0020's samples (16 times sparser each) a word could need the denser one,
up to 16 times the entries it looks for, and every sampled entry is a heap page of its own in the lookup's bitmap,
several times the cost of an entry of a whole list (issue 40 part B, figures in docs/performance.md)."""

from django.db import migrations

SAMPLES = (64, 1024)


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
    dependencies = [("registry", "0020_version_search_samples")]
    operations = [migrations.RunPython(add_indexes, drop_indexes, elidable=False)]
