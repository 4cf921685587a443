"""The versions' index on (resource, id) in place of the foreign key's own index on resource alone (registry/models.py
says why; issue 29): made first, so that the foreign key is never without one."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0011_versions_digest"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="version",
            index=models.Index(fields=["resource", "id"], name="version_resource_id"),
        ),
        migrations.AlterField(
            model_name="version",
            name="resource",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="versions",
                to="registry.resource",
            ),
        ),
    ]
