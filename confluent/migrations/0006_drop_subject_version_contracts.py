"""The columns whose values 0005 moved onto the versions (`confluentmetadata`, `confluentruleset`)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("confluent", "0005_contracts_on_versions")]

    operations = [
        migrations.RemoveField(model_name="subjectversion", name="metadata"),
        migrations.RemoveField(model_name="subjectversion", name="rule_set"),
    ]
