"""URL routes of the 1.0 binding under `/registry`, generated from the registered 1.0 names of each type."""

from django.urls import path

from . import entity_views, openapi, views
from .mapping import ordered_mappings

openapi.describe(views, entity_views)


def build_urlpatterns():
    patterns = [
        path("", views.RootView.as_view(), name="xr10-root"),
        path("export", views.ExportView.as_view(), name="xr10-export"),
        path("model", views.ModelView.as_view(), name="xr10-model"),
        path("modelsource", views.ModelSourceView.as_view(), name="xr10-modelsource"),
        path("capabilities", views.CapabilitiesView.as_view(), name="xr10-capabilities"),
        path("capabilitiesoffered", views.CapabilitiesOfferedView.as_view(), name="xr10-capabilitiesoffered"),
    ]
    for gm in ordered_mappings():
        g = gm.v1_plural
        patterns += [
            path(g, entity_views.GroupCollectionView.as_view(v1_group=g), name=f"xr10-{g}"),
            path(f"{g}/<str:gid>", entity_views.GroupView.as_view(v1_group=g), name=f"xr10-{g}-detail"),
        ]
        for rm in gm.resources:
            r = rm.v1_plural
            kw = {"v1_group": g, "v1_resource": r}
            patterns += [
                path(f"{g}/<str:gid>/{r}", entity_views.ResourceCollectionView.as_view(**kw), name=f"xr10-{g}-{r}"),
                path(
                    f"{g}/<str:gid>/{r}/<str:rid>", entity_views.ResourceView.as_view(**kw), name=f"xr10-{g}-{r}-detail"
                ),
                path(
                    f"{g}/<str:gid>/{r}/<str:rid>/meta", entity_views.MetaView.as_view(**kw), name=f"xr10-{g}-{r}-meta"
                ),
                path(
                    f"{g}/<str:gid>/{r}/<str:rid>/versions",
                    entity_views.VersionCollectionView.as_view(**kw),
                    name=f"xr10-{g}-{r}-versions",
                ),
                path(
                    f"{g}/<str:gid>/{r}/<str:rid>/versions/<str:vid>",
                    entity_views.VersionView.as_view(**kw),
                    name=f"xr10-{g}-{r}-version",
                ),
            ]
    return patterns


urlpatterns = build_urlpatterns()
