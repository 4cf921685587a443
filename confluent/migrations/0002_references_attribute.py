"""Copy each version's Confluent references into its `references` attribute (confluent.references), where every
binding shows, exports and imports them; versions registered before that kept them only in SubjectVersion.
No change event: the versions' content is what it was, and their epochs stay."""

from django.db import migrations


def copy_references(apps, schema_editor):
    SubjectVersion = apps.get_model("confluent", "SubjectVersion")
    Version = apps.get_model("registry", "Version")
    rows = SubjectVersion.objects.exclude(references=[]).values_list("version_id", "references")
    for version_id, references in rows.iterator():
        version = Version.objects.filter(pk=version_id).only("extensions").first()
        if version is None or not references or "references" in (version.extensions or {}):
            continue
        version.extensions = {**(version.extensions or {}), "references": references}
        version.save(update_fields=["extensions"])


class Migration(migrations.Migration):
    dependencies = [
        ("confluent", "0001_initial"),
    ]

    operations = [migrations.RunPython(copy_references, migrations.RunPython.noop)]
