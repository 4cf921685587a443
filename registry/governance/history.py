"""One history for every entity in the admin (docs/teams.md): the History page of a group, resource or version lists
the audit trail of that entity and of what lies beneath it, newest first, whatever door each change came through (an
API, an import, Spark, a sync, the admin), instead of Django's log of the admin's own writes only: each row with what
it changed (attribute, before, after; registry/store/audit.py). It lists the rows of the group as it is (its row id): not
those of a group deleted before it that had the same id."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from django.contrib.admin.utils import unquote
from django.db.models import Q
from django.shortcuts import render
from django.urls import reverse

from ..access.permissions import group_path_of
from ..models import AuditRecord
from . import access as admin_access

SHOWN = 500  # the newest rows a page shows; GET /audit?path=... pages through all of them
LONGEST = 200  # the characters of a value a cell shows (GET /audit answers it whole)


def history_rows(path: str, group_pk: int | None):
    """The audit rows of the entity at `path` and of what lies beneath it, in the group whose row id is `group_pk`,
    newest first."""
    return (
        AuditRecord.objects.filter(group_pk=group_pk, group_path=group_path_of(path))
        .filter(Q(path=path) | Q(path__startswith=path + "/"))
        .order_by("-id")
    )


def changed(row: AuditRecord) -> list[tuple[str, str, str]]:
    """A row's `changes` as the History page's table shows them: (attribute, before, after), each value as text
    (a document as its digest and size; "" where the attribute was not there)."""
    return [
        (name, _text(change, "before"), _text(change, "after"))
        for name, change in sorted((row.changes or {}).items())
        if isinstance(change, dict)
    ]


def _text(change: dict, side: str) -> str:
    if side not in change:
        return ""
    value = change[side]
    if isinstance(value, dict) and set(value) == {"digest", "size"}:
        return f"{value['digest']} ({value['size']} bytes)"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= LONGEST else text[: LONGEST - 1] + "…"


if TYPE_CHECKING:
    from django.contrib.admin import ModelAdmin
    from django.db.models.options import Options
    from django.http import HttpRequest, HttpResponseRedirect

    class _Admin(ModelAdmin):
        """The ModelAdmin the mixin comes before, with the private method of Django's it calls (as Django's own
        change and history views do), which django-stubs does not declare."""

        def _get_obj_does_not_exist_redirect(
            self, request: HttpRequest, opts: Options, object_id: str
        ) -> HttpResponseRedirect: ...

else:
    _Admin = object


class AuditHistoryMixin(_Admin):
    """A ModelAdmin of registry entities whose History page is the audit trail."""

    def history_view(self, request, object_id, extra_context=None):
        if not getattr(self, "entity_kind", None):
            return super().history_view(request, object_id, extra_context)
        obj = self.get_object(request, unquote(object_id))
        if obj is None or not self.has_view_or_change_permission(request, obj):
            return self._get_obj_does_not_exist_redirect(request, self.model._meta, object_id)
        path, group = admin_access.path_and_group(obj)
        rows = list(history_rows(path, group.pk if group is not None else None)[: SHOWN + 1])
        opts = self.model._meta
        context = {
            **self.admin_site.each_context(request),
            "title": f"History: {path}",
            "opts": opts,
            "object": obj,
            "path": path,
            "rows": [(row, row.path[len(path) :] or "", changed(row)) for row in rows[:SHOWN]],
            "more": len(rows) > SHOWN,
            "audit_url": reverse("audit") + f"?path={path}",
            "change_url": reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk]),
        }
        return render(request, "admin/registry/history.html", context)
