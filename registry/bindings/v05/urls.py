"""URL routes of the core binding, derived from the registered model (one set per group type)."""

from django.urls import path

from ...domain.model import registry_model
from . import openapi
from .catalog_map import CatalogMapView
from .groups import GroupCollectionView, GroupView
from .resources import ResourceCollectionView, ResourceView, VersionCollectionView, VersionView
from .root import RootView

openapi.declare(
    RootView, GroupCollectionView, GroupView, ResourceCollectionView, ResourceView, VersionCollectionView, VersionView
)


def build_urlpatterns():
    patterns = [
        path("", RootView.as_view(), name="registry-root"),
        path("map.svg", CatalogMapView.as_view(), name="catalog-map"),
    ]
    for gt in registry_model.group_types:
        g = gt.plural
        patterns += [
            path(f"{g}", GroupCollectionView.as_view(group_plural=g), name=f"{g}-list"),
            path(f"{g}/<str:gid>", GroupView.as_view(group_plural=g), name=f"{g}-detail"),
        ]
        for rt in gt.resources:
            r = rt.plural
            kwargs = {"group_plural": g, "resource_plural": r}
            patterns += [
                path(f"{g}/<str:gid>/{r}", ResourceCollectionView.as_view(**kwargs), name=f"{g}-{r}-list"),
                path(f"{g}/<str:gid>/{r}/<str:rid>", ResourceView.as_view(**kwargs), name=f"{g}-{r}-detail"),
                path(
                    f"{g}/<str:gid>/{r}/<str:rid>/versions",
                    VersionCollectionView.as_view(**kwargs),
                    name=f"{g}-{r}-versions",
                ),
                path(
                    f"{g}/<str:gid>/{r}/<str:rid>/versions/<str:vid>",
                    VersionView.as_view(**kwargs),
                    name=f"{g}-{r}-version",
                ),
            ]
    return patterns


urlpatterns = build_urlpatterns()
