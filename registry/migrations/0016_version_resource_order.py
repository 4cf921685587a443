"""The index of a resource's versions in the order of the latest version (CONTRACT 18, issue 39): the version ids
left-padded with spaces to one length and compared (`registry.domain.attributes.version_sort_key`: length, then the id by code
point), in place of the index of their creation order (0010), which found the newest version, read under the
schema's lock by every new version, and the 1.0 `ancestorid` (the version created before). The latest is now the
greatest id: a new version compares its id with the latest's (registry/services/versions.py), and a document GET in
1.0 reads its `ancestorid`, the version before it in this order (`compiled_reads.history_columns`), from this index
(one entry, not a sort of every version of the resource). Nothing else reads versions in creation order by the
database: the earlier documents are read by row id (registry/store/earlier_documents.py), then sorted.

An expression index, written per database: PostgreSQL's collation "C" orders ids by code point as Python does (the
database's own collation may not), SQLite's default BINARY does too.
"""

from django.db import migrations

INDEX = "version_resource_order"
POSTGRESQL = f'CREATE INDEX {INDEX} ON registry_version (resource_id, length(vid), (vid COLLATE "C"))'
SQLITE = f"CREATE INDEX {INDEX} ON registry_version (resource_id, length(vid), vid)"


def create(apps, schema_editor):
    schema_editor.execute(POSTGRESQL if schema_editor.connection.vendor == "postgresql" else SQLITE)


def drop(apps, schema_editor):
    schema_editor.execute(f"DROP INDEX {INDEX}")


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0015_audit_changes"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="version", name="version_resource_created"),
        migrations.RunPython(create, drop),
    ]
