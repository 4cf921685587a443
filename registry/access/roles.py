"""The roles of the governance UI: "Registry editors" change the registry and subscriptions, "Registry viewers"
browse, registry admins (the team REGISTRY_ADMIN_TEAM, registry/access/permissions.py) change everything whatever a group's
owners. Used by the data migrations (with historical models) and by tests."""

from django.conf import settings

APPS = ("registry", "catalog", "endpoints", "subscriptions", "pipeline", "sync")
EDITORS, VIEWERS = "Registry editors", "Registry viewers"


def ensure_roles(group_model, permission_model) -> None:
    ours = permission_model.objects.filter(content_type__app_label__in=APPS)
    editors, _ = group_model.objects.get_or_create(name=EDITORS)
    viewers, _ = group_model.objects.get_or_create(name=VIEWERS)
    editors.permissions.set(ours)
    viewers.permissions.set(ours.filter(codename__startswith="view_"))

    admins, _ = group_model.objects.get_or_create(name=settings.REGISTRY_ADMIN_TEAM)
    admins.permissions.set(ours)
