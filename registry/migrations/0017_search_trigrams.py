"""Trigram indexes for the search's substring matches (registry/store/search.py) on PostgreSQL; nothing elsewhere.

The search matches a word inside the id, name, description, tag values and format of resources and the name, tag
values and format of versions as Django writes `__icontains` (`UPPER(column::text) LIKE UPPER(%word%)`): without an
index each search read every version (issue 40). These GIN indexes of `pg_trgm` hold exactly those expressions, so
the planner serves the matches from them. `pg_trgm` is a trusted extension (PostgreSQL 13 and later: a user who may
create in the database may create it); where it cannot be created the indexes are left out and the search reads the
tables as before.
"""

from django.db import migrations, transaction
from django.db.utils import DatabaseError

INDEXES = {
    "version_name_trgm": ("registry_version", "upper(name)"),
    "version_tags_trgm": ("registry_version", "upper(tags::text)"),
    "version_format_trgm": ("registry_version", "upper(extensions ->> 'format')"),
    "resource_rid_trgm": ("registry_resource", "upper(rid::text)"),
    "resource_name_trgm": ("registry_resource", "upper(name)"),
    "resource_description_trgm": ("registry_resource", "upper(description)"),
    "resource_tags_trgm": ("registry_resource", "upper(tags::text)"),
    "resource_format_trgm": ("registry_resource", "upper(extensions ->> 'format')"),
}


def add_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    try:
        with transaction.atomic(using=schema_editor.connection.alias):  # a savepoint: a refusal leaves the rest
            schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except DatabaseError:
        return  # not allowed here: the search reads the tables, as before
    for name, (table, expression) in INDEXES.items():
        schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {table} USING gin (({expression}) gin_trgm_ops)")


def drop_indexes(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for name in INDEXES:
            schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [("registry", "0016_version_resource_order")]
    operations = [migrations.RunPython(add_indexes, drop_indexes, elidable=False)]
