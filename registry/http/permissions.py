"""The HTTP side of who may do what: reads are public unless REGISTRY_PUBLIC_READ is off; writes need a signed-in
user (401 otherwise), and which registry writes that user may make is decided by the services, from one table
(registry/access/permissions.py), for every binding and the admin alike: no view of a registry entity holds a map of its
own.

With public reads off, a read of a group or of what it holds needs the role `reader` there when the group has owners
(`check_group_read`, for every view that names a group in its path).

Views of other things than registry entities (subscriptions, the sync hook) name the model permission their writes
need per method (`write_permissions = {"POST": "subscriptions.add_subscription"}`). A view whose reads are never
public names the permission they need (`read_permissions = "app.view_model"`): then a read needs a signed-in user
with it, whatever REGISTRY_PUBLIC_READ says.
"""

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from rest_framework.permissions import SAFE_METHODS, BasePermission

from ..access import permissions
from ..access.read_scope import ReadScope, scope_for


def reads_are_public() -> bool:
    """Whether any caller, signed in or not, may read every registry entity: then who the caller is changes no
    read of one (the fast path of document reads, registry/http/fast_reads.py, serves only then). A read rule that
    depends on the caller or the entity when this is true must make it false for them."""
    return bool(settings.REGISTRY_PUBLIC_READ)


class RegistryPermission(BasePermission):
    message = "you do not have the permission this write needs"

    def has_permission(self, request, view):
        user = request.user
        signed_in = bool(user and user.is_authenticated)
        # a POST that writes nothing (`read_only_check`: a lookup, a check) needs what a read needs, as OpenAPI says
        if request.method in SAFE_METHODS or (request.method == "POST" and getattr(view, "read_only_check", False)):
            needed = getattr(view, "read_permissions", None)
            if needed is not None:
                return signed_in and user.has_perms((needed,) if isinstance(needed, str) else needed)
            return reads_are_public() or signed_in
        if not signed_in:
            return False
        needed = getattr(view, "write_permissions", {}).get(request.method)
        if needed is None:  # a registry write: registry.access.permissions, checked by the services
            return True
        return user.has_perms((needed,) if isinstance(needed, str) else needed)


def check_group_read(view, request, kwargs) -> None:
    """With public reads off, a read below a group with owners needs a role there (`reader` at least) or a registry
    admin (registry/access/permissions.py): 403 naming the group and the role. A read is a GET or HEAD, or a POST of a view
    whose POSTs only read (`post_reads`: checks, validations). Public reads: nothing to check."""
    if settings.REGISTRY_PUBLIC_READ or not only_reads(view, request):
        return
    gid = kwargs.get("gid", kwargs.get("eid"))
    plural = getattr(view, "group_plural", None) if isinstance(gid, str) else None
    if plural:
        check_read(request, f"/{plural}/{gid.removesuffix('$details')}")


def only_reads(view, request) -> bool:
    """Whether the request only reads: a GET or HEAD, or a POST of a view whose POSTs only read (`post_reads`)."""
    return request.method in SAFE_METHODS or (request.method == "POST" and getattr(view, "post_reads", False))


def check_read(request, path: str, group=None) -> None:
    """With public reads off, 403 unless the caller may read the entity at store path `path` (its group's rule;
    `group`: the stored group when the caller holds it)."""
    if settings.REGISTRY_PUBLIC_READ:
        return
    user, group_path = request.user, permissions.group_path_of(path)
    # the group's owners and the user's teams in one query (registry/access/permissions.py `owners_for_read`)
    owners = permissions.owners_of_group(group) if group is not None else permissions.owners_for_read(user, group_path)
    permissions.authorize(user, "group", "read", group_path, owners=owners)


def read_scope(request) -> ReadScope:
    """The groups the caller may read (registry/access/read_scope.py), decided once per request."""
    scope = getattr(request, "_registry_read_scope", None)
    if scope is None:
        scope = scope_for(getattr(request, "user", None) or AnonymousUser())
        request._registry_read_scope = scope
    return scope
