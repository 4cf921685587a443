"""The index of a resource's versions in the order they were created (`registry.domain.attributes.version_order`:
`createdat`, then the row's id), again (0010 made it, 0016 took it for the order of the latest version): the pages of
a versions collection are read from it by key (registry/store/paging.py, issue 40), where every version of the
resource was read and sorted for each page."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0018_version_compatibility_check"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="version",
            index=models.Index(fields=["resource", "created_on", "id"], name="version_resource_created"),
        ),
    ]
