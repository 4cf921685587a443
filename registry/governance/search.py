"""The governance UI's search (registry/store/search.py): the results page behind the dashboard's search box, the
dashboard panel holding that box, and the changelists' own search boxes (`SearchAdminMixin`)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Q
from django.shortcuts import render
from django.urls import NoReverseMatch, reverse

from ..access.read_scope import scope_for
from ..models import Group
from ..store import search
from . import dashboard

LIMIT = 100


def change_url(obj) -> str | None:
    """The admin page of a group or resource, from the lists apps register (a resource type without a list
    of its own: its group's page)."""
    group = obj if isinstance(obj, Group) else obj.group
    lists = dashboard.admin_lists.get(group.group_type)
    if lists is None:
        return None
    group_list, resource_list, _version_list = ((entry[1] if entry else None) for entry in lists)
    candidates = [(group_list, obj)] if obj is group else [(resource_list, obj), (group_list, group)]
    for list_name, target in candidates:
        if list_name:
            try:
                return reverse(list_name.removesuffix("changelist") + "change", args=[target.pk])
            except NoReverseMatch:
                continue
    return None


def search_view(request):
    query = request.GET.get("q", "").strip()
    results = search.search(query, LIMIT, scope_for(request.user)) if query else None
    rows = (
        [{"hit": hit, "url": change_url(hit.obj), "owners": sorted(hit.owners.items())} for hit in results.hits]
        if results
        else []
    )
    context = {
        **admin.site.each_context(request),
        "title": f"Search: {query}" if query else "Search the registry",
        "query": query,
        "results": results,
        "rows": rows,
        "limit": LIMIT,
        "capped_rows": f"{search.LOOKUP_CAP:,}",
    }
    return render(request, "admin/registry/search.html", context)


def dashboard_panel(user) -> dict:
    """The dashboard's search box (a panel: registry/governance/dashboard.py) needs nothing but its template."""
    return {}


class SearchAdminMixin:
    """A registry changelist's search box runs the registry's search: `search_target` says what the list
    holds ("group", "resource" or "version"); the list's own filters still apply. When a word was found in more
    rows than the search looks at (`search.LOOKUP_CAP`, PostgreSQL), the changelist says so, as the search page
    does."""

    search_target = "group"

    def get_search_results(self, request, queryset, search_term):
        if not search.words(search_term):
            return queryset, False
        memo: dict = {}
        if self.search_target == "group":  # a group has no document
            found = Q(pk__in=search.matching_groups(search_term).values("pk"))
        elif self.search_target == "resource":
            found = search.resource_condition(search_term, memo)
        else:
            found = search.version_condition(search_term, memo)
        if memo.get(search.CAPPED):
            request.registry_search_capped = True  # said on the page by changelist_view
        if self.search_target == "resource":  # a resource list is also searched by its groups' ids, as before: the
            # groups first (a small table), so that the resources are found by their index rather than every one joined
            term = search_term.replace("\x00", "").strip()  # PostgreSQL refuses NUL
            groups = list(Group.objects.filter(gid__icontains=term).values_list("pk", flat=True))
            if groups:  # an OR with an empty list still made the planner read every resource (issue 40)
                found |= search.pk_in(groups, "group_id")
        return queryset.filter(found), False

    def changelist_view(self, request, extra_context=None):
        response = super().changelist_view(request, extra_context)  # type: ignore[misc]
        if getattr(request, "registry_search_capped", False) and not getattr(response, "is_rendered", True):
            # added before the page is rendered, so it is shown on this page (never carried to the next one)
            messages.warning(request, capped_message())
        return response


def capped_message() -> str:
    cap = f"{search.LOOKUP_CAP:,}"
    return (
        f"A word of this search is in more than {cap} versions or resources: the list holds the matches among "
        f"the first {cap} found, not every match. Add words to narrow the search."
    )
