"""References and impact in the governance UI (docs/api-contract.md section 14), for every registry admin.

- A "Referenced by" section on the change page of every group, resource and version: the entities that point
  at it or into it, each a link to its own admin page (found through the changelists apps register with
  `registry.governance.dashboard.register_admin_lists`).
- Deletes follow the API's rule, through the same service (`registry.services.deletions.delete_entities`):
  the confirmation page lists the referrers that stay, and the delete is refused unless "delete anyway"
  (the API's `?force=true`) is ticked; a bulk delete of referrers and referees together succeeds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, overload

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.actions import delete_selected as django_delete_selected
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.utils.html import format_html, format_html_join

from ..domain import references
from ..domain.errors import Problem
from ..models import Group, Resource, Version
from ..services import WriteContext
from ..services.deletions import delete_entities
from ..services.references import base_urls
from . import dashboard
from .dashboard import admin_url_of, change_url
from .links import breakable
from .map_section import map_section

if TYPE_CHECKING:
    from django.contrib.admin import ModelAdmin
    from django.db.models import Model
    from django.http import HttpRequest

FORCE_FIELD = "force"


@overload
def entity_path(obj: Group | Resource | Version) -> str: ...
@overload
def entity_path(obj: object) -> str | None: ...
def entity_path(obj: object) -> str | None:
    """The entity path of a group, resource or version (None for other models)."""
    if isinstance(obj, Group | Resource):
        return obj.path
    if isinstance(obj, Version):
        return f"{obj.resource.path}/versions/{obj.vid}"
    return None


def admin_url(path: str) -> str | None:
    """The admin change page of the entity at `path`, or None (no admin lists that type, or no such entity):
    a resource without its own list links to its group's page, a version without one to its resource's."""
    segments = [s for s in path.split("/") if s]
    if len(segments) < 2:
        return None
    lists = dashboard.admin_lists.get(segments[0])
    group = Group.objects.filter(group_type=segments[0], gid=segments[1]).first()
    if lists is None or group is None:
        return None
    resource = version = None
    if len(segments) >= 4:
        resource = Resource.objects.filter(group=group, resource_type=segments[2], rid=segments[3]).first()
    if resource is not None and len(segments) >= 6:
        version = Version.objects.filter(resource=resource, vid=segments[5]).first()
    version_list = lists[2][1] if lists[2] else None
    url = change_url(version_list, version.pk) if version is not None else None
    return url or admin_url_of(path, group.pk, resource.pk if resource is not None else None)


def referrer_rows(request, paths: list[str]) -> list[dict]:
    """The entities outside `paths` that reference one of them: path, admin link, attribute, reference."""
    found = references.referrers(paths, base_urls(request.build_absolute_uri("/").rstrip("/")))
    return [
        {"path": path, "url": admin_url(path), "attribute": ref["attribute"], "reference": ref["reference"]}
        for path, ref in sorted(found.items())
    ]


def rows_html(rows: list[dict], html_id: str) -> str:
    if not rows:
        return format_html("<p id='{}'>Nothing in this registry references it.</p>", html_id)
    body = format_html_join(
        "",
        "<tr><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
        (
            (
                format_html("<a href='{}'>{}</a>", row["url"], breakable(row["path"]))
                if row["url"]
                else breakable(row["path"]),
                row["attribute"],
                breakable(row["reference"]),
            )
            for row in rows
        ),
    )
    return format_html(
        "<table id='{}'><tr><th>entity</th><th>attribute</th><th>reference as written</th></tr>{}</table>",
        html_id,
        body,
    )


if TYPE_CHECKING:

    class _EntityAdmin(ModelAdmin):
        """What the mixin takes from the ServiceAdmin it comes before (registry/admin.py, which imports this module)."""

        def page_sections(self, request: HttpRequest, obj: Model) -> list[dict]: ...

else:
    _EntityAdmin = object


class ReferencesAdminMixin(_EntityAdmin):
    """For a ServiceAdmin of groups, resources or versions: the "Referenced by" section and checked deletes."""

    delete_confirmation_template = "admin/registry/delete_confirmation.html"
    delete_selected_confirmation_template = "admin/registry/delete_selected_confirmation.html"

    def referenced_by_section(self, request, obj) -> list[dict]:
        path = entity_path(obj)
        if path is None:
            return []
        rows = referrer_rows(request, [path])
        return [{"title": f"Referenced by ({len(rows)})", "html": rows_html(rows, "referenced-by")}]

    def page_sections(self, request, obj) -> list[dict]:
        path = entity_path(obj)
        the_map = [map_section(request, path)] if path else []
        return [*super().page_sections(request, obj), *self.referenced_by_section(request, obj), *the_map]

    def forced(self, request) -> bool:
        return request.method == "POST" and request.POST.get(FORCE_FIELD) == "on"

    def delete_paths(self, request, paths: list[str]) -> list[str]:
        return delete_entities(ctx=WriteContext.from_request(request), paths=paths, force=self.forced(request))

    def delete_model(self, request, obj: Group | Resource | Version):
        self.delete_paths(request, [entity_path(obj)])

    def delete_queryset(self, request, queryset: QuerySet[Group] | QuerySet[Resource] | QuerySet[Version]):
        self.delete_paths(request, [entity_path(obj) for obj in queryset])

    def delete_view(self, request, object_id, extra_context=None):
        obj = self.get_object(request, object_id)
        path = entity_path(obj) if obj is not None else None
        extra = {
            **(extra_context or {}),
            "referencedby": referrer_rows(request, [path]) if path else [],
            "force_field": FORCE_FIELD,
        }
        try:
            return super().delete_view(request, object_id, extra)
        except Problem as problem:  # the service refused: nothing was deleted (its transaction rolled back)
            self.message_user(request, f"Not deleted: {problem.detail}", messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())

    def get_actions(self, request):
        actions = super().get_actions(request)
        if (delete_selected := actions.get("delete_selected")) is not None:
            _func, name, description = delete_selected
            actions["delete_selected"] = (checked_delete_selected, name, description)
        return actions


@admin.action(permissions=("delete",))
def checked_delete_selected(modeladmin, request, queryset):
    """Django's "delete selected" with the registry's rule: the confirmation lists the referrers outside the
    selection; the delete goes through the service, all or none."""
    if request.POST.get("post"):
        objects = list(queryset)
        if not modeladmin.has_delete_permission(request):
            return None
        try:
            with transaction.atomic():
                modeladmin.log_deletions(request, objects)
                deleted = modeladmin.delete_paths(request, [entity_path(obj) for obj in objects])
        except Problem as problem:
            modeladmin.message_user(request, f"Nothing deleted: {problem.detail}", messages.ERROR)
            return None
        modeladmin.message_user(
            request,
            f"Deleted {len(deleted)} {modeladmin.model._meta.verbose_name_plural} (and what they held).",
            messages.SUCCESS,
        )
        return None
    response = django_delete_selected(modeladmin, request, queryset)
    if isinstance(response, TemplateResponse) and response.context_data is not None:
        paths = [entity_path(obj) for obj in queryset]
        response.context_data.update(
            {
                "referencedby": referrer_rows(request, paths),
                "force_field": FORCE_FIELD,
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            }
        )
    return response
