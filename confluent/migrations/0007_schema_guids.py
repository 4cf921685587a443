"""Schema GUIDs (docs/confluent.md): every schema id gets a random UUID, as the clients' recent serializers name a
schema in a message by it (`GET /schemas/guids/{guid}`). Added empty, filled for the ids given before, then required
and unique (three steps: a column is not made NOT NULL in the transaction that filled it on PostgreSQL)."""

import uuid

from django.db import migrations, models


def fill(apps, schema_editor):
    SchemaId = apps.get_model("confluent", "SchemaId")
    for row in SchemaId.objects.filter(guid__isnull=True).only("pk"):
        SchemaId.objects.filter(pk=row.pk).update(guid=uuid.uuid4())


class Migration(migrations.Migration):
    dependencies = [("confluent", "0006_drop_subject_version_contracts")]

    operations = [
        migrations.AddField(model_name="schemaid", name="guid", field=models.UUIDField(null=True)),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
