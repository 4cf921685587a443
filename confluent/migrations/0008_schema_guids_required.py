"""The GUIDs 0007 filled: required and unique, a new id's made at random."""

import uuid

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("confluent", "0007_schema_guids")]

    operations = [
        migrations.AlterField(
            model_name="schemaid",
            name="guid",
            field=models.UUIDField(
                default=uuid.uuid4,
                help_text="the content's GUID (GET /schemas/guids/{guid}): random, never reused",
                unique=True,
            ),
        ),
    ]
