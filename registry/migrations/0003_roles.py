"""Roles: "Registry editors" may change the registry and subscriptions, "Registry viewers" may browse."""
from django.db import migrations

APPS = ("registry", "catalog", "endpoints", "subscriptions", "pipeline", "sync")


def create_roles(apps, schema_editor):
    from django.contrib.auth.management import create_permissions

    for config in apps.get_app_configs():
        config.models_module = True
        create_permissions(config, apps=apps, verbosity=0)
        config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    ours = Permission.objects.filter(content_type__app_label__in=APPS)
    editors, _ = Group.objects.get_or_create(name="Registry editors")
    viewers, _ = Group.objects.get_or_create(name="Registry viewers")
    editors.permissions.set(ours)
    viewers.permissions.set(ours.filter(codename__startswith="view_"))


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
