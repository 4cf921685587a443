"""Root URL configuration: admin, API docs, and the registry bindings (docs/api-contract.md section 1).

Each binding is mounted at its path and recorded with the kernel (`registry.http.binding.mount`), so that answers
no view gives (400, 404, 500) are written in the words of the binding the request went to. `REGISTRY_ROOT_BINDING`
chooses which binding answers at the host root: the 0.5-wip core binding (default; xRegistry 1.0 at /registry/)
or xRegistry 1.0 (the 0.5-wip binding at /v0.5/).
"""

from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from asyncapi import admin_views as asyncapi_admin_views
from catalog.api import urls as catalog_urls
from confluent.api.binding import CONFLUENT
from registry import api_docs
from registry.audit_views import AuditView
from registry.bindings.older.messagecatalog import MESSAGE_CATALOG
from registry.bindings.older.schemaregistry import SCHEMA_REGISTRY
from registry.bindings.v05.binding import CORE
from registry.bindings.v10 import views as xr10_views
from registry.bindings.v10.base import XREGISTRY
from registry.governance import map_section as admin_map
from registry.governance import pages as admin_views
from registry.governance import search as admin_search
from registry.governance.discovery import discover_admin
from registry.http.binding import mount
from registry.http.kept_resolutions import KeptResolutions

CORE_PATH = settings.REGISTRY_CORE_PATH.lstrip("/")  # "" or "v0.5/"
XR10_PATH = settings.REGISTRY_XR10_PATH.lstrip("/")  # "registry/" or ""

discover_admin()  # every app's admin.py (INSTALLED_APPS loads the admin without them: start-up time)
mount(settings.REGISTRY_CORE_PATH, CORE)
mount(settings.REGISTRY_XR10_PATH, XREGISTRY)
for older in (SCHEMA_REGISTRY, MESSAGE_CATALOG):
    mount(f"/{older.api_base}/", older.declaration())
mount("/confluent/", CONFLUENT)  # docs/confluent.md: Confluent's error documents, also for 404 and 500
for own in ("/subscriptions/", "/sync/", "/api/", "/admin/", "/.well-known/", "/audit/"):
    mount(own, CORE)  # APIs of their own at the root whatever binding answers there: the project's problem documents

urlpatterns = [
    path("admin/registry/import/", admin.site.admin_view(admin_views.import_view), name="registry-admin-import"),
    path("admin/registry/export/", admin.site.admin_view(admin_views.export_view), name="registry-admin-export"),
    path("admin/registry/search/", admin.site.admin_view(admin_search.search_view), name="registry-admin-search"),
    path("admin/registry/map/", admin.site.admin_view(admin_map.map_view), name="registry-admin-map"),
    path(
        "admin/asyncapi/import/", admin.site.admin_view(asyncapi_admin_views.import_view), name="asyncapi-admin-import"
    ),
    path("admin/", admin.site.urls),
    path(".well-known/xregistry", xr10_views.DiscoveryView.as_view(), name="xregistry-discovery"),
    path("audit", AuditView.as_view(), name="audit"),  # docs/teams.md
    path("confluent/", include("confluent.api.urls")),  # docs/confluent.md
    path("api/schema/", SpectacularAPIView.as_view(), name="openapi-schema"),
    path("api/docs/", api_docs.DocsView.as_view(url_name="openapi-schema"), name="openapi-docs"),
    path("", include("subscriptions.api.urls")),
    path("", include("registry.bindings.older.urls")),
    path("", include("sync.api.urls")),
    path(XR10_PATH, include("catalog.api.v10_validation")),
    path(XR10_PATH, include("asyncapi.api.urls")),  # before the 1.0 binding's routes, which would take its paths
    path(CORE_PATH, include(catalog_urls.core_urlpatterns)),
]
if XR10_PATH:  # `/registry` without its slash is the 1.0 root too (documented as /registry/)
    urlpatterns.append(path(XR10_PATH.rstrip("/"), xr10_views.RootView.as_view(schema=None), name="xr10-root-bare"))
# the bindings' routes are generated from the model: the one at the root goes last (after every fixed path)
bindings = [
    path(XR10_PATH, include("registry.bindings.v10.urls")),
    path(CORE_PATH, include("registry.bindings.v05.urls")),
]
urlpatterns += bindings if CORE_PATH == "" else bindings[::-1]
# the same routes as one include whose resolutions are kept per path (registry/http/kept_resolutions.py)
urlpatterns = [KeptResolutions(urlpatterns)]

handler400 = "registry.http.handlers.bad_request_view"
handler404 = "registry.http.handlers.not_found_view"
handler500 = "registry.http.handlers.server_error_view"
