"""The routes of a binding's entities, generated from the types it serves and its view of each level: one set per
group type and resource type, the same paths for every binding (`{group}/{gid}/{resource}/{rid}/versions/{vid}` in
the binding's names of the types); a binding adds its extra routes (its root, fixed APIs) beside them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from django.urls import path
from django.views import View

# each level's path below the binding's root; `{g}` and `{r}` are the binding's plurals of the types, `{v}` the name of
# the version's segment
GROUP_LEVELS = {"groups": "{g}", "group": "{g}/<str:gid>"}
RESOURCE_LEVELS = {
    "resources": "{g}/<str:gid>/{r}",
    "resource": "{g}/<str:gid>/{r}/<str:rid>",
    "meta": "{g}/<str:gid>/{r}/<str:rid>/meta",
    "versions": "{g}/<str:gid>/{r}/<str:rid>/versions",
    "version": "{g}/<str:gid>/{r}/<str:rid>/versions/<str:{v}>",
}


def entity_routes(
    types: Iterable[tuple[str, Iterable[str]]],
    views: Mapping[str, type[View]],
    names: dict[str, str],
    view_kwargs: Callable[[str, str | None], dict],
    version_key: str = "vid",
) -> list:
    """`types`: each group type's plural with its resource types' plurals, in the binding's names; `views`: the
    binding's view class of each level it serves (a level it lacks, such as 0.5's `meta`, is left out); `names`: each
    level's URL name, `{g}`/`{r}` filled; `view_kwargs(g, r)`: what the view is told of its types (r None for a
    group level); `version_key`: the view's keyword of the version segment (the older bindings' `version`, a number)."""
    patterns = []
    for g, resources in types:
        for level, template in GROUP_LEVELS.items():
            patterns.append(route(template, views[level], names[level], view_kwargs(g, None), g=g))
        for r in resources:
            for level, template in RESOURCE_LEVELS.items():
                if level in views:
                    patterns.append(
                        route(template, views[level], names[level], view_kwargs(g, r), g=g, r=r, v=version_key)
                    )
    return patterns


def route(template: str, view: type[View], name: str, kwargs: dict, **plurals: str):
    return path(template.format(**plurals), view.as_view(**kwargs), name=name.format(**plurals))
