"""Teams in the governance UI (Authentication and Authorization > Groups): Django's group admin, whose renames and
deletes go through registry/services/teams.py, because a registry group's owners name teams by name
(docs/teams.md). A rename carries the new name into those owners as the admin who renames (a group they may not
change the owners of refuses it, next to the name); a team that groups' owners name, and the registry admins' team,
cannot be deleted (the delete page and the bulk delete list why); a name groups' owners still name with no team of it
is taken by registry admins only, who are told where the team then holds roles."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth.admin import GroupAdmin
from django.contrib.auth.models import Group as Team
from django.core.exceptions import PermissionDenied
from django.db import transaction

from ..domain.errors import Problem
from ..services import WriteContext
from ..services import teams as team_services


class TeamAdmin(GroupAdmin):
    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)

        # (a class on the form class Django's admin builds per request: mypy takes no variable as a base)
        class TeamForm(form):  # type: ignore[valid-type,misc]
            """Django's group form, whose rename (or new name) is made through the team services once the form is
            otherwise valid; a refusal is an error next to the name, with nothing written."""

            def _post_clean(self):
                super()._post_clean()
                self.groups_renamed: list[str] = []
                self.roles_taken: list[str] = []
                name = self.cleaned_data.get("name")
                if self.errors or not name:
                    return
                ctx = WriteContext.from_request(request)
                try:
                    # the change view's transaction commits what this writes only with the rest of the form's save
                    with transaction.atomic():
                        pk = self.instance.pk
                        if pk is None:
                            self.roles_taken = team_services.claim_name(ctx, name)
                        elif Team.objects.get(pk=pk).name != name:
                            self.roles_taken = team_services.claim_name(ctx, name, team_pk=pk)
                            self.groups_renamed = team_services.rename_team(ctx=ctx, team_pk=pk, name=name)
                except Problem as problem:
                    self.add_error("name", problem.detail)

        return TeamForm

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        renamed = getattr(form, "groups_renamed", [])
        if renamed:
            self.message_user(request, f"The owners of {', '.join(renamed)} now name the team {obj.name!r}.")
        taken = getattr(form, "roles_taken", [])
        if taken:
            self.message_user(
                request,
                f"The owners of {', '.join(taken)} named a team {obj.name!r} that did not exist: this team now holds "
                "its roles there.",
                messages.WARNING,
            )

    def get_deleted_objects(self, objs, request):
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        # a team groups' owners name, or the registry admins', is not deleted: Django's page says so and deletes none
        protected = list(protected) + [why for team in objs if (why := team_services.delete_refusal(team.name))]
        return deleted, counts, perms_needed, protected

    def delete_model(self, request, obj):
        try:
            team_services.delete_team(ctx=WriteContext.from_request(request), team_pk=obj.pk)
        except Problem as problem:  # named meanwhile: refused as the delete page would have
            raise PermissionDenied(problem.detail)

    @transaction.atomic  # the bulk delete deletes all of the selection or none (its view has no transaction)
    def delete_queryset(self, request, queryset):
        for team in queryset.order_by("pk"):
            self.delete_model(request, team)


if admin.site.is_registered(Team):
    admin.site.unregister(Team)
admin.site.register(Team, TeamAdmin)
