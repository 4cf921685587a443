"""A sync source's owner (issue 37): the user its pulls write as. `run_as` (the optional configured user) becomes
`owner`; a source without one gets the user who added it in the admin (the admin's log records who), so that its
pulls keep running with that user's rights; a source that has neither (made by code or the shell) does not run until
a registry admin sets an owner (docs/teams.md). A run records what it skipped and why (`skipped`, `report`)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

ADDITION = 1  # django.contrib.admin.models.ADDITION


def owners_from_the_admin_log(apps, schema_editor):
    SyncSource = apps.get_model("sync", "SyncSource")
    LogEntry = apps.get_model("admin", "LogEntry")
    ContentType = apps.get_model("contenttypes", "ContentType")
    kind = ContentType.objects.filter(app_label="sync", model="syncsource").first()
    if kind is None:
        return
    for source in SyncSource.objects.filter(owner__isnull=True):
        added = (
            LogEntry.objects.filter(content_type=kind, object_id=str(source.pk), action_flag=ADDITION)
            .order_by("action_time")
            .first()
        )
        if added is not None:
            SyncSource.objects.filter(pk=source.pk).update(owner_id=added.user_id)


class Migration(migrations.Migration):
    dependencies = [
        ("sync", "0002_run_as"),
        ("admin", "0003_logentry_add_action_flag_choices"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RenameField(model_name="syncsource", old_name="run_as", new_name="owner"),
        migrations.AlterField(
            model_name="syncsource",
            name="owner",
            field=models.ForeignKey(
                blank=True,
                help_text="the user the source's pulls write as: each pulled change needs their rights "
                "(docs/teams.md); set to whoever creates the source, changed by registry admins only; a source "
                "without one does not run",
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.RunPython(owners_from_the_admin_log, migrations.RunPython.noop),
        migrations.AddField(
            model_name="syncrun",
            name="report",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name="syncrun",
            name="skipped",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AlterField(
            model_name="syncrun",
            name="status",
            field=models.CharField(
                choices=[
                    ("running", "running"),
                    ("ok", "ok"),
                    ("partial", "partial: some entities skipped (see its report)"),
                    ("failed", "failed"),
                ],
                default="running",
                max_length=16,
            ),
        ),
    ]
