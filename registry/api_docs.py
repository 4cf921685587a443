"""The OpenAPI document (`/api/schema/`) and its browsable UI (`/api/docs/`), drf-spectacular's views under the
registry's read rule: public unless REGISTRY_PUBLIC_READ=0, then for signed-in users only (settings'
SPECTACULAR_SETTINGS["SERVE_PERMISSIONS"]); and `OPTIONS /api/docs/` answers its Allow header (Swagger UI's view
renders only HTML, so DRF's OPTIONS metadata made it look for a template that does not exist: 500)."""

from django.http import HttpResponse
from drf_spectacular.views import SpectacularSwaggerView


class DocsView(SpectacularSwaggerView):
    def options(self, request, *args, **kwargs):
        response = HttpResponse(status=200)
        response["Allow"] = ", ".join(self.allowed_methods)
        return response
