"""`GET /audit`: the audit trail over HTTP (docs/teams.md), paged like every collection (`?limit`, the `Link`
header's continuation), oldest first, filtered by django-filter: `path` (an entity and what lies beneath it, in
either binding's names), `actor`, `since` (RFC 3339), `door`, `via` (a sync's source), `operation`.

It answers registry admins everything and the owners of groups (a team of theirs holds the role `owner`) the rows
of those groups: of the groups as they are, by their row ids (`AuditRecord.group_pk`), so that the owners of a group
made again with the id of a deleted one do not read the deleted group's rows. Anyone else signed in gets 403, and an
anonymous request 401, whatever REGISTRY_PUBLIC_READ says. Each row says what changed (`changes`: registry/store/audit.py).
"""

from __future__ import annotations

import django_filters
from django.db.models import Q
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.exceptions import NotAuthenticated

from .access import permissions
from .bindings.v10.mapping import store_path, v1_path
from .domain.attributes import timestamp
from .domain.errors import Problem
from .http.openapi import problem_responses
from .http.requests import check_flags
from .http.views import RegistryView, json_response
from .models import AuditRecord, Group
from .store.paging import PageRequest, link_header

OPERATIONS = ("create", "update", "delete")
# What the parameters accept, declared in the OpenAPI document as the view checks it: an empty filter is refused
NON_EMPTY = {"type": "string", "minLength": 1}
PATH_PATTERN = r"^/*[^/]+/+[^/]+(/.*)?$"


class AuditFilter(django_filters.FilterSet):
    path = django_filters.CharFilter(method="within", help_text="an entity's path; its rows and those beneath it")
    actor = django_filters.CharFilter(field_name="actor", help_text="a user's name, or a system source (demo)")
    since = django_filters.IsoDateTimeFilter(field_name="time", lookup_expr="gte", help_text="RFC 3339")
    door = django_filters.CharFilter(field_name="door")
    via = django_filters.CharFilter(field_name="via", help_text="a sync source's name")
    operation = django_filters.ChoiceFilter(choices=[(o, o) for o in OPERATIONS])

    class Meta:
        model = AuditRecord
        fields = ["path", "actor", "since", "door", "via", "operation"]

    def within(self, queryset, _name, value):
        path = as_store_path(value)
        group = permissions.group_path_of(path)
        return queryset.filter(Q(group_path=group) & (Q(path=path) | Q(path__startswith=path + "/")))


def as_store_path(value: str) -> str:
    path = "/" + value.strip("/")
    if len(path.split("/")) < 3:
        raise Problem("bad-request", f"path {value!r} must name a group, a resource or a version")
    return store_path(path) or path


def record_json(row: AuditRecord) -> dict:
    out = {
        "id": row.pk,
        "time": timestamp(row.time),
        "actor": row.actor,
        "authtype": row.authtype,
        "door": row.door,
        **({"via": row.via} if row.via else {}),
        "operation": row.operation,
        "path": row.path,
        "xid": v1_path(row.path),
    }
    if row.epoch_before is not None:
        out["epochBefore"] = row.epoch_before
    if row.epoch_after is not None:
        out["epochAfter"] = row.epoch_after
    if row.event is not None:
        out["event"] = str(row.event)
    if row.changes is not None:  # (rows written before it was recorded have none)
        out["changes"] = row.changes
    return out


def visible_records(user, path: str | None):
    """The rows `user` may read: every row for a registry admin, the rows of the groups they own for an owner;
    403 for anyone else, or for a `path` in a group they do not own."""
    rows = AuditRecord.objects.all()
    if permissions.is_registry_admin(user):
        return rows
    owned = owned_groups(user)
    if path is not None:
        group = permissions.group_path_of(as_store_path(path))
        if group not in owned:
            raise Problem(
                "forbidden",
                "the audit trail of {subject} answers registry admins and the group's owners",
                subject=group,
            )
    elif not owned:
        raise Problem("forbidden", "the audit trail answers registry admins and the owners of groups")
    return rows.filter(group_pk__in=sorted(owned.values()))


def owned_groups(user) -> dict[str, int]:
    """The groups whose owners give one of `user`'s teams the role `owner`: path -> the group's row id."""
    teams = sorted(permissions.teams_of(user))
    if not teams:
        return {}
    found = Group.objects.filter(extensions__owners__has_any_keys=teams).values_list(
        "pk", "group_type", "gid", "extensions"
    )
    return {
        f"/{plural}/{gid}": pk
        for pk, plural, gid, extensions in found
        if permissions.role_of(user, (extensions or {}).get("owners")) == "owner"
    }


class AuditView(RegistryView):
    """`GET /audit`"""

    @extend_schema(
        summary="The audit trail: one record per committed change",
        tags=["audit"],
        parameters=[
            OpenApiParameter(
                "path",
                {"type": "string", "pattern": PATH_PATTERN},
                description="an entity's path (a group, a resource or a version): its records and those beneath",
            ),
            OpenApiParameter("actor", NON_EMPTY, description="a user's name or a system source"),
            OpenApiParameter("since", OpenApiTypes.DATETIME, description="records at or after this time"),
            OpenApiParameter("door", NON_EMPTY, description="the door the changes came through"),
            OpenApiParameter("via", NON_EMPTY, description="the sync source the changes came from (door sync)"),
            OpenApiParameter("operation", OpenApiTypes.STR, enum=list(OPERATIONS)),
            OpenApiParameter("limit", OpenApiTypes.INT),
            # `page` tokens come from Link headers only: not offered (as for the registry's collections)
        ],
        responses={
            (200, "application/json"): OpenApiResponse(
                {"type": "array", "items": {"type": "object"}}, "audit records, oldest first"
            ),
            **problem_responses(400, 401, 403),
        },
    )
    def get(self, request):
        if not (request.user and request.user.is_authenticated):
            raise NotAuthenticated()
        check_flags(request, {"path", "actor", "since", "door", "via", "operation", "limit", "page"})
        filters = ("path", "actor", "since", "door", "via", "operation")
        empty = sorted(name for name in filters if request.GET.get(name) == "")
        if empty:
            raise Problem("bad-request", f"?{empty[0]} needs a value (leave the parameter out to filter nothing)")
        page = PageRequest.from_params(request.GET)
        rows = visible_records(request.user, request.GET.get("path"))
        found = AuditFilter(request.GET, queryset=rows)
        if not found.is_valid():
            errors = [f"{name}: {' '.join(messages)}" for name, messages in found.errors.items()]
            raise Problem("bad-request", "; ".join(errors), errors=errors)
        rows = found.qs.order_by("id")
        total = rows.count()
        chosen = list(rows[page.offset : page.offset + page.limit])
        link = link_header(request, page, total)
        return json_response([record_json(r) for r in chosen], headers={"Link": link} if link else None)
