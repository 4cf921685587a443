"""Root URL configuration: admin, API docs, and the registry bindings (docs/api-contract.md section 1)."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from registry import admin_map, admin_search, admin_views, api_docs
from registry.xr10 import views as xr10_views

urlpatterns = [
    path("admin/registry/import/", admin.site.admin_view(admin_views.import_view), name="registry-admin-import"),
    path("admin/registry/export/", admin.site.admin_view(admin_views.export_view), name="registry-admin-export"),
    path("admin/registry/search/", admin.site.admin_view(admin_search.search_view), name="registry-admin-search"),
    path("admin/registry/map/", admin.site.admin_view(admin_map.map_view), name="registry-admin-map"),
    path("admin/", admin.site.urls),
    path(".well-known/xregistry", xr10_views.DiscoveryView.as_view(), name="xregistry-discovery"),
    path("registry", xr10_views.RootView.as_view(schema=None), name="xr10-root-bare"),  # documented as /registry/
    path("registry/", include("asyncapi.api.urls")),  # before the 1.0 binding's routes, which would take its paths
    path("registry/", include("registry.xr10.urls")),
    path("confluent/", include("confluent.api.urls")),  # docs/confluent.md
    path("api/schema/", SpectacularAPIView.as_view(), name="openapi-schema"),
    path("api/docs/", api_docs.DocsView.as_view(url_name="openapi-schema"), name="openapi-docs"),
    path("", include("subscriptions.api.urls")),
    path("", include("catalog.api.urls")),
    path("", include("sync.api.urls")),
    path("", include("registry.api.urls")),
]

handler404 = "registry.http.problems.not_found_view"
handler500 = "registry.http.problems.server_error_view"
