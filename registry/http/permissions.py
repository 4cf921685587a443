"""Who may do what: reads are public unless REGISTRY_PUBLIC_READ is off; writes need the Django model permission.

A view names the model its writes touch per method (`write_permissions = {"POST": "registry.add_group"}`). A view
whose reads are never public names the permission they need (`read_permissions = "app.view_model"`): then a
read needs a signed-in user with it, whatever REGISTRY_PUBLIC_READ says.
"""

from django.conf import settings
from rest_framework.permissions import SAFE_METHODS, BasePermission

DEFAULT_WRITE_PERMISSIONS = {
    "POST": "registry.add_group",
    "PUT": "registry.change_group",
    "PATCH": "registry.change_group",
    "DELETE": "registry.delete_group",
}


class RegistryPermission(BasePermission):
    message = "you do not have the permission this write needs"

    def has_permission(self, request, view):
        user = request.user
        if request.method in SAFE_METHODS:
            needed = getattr(view, "read_permissions", None)
            if needed is not None:
                return bool(user and user.is_authenticated) and user.has_perms(
                    (needed,) if isinstance(needed, str) else needed
                )
            return settings.REGISTRY_PUBLIC_READ or bool(user and user.is_authenticated)
        if not (user and user.is_authenticated):
            return False
        permissions = getattr(view, "write_permissions", DEFAULT_WRITE_PERMISSIONS)
        needed = permissions.get(request.method)
        if needed is None:
            return True
        if isinstance(needed, str):
            needed = (needed,)
        return user.has_perms(needed)
