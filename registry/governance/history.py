"""One history for every entity in the admin (docs/teams.md): the History page of a group, resource or version lists
the audit trail of that entity and of what lies beneath it, newest first, whatever door each change came through (an
API, an import, Spark, a sync, the admin), instead of Django's log of the admin's own writes only."""

from __future__ import annotations

from django.contrib.admin.utils import unquote
from django.db.models import Q
from django.shortcuts import render
from django.urls import reverse

from ..models import AuditRecord
from ..permissions import group_path_of
from . import access as admin_access

SHOWN = 500  # the newest rows a page shows; GET /audit?path=... pages through all of them


def history_rows(path: str):
    """The audit rows of the entity at `path` and of what lies beneath it, newest first."""
    return (
        AuditRecord.objects.filter(group_path=group_path_of(path))
        .filter(Q(path=path) | Q(path__startswith=path + "/"))
        .order_by("-id")
    )


class AuditHistoryMixin:
    """A ModelAdmin of registry entities whose History page is the audit trail."""

    def history_view(self, request, object_id, extra_context=None):
        if not getattr(self, "entity_kind", None):
            return super().history_view(request, object_id, extra_context)
        obj = self.get_object(request, unquote(object_id))
        if obj is None or not self.has_view_or_change_permission(request, obj):
            return self._get_obj_does_not_exist_redirect(request, self.model._meta, object_id)
        path, _group = admin_access.path_and_group(obj)
        rows = list(history_rows(path)[: SHOWN + 1])
        opts = self.model._meta
        context = {
            **self.admin_site.each_context(request),
            "title": f"History: {path}",
            "opts": opts,
            "object": obj,
            "path": path,
            "rows": [(row, row.path[len(path) :] or "") for row in rows[:SHOWN]],
            "more": len(rows) > SHOWN,
            "audit_url": reverse("audit") + f"?path={path}",
            "change_url": reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk]),
        }
        return render(request, "admin/registry/history.html", context)
