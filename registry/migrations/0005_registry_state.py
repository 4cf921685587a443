"""The registry entity's own epoch and times (registry.models.RegistryState), started from the stored groups: the
epoch counts one addition per group, the times are the first group's creation and the last one's."""
from django.db import migrations, models
from django.db.models import Max, Min
from django.utils import timezone


def first_state(apps, schema_editor):
    Group = apps.get_model("registry", "Group")
    RegistryState = apps.get_model("registry", "RegistryState")
    found = Group.objects.aggregate(first=Min("created_on"), last=Max("created_on"))
    now = timezone.now()
    RegistryState.objects.create(pk=1, epoch=1 + Group.objects.count(), created_on=found["first"] or now,
                                 modified_on=found["last"] or now)


class Migration(migrations.Migration):

    dependencies = [
        ('registry', '0004_version_search'),
    ]

    operations = [
        migrations.CreateModel(
            name='RegistryState',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('epoch', models.PositiveBigIntegerField(default=1)),
                ('created_on', models.DateTimeField()),
                ('modified_on', models.DateTimeField()),
            ],
        ),
        migrations.RunPython(first_state, migrations.RunPython.noop),
    ]
