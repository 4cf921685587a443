"""A per-resource digest of its versions that PostgreSQL keeps itself (issue 29), so that a process proves the
documents it keeps of a resource's versions unchanged in O(1) (registry/store/earlier_documents.py) instead of summing a
hash over every version under the schema's lock.

`registry_resource.versions_digest` (a column of the database only, not a model field: no code but these triggers
writes it) starts at a random value when the resource's row is made, so that a resource made again with the same id
(after a restore, or a TRUNCATE that restarts the ids) does not start where the old one was. After every statement
that changes `registry_version` rows, whatever wrote it (the services, the ORM, raw SQL, a bulk import), a trigger in
the same transaction:

- INSERT: adds `hashint8extended(id, 0)` of each new row that has a document to its resource's digest (the reader adds
  the same for the rows it reads after the ones it keeps);
- UPDATE or DELETE: adds a random 64-bit value to the digest of each resource whose rows it touched, so that no sum of
  inserts matches it (but by chance, about once in 2^64).

The trigger's UPDATE of the resource's row also makes every change of a resource's versions wait for the resource's
row lock, which every write of the services already takes first. SQLite reads every document each time: nothing here.
"""

from django.db import migrations

FUNCTION = """
CREATE FUNCTION registry_versions_digest() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE registry_resource SET versions_digest = versions_digest + hashint8extended(NEW.id, 0)
        WHERE id = NEW.resource_id;
        RETURN NULL;
    ELSIF TG_OP = 'UPDATE' THEN
        UPDATE registry_resource r SET versions_digest = r.versions_digest
            + hashtextextended(gen_random_uuid()::text, r.id)
        WHERE r.id IN (SELECT resource_id FROM old_rows UNION SELECT resource_id FROM new_rows);
    ELSE
        UPDATE registry_resource r SET versions_digest = r.versions_digest
            + hashtextextended(gen_random_uuid()::text, r.id)
        WHERE r.id IN (SELECT resource_id FROM old_rows);
    END IF;
    RETURN NULL;
END
$$;
"""

FORWARD = [
    "ALTER TABLE registry_resource ADD COLUMN versions_digest numeric NOT NULL "
    "DEFAULT hashtextextended(gen_random_uuid()::text, 0)",
    FUNCTION,
    # per row (no transition table to fill): most inserts are one version's
    "CREATE TRIGGER registry_versions_inserted AFTER INSERT ON registry_version FOR EACH ROW "
    "WHEN (NEW.content IS NOT NULL) EXECUTE FUNCTION registry_versions_digest()",
    "CREATE TRIGGER registry_versions_updated AFTER UPDATE ON registry_version "
    "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION registry_versions_digest()",
    "CREATE TRIGGER registry_versions_deleted AFTER DELETE ON registry_version REFERENCING OLD TABLE AS old_rows "
    "FOR EACH STATEMENT EXECUTE FUNCTION registry_versions_digest()",
]

BACKWARD = [
    "DROP TRIGGER registry_versions_deleted ON registry_version",
    "DROP TRIGGER registry_versions_updated ON registry_version",
    "DROP TRIGGER registry_versions_inserted ON registry_version",
    "DROP FUNCTION registry_versions_digest()",
    "ALTER TABLE registry_resource DROP COLUMN versions_digest",
]


def _run(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for statement in statements:
                schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0010_version_resource_created"),
    ]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
