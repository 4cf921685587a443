"""A resource's default version is the one `Resource.latest` names, for every binding: the write services point it at
the sticky default a 1.0 `meta` names (`services.versions.refresh_latest`, since issue 24), and the readers take the
default from it alone. A resource whose sticky default was set before then is pointed at it here."""

from django.db import migrations


def point_at_sticky_defaults(apps, schema_editor):
    Resource = apps.get_model("registry", "Resource")
    Version = apps.get_model("registry", "Version")
    for resource in Resource.objects.filter(extensions__defaultversionsticky=True).only("pk", "extensions", "latest"):
        named = Version.objects.filter(resource=resource, vid=resource.extensions.get("defaultversionid"))
        pk = named.values_list("pk", flat=True).first()
        if pk is not None and pk != resource.latest_id:
            Resource.objects.filter(pk=resource.pk).update(latest=pk)


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0021_version_search_more_samples"),
    ]

    operations = [migrations.RunPython(point_at_sticky_defaults, migrations.RunPython.noop)]
