"""What each audit row changed (`changes`) and the group it concerns by the group's row id (`group_pk`), issue 37.

The rows written before carry no `changes`. Their `group_pk` is set here to the group that has their group's path
now when they were written after it was made (its `created_on`): rows of a group deleted before it, whose path a
later group took, keep none, and so only registry admins read them (registry/audit_views.py).
"""

from django.db import migrations, models


def attribute_rows_to_groups(apps, schema_editor):
    Group = apps.get_model("registry", "Group")
    AuditRecord = apps.get_model("registry", "AuditRecord")
    for pk, group_type, gid, created_on in Group.objects.values_list("pk", "group_type", "gid", "created_on").iterator():
        AuditRecord.objects.filter(group_path=f"/{group_type}/{gid}", time__gte=created_on).update(group_pk=pk)


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0014_audit_via"),
    ]

    operations = [
        migrations.AddField(
            model_name="auditrecord",
            name="changes",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="auditrecord",
            name="group_pk",
            field=models.PositiveBigIntegerField(blank=True, null=True),
        ),
        migrations.AddIndex(
            model_name="auditrecord",
            index=models.Index(fields=["group_pk", "id"], name="audit_group_pk"),
        ),
        migrations.RunPython(attribute_rows_to_groups, migrations.RunPython.noop),
    ]
