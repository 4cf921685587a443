"""A schema version's Confluent `metadata` and `ruleSet` become attributes of the version (`confluentmetadata`,
`confluentruleset`: confluent/attributes.py, CONTRACT.md section 20), which every binding shows, exports and imports,
instead of columns of this API's `SubjectVersion` table; and they become part of the content a schema id stands for
(as Confluent's ids: the same text with another rule set is another schema), which `SchemaId` keeps with it.

- Each row's metadata and rule set move onto its version (a version that already has the attribute keeps its own).
  The version gets epoch + 1 and a new modification time, and the change marker moves (no change event, no audit row:
  the registry's content is what this API answered, now where every binding reads it).
- The row's schema id is re-keyed to include them (confluent.schema_types.extended_key): the id keeps its number when every version holding it has the same metadata and rule set (its key and
  content are updated), else those versions get the id that content has, or a new one.

The way back puts them into the columns again (the ids keep their keys). The columns are dropped by 0006 (a migration
of its own: PostgreSQL does not alter a table whose rows this transaction changed under deferred constraints).
"""

import json

from django.db import migrations, models
from django.db.models import Max
from django.utils import timezone

METADATA, RULE_SET = "confluentmetadata", "confluentruleset"


def _normal(metadata, rule_set):
    """The values in the normal form a registration now stores (confluent.contracts: a value of another shape, which
    the API kept as given before, stays as it is). The app's functions are used, not copies: this migration only runs
    on databases written before them."""
    from confluent.contracts import metadata_problem, normal_metadata, normal_rule_set, rule_set_problem

    if metadata is not None and metadata_problem(metadata) is None:
        metadata = normal_metadata(metadata)
    if rule_set is not None and rule_set_problem(rule_set) is None:
        rule_set = normal_rule_set(rule_set)
    return metadata, rule_set


def _extended(base: str, metadata, rule_set) -> str:
    from confluent.schema_types import extended_key

    return extended_key(base, metadata, rule_set)


def forwards(apps, schema_editor):
    SubjectVersion = apps.get_model("confluent", "SubjectVersion")
    SchemaId = apps.get_model("confluent", "SchemaId")
    now = timezone.now()
    rows = list(
        SubjectVersion.objects.filter(models.Q(metadata__isnull=False) | models.Q(rule_set__isnull=False))
        .select_related("version", "schema_id")
        .order_by("pk")
    )
    # what each schema id's versions hold (all of them, to tell whether an id can keep its number)
    holders: dict[int, set[str]] = {}
    for row in SubjectVersion.objects.all().only("schema_id", "metadata", "rule_set"):
        part = json.dumps(_normal(row.metadata or None, row.rule_set or None), sort_keys=True)
        holders.setdefault(row.schema_id_id, set()).add(part)
    for row in rows:
        metadata, rule_set = _normal(row.metadata or None, row.rule_set or None)
        version = row.version
        extensions = dict(version.extensions)
        if metadata is not None and METADATA not in extensions:
            extensions[METADATA] = metadata
        if rule_set is not None and RULE_SET not in extensions:
            extensions[RULE_SET] = rule_set
        metadata, rule_set = extensions.get(METADATA), extensions.get(RULE_SET)
        if extensions != version.extensions:
            version.extensions = extensions
            version.epoch += 1
            version.modified_on = now
            version.save(update_fields=["extensions", "epoch", "modified_on"])
        old = row.schema_id
        key = _extended(old.key, metadata, rule_set)
        found = SchemaId.objects.filter(key=key).first()
        if found is None and len(holders.get(old.pk, ())) == 1 and old.key != key:
            old.key, old.metadata, old.rule_set = key, metadata, rule_set
            old.save(update_fields=["key", "metadata", "rule_set"])
            found = old
        elif found is None:
            top = SchemaId.objects.aggregate(top=Max("id"))["top"] or 0
            found = SchemaId.objects.create(
                id=top + 1,
                key=key,
                schema_type=old.schema_type,
                schema=old.schema,
                references=old.references,
                metadata=metadata,
                rule_set=rule_set,
            )
        row.schema_id = found
        row.epoch = version.epoch
        row.save(update_fields=["schema_id", "epoch"])
    if rows:
        ChangeCount = apps.get_model("registry", "ChangeCount")
        marker = ChangeCount.objects.order_by("pk").first()
        if marker is None:
            ChangeCount.objects.create(changes=1, changed_at=now)
        else:
            ChangeCount.objects.filter(pk=marker.pk).update(changes=models.F("changes") + 1, changed_at=now)


def backwards(apps, schema_editor):
    SubjectVersion = apps.get_model("confluent", "SubjectVersion")
    for row in SubjectVersion.objects.select_related("version"):
        metadata, rule_set = row.version.extensions.get(METADATA), row.version.extensions.get(RULE_SET)
        if metadata is not None or rule_set is not None:
            row.metadata, row.rule_set = metadata, rule_set
            row.save(update_fields=["metadata", "rule_set"])


class Migration(migrations.Migration):
    dependencies = [
        ("confluent", "0004_dek_registry"),
        ("registry", "0013_highest_numeric_vid"),
    ]

    operations = [
        migrations.AddField(model_name="schemaid", name="metadata", field=models.JSONField(blank=True, null=True)),
        migrations.AddField(model_name="schemaid", name="rule_set", field=models.JSONField(blank=True, null=True)),
        migrations.AlterField(
            model_name="schemaid",
            name="key",
            field=models.CharField(
                help_text="sha256 of type, canonical text, references, metadata and rule set", max_length=64, unique=True
            ),
        ),
        migrations.RunPython(forwards, backwards),
    ]
