"""Who last set a subscription's sink (deliveries are filtered by their rights): for the existing rows, the creator,
whose rights the deliveries followed until now."""

from django.db import migrations, models
from django.db.models import F


def creators_set_the_sinks(apps, schema_editor):
    apps.get_model("subscriptions", "Subscription").objects.update(sink_set_by=F("created_by"))


class Migration(migrations.Migration):
    dependencies = [("subscriptions", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="subscription",
            name="sink_set_by",
            field=models.CharField(blank=True, max_length=150, null=True),
        ),
        migrations.RunPython(creators_set_the_sinks, migrations.RunPython.noop),
    ]
