"""The catalog map in the governance UI: a "Map" section on the change page of every group, resource and
version (the map around it, inline so that its nodes are links), and the whole registry's map page
(`/admin/registry/map/`, linked from the dashboard; above REGISTRY_MAP_MAX_RESOURCES it says why it draws nothing and
links to the maps of a few groups instead). The same picture is public at `/map.svg?root=PATH`."""

from __future__ import annotations

import re
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import admin
from django.shortcuts import render
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from ..access import permissions
from ..access.read_scope import scope_for
from ..domain.errors import Problem
from ..services.references import base_urls
from .catalog_map import MapUnavailable, catalog_map_svg
from .dashboard import admin_url_of

PROLOG = re.compile(rb"^.*?(?=<svg)", re.S)  # the XML declaration and DOCTYPE before <svg>


def inline_svg(request, root: str | None) -> str:
    """The map as an `<svg>` element to place in a page (its links work there, unlike in an `<img>`), of what the
    user may read."""
    scope = scope_for(request.user)
    try:
        if root and scope.hides(root):
            permissions.authorize(request.user, "group", "read", permissions.group_path_of(root))
        svg = catalog_map_svg(
            root=root,
            base_urls=base_urls(request.build_absolute_uri("/").rstrip("/")),
            link=admin_url_of,
            title=root or f"{settings.REGISTRY_NAME}: the whole registry",
            scope=scope,
        )
    except MapUnavailable as exc:
        return format_html("<p class='errornote'>{}</p>", str(exc))
    except Problem as problem:
        return format_html("<p class='errornote'>{}</p>{}", problem.detail, instead(problem))
    # dot's SVG holds only what it drew: ids, labels and URLs escaped by Graphviz
    return mark_safe(PROLOG.sub(b"", svg, count=1).decode())  # noqa: S308


def instead(problem: Problem) -> str:
    """The maps a refusal of the whole registry's map names (`alternatives`), as links to this page around each."""
    roots = [alternative.split("root=", 1)[1] for alternative in problem.members.get("alternatives", [])]
    if not roots:
        return ""
    page = reverse("registry-admin-map")
    links = format_html_join(", ", "<a href='{}'>{}</a>", ((f"{page}?{urlencode({'root': r})}", r) for r in roots))
    return format_html("<p id='map-instead'>Draw the map of a group instead, for example: {}.</p>", links)


def map_section(request, path: str) -> dict:
    link = f"{reverse('catalog-map')}?{urlencode({'root': path})}"
    html = format_html(
        "<p>What {} connects to: the endpoints, definition groups, definitions and schemas that "
        "lead to it or that it leads to; every box links to its page. "
        "<a href='{}' id='map-svg-link'>Open as SVG</a> (public, to embed in a README or a wiki)."
        "</p><style>.catalog-map svg {{max-width: 100%; height: auto}}</style>"
        "<div class='catalog-map' id='catalog-map'>{}</div>",
        path,
        link,
        inline_svg(request, path),
    )
    return {"title": "Map", "html": html}


def map_view(request):
    """The whole registry's map, or the map around `?root=PATH`."""
    root = request.GET.get("root") or None
    context = {
        **admin.site.each_context(request),
        "title": "Catalog map",
        "root": root or "",
        "svg": inline_svg(request, root),
        "svg_url": reverse("catalog-map") + (f"?{urlencode({'root': root})}" if root else ""),
    }
    return render(request, "admin/registry/map.html", context)
