"""Every admin action says which permission it needs, so that Django's admin offers and runs it only for users
who hold it (`ModelAdmin.get_actions` drops the others; a posted action that is not offered is refused with
"No action selected." and runs nothing). Django runs an action that declares nothing for anyone who may view
the list: a view-only user ran "Sync now" that way (issue 24). The system check `registry.E101` names every
action of every registered admin that declares no permission, so a new one cannot slip through; an action
that only reads (an export) declares `view`."""

from __future__ import annotations

from django.contrib import admin
from django.core import checks


def admin_actions(site: admin.AdminSite | None = None):
    """(model admin, action name, action function) of every action of every admin registered on `site`,
    before any per-request filtering (the site-wide `delete_selected` included)."""
    if site is None:
        admin.autodiscover()  # the admins are loaded on first use (registry/governance/discovery.py)
        site = admin.site
    for model_admin in site._registry.values():
        if model_admin.actions is None:
            continue
        # Django's private list of an admin's actions before the per-request filtering, which django-stubs omits
        for func, name, _description in model_admin._get_base_actions():  # type: ignore[attr-defined]
            yield model_admin, name, func


def undeclared_actions(site: admin.AdminSite | None = None) -> list[str]:
    """`app.Model: action` for every action that does not declare the permissions it needs."""
    return sorted(
        f"{model_admin.model._meta.label}: {name}"
        for model_admin, name, func in admin_actions(site)
        if not getattr(func, "allowed_permissions", None)
    )


def check_action_permissions(app_configs=None, **kwargs):
    return [
        checks.Error(
            f"the admin action {entry} declares no permission",
            hint="give it @admin.action(permissions=[...]): 'view' for an action that only reads, "
            "'change', 'add' or 'delete' for one that writes",
            id="registry.E101",
        )
        for entry in undeclared_actions()
    ]
