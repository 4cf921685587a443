"""Roles: "Registry editors" may change the registry and subscriptions, "Registry viewers" may browse."""
from django.db import migrations

def create_roles(apps, schema_editor):
    from django.contrib.auth.management import create_permissions

    for config in apps.get_app_configs():
        config.models_module = True
        create_permissions(config, apps=apps, verbosity=0)
        config.models_module = None
    from registry.access.roles import ensure_roles

    ensure_roles(apps.get_model("auth", "Group"), apps.get_model("auth", "Permission"))


def remove_roles(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=["Registry editors", "Registry viewers"]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0002_origin"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("catalog", "0001_initial"),
        ("endpoints", "0001_initial"),
        ("subscriptions", "0001_initial"),
        ("pipeline", "0001_initial"),
        ("sync", "0001_initial"),
    ]
    operations = [migrations.RunPython(create_roles, remove_roles)]
