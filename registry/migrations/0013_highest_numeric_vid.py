"""The highest number among a resource's version ids, kept by PostgreSQL with the versions' digest (issue 29), so that
a new version's id is found without reading the resource's versions when none holds a number above its counter.

A new version without an id takes the first number after the resource's counter that no version holds
(`registry/services/versions.py:next_version_id`). Only a version stored with a numeric id above the counter by a
door that does not move the counter (plain SQL or the ORM, a bulk import) can hold one, yet every new version asked
which of the numbers after the counter are taken, under the schema's lock. With statistics older than the table (a
bulk import, a schema grown since the last analysis) the planner reads that through every version of the resource
(docs/performance.md).

`registry_resource.highest_numeric_vid` (a column of the database only, not a model field, like `versions_digest`):
the highest id of the resource's versions that is a number (digits only), NULL when none is. The trigger of 0011 keeps
it in the same statement that keeps the digest, whatever wrote the versions (the services, the ORM, raw SQL, a bulk
import): an insert raises it to the new id's number; an update raises it to the highest of the updated rows' ids. A
delete leaves it as it was: too high is safe (the numbers are looked up as before), too low never happens. Numbers in
ids with leading zeros count by their value ("0012" as 12), which can only make it higher than needed.

The query of the taken numbers asks the resource's row first (registry/services/versions.py:taken_ids): when no
version id is a number above the counter, PostgreSQL answers without reading a version. SQLite: nothing here.
"""

from importlib import import_module

from django.db import migrations

NUMBER = "'^[0-9]+$'"

FUNCTION = f"""
CREATE OR REPLACE FUNCTION registry_versions_digest() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE registry_resource SET
            versions_digest = versions_digest
                + CASE WHEN NEW.content IS NOT NULL THEN hashint8extended(NEW.id, 0) ELSE 0 END,
            highest_numeric_vid = GREATEST(
                highest_numeric_vid, CASE WHEN NEW.vid ~ {NUMBER} THEN NEW.vid::numeric END
            )
        WHERE id = NEW.resource_id;
        RETURN NULL;
    ELSIF TG_OP = 'UPDATE' THEN
        UPDATE registry_resource r SET
            versions_digest = r.versions_digest + hashtextextended(gen_random_uuid()::text, r.id),
            highest_numeric_vid = GREATEST(r.highest_numeric_vid, (
                SELECT max(n.vid::numeric) FROM new_rows n WHERE n.resource_id = r.id AND n.vid ~ {NUMBER}
            ))
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

DIGEST = import_module("registry.migrations.0011_versions_digest")
# 0011's function, for the way back
OLD_FUNCTION = DIGEST.FUNCTION.replace(
    "CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1
)

FORWARD = [
    "ALTER TABLE registry_resource ADD COLUMN highest_numeric_vid numeric NULL",
    # the versions already stored
    f"UPDATE registry_resource r SET highest_numeric_vid = m.highest FROM (SELECT resource_id, max(vid::numeric) "
    f"AS highest FROM registry_version WHERE vid ~ {NUMBER} GROUP BY resource_id) m WHERE m.resource_id = r.id",
    FUNCTION,
    # every insert of a version with a document (the digest) or a numeric id (the highest number)
    "DROP TRIGGER registry_versions_inserted ON registry_version",
    "CREATE TRIGGER registry_versions_inserted AFTER INSERT ON registry_version FOR EACH ROW "
    f"WHEN (NEW.content IS NOT NULL OR NEW.vid ~ {NUMBER}) EXECUTE FUNCTION registry_versions_digest()",
]

BACKWARD = [
    "DROP TRIGGER registry_versions_inserted ON registry_version",
    "CREATE TRIGGER registry_versions_inserted AFTER INSERT ON registry_version FOR EACH ROW "
    "WHEN (NEW.content IS NOT NULL) EXECUTE FUNCTION registry_versions_digest()",
    OLD_FUNCTION,
    "ALTER TABLE registry_resource DROP COLUMN highest_numeric_vid",
]


_run = DIGEST._run  # its statements on PostgreSQL only


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0012_version_resource_id"),
    ]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
