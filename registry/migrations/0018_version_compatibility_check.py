"""`Version.compatibility_check`: how a version's compatibility was checked when it was written (xRegistry 1.0
`compatibilityvalidated`, CONTRACT 18). Every version written before it was checked, as it was written, at the level
that applied to it (imports included): that level is recorded for them, as it applies now (the version's own, its
resource's, its group's, else REGISTRY_DEFAULT_COMPATIBILITY); `none` records nothing (not checked)."""

from django.conf import settings
from django.db import migrations, models

CHUNK = 1000


def levels(apps, schema_editor):
    Resource = apps.get_model("registry", "Resource")
    Version = apps.get_model("registry", "Version")
    default = getattr(settings, "REGISTRY_DEFAULT_COMPATIBILITY", "backward_transitive")
    by_level: dict[str, list[int]] = {}
    rows = Resource.objects.values_list("pk", "extensions", "group__extensions").iterator(chunk_size=CHUNK)
    for pk, own, group in rows:
        level = (own or {}).get("compatibility") or (group or {}).get("compatibility") or default
        if isinstance(level, str) and level != "none":
            by_level.setdefault(level[:32], []).append(pk)
    for level, pks in by_level.items():
        for start in range(0, len(pks), CHUNK):
            Version.objects.filter(resource_id__in=pks[start : start + CHUNK]).update(compatibility_check=level)
    for version in Version.objects.filter(extensions__has_key="compatibility").only("pk", "extensions").iterator():
        level = version.extensions.get("compatibility")
        if isinstance(level, str) and level:
            Version.objects.filter(pk=version.pk).update(compatibility_check=None if level == "none" else level[:32])


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0017_search_trigrams"),
    ]

    operations = [
        migrations.AddField(
            model_name="version",
            name="compatibility_check",
            field=models.CharField(blank=True, max_length=32, null=True),
        ),
        migrations.RunPython(levels, migrations.RunPython.noop),
    ]
