"""Routes of the older bindings (`urlpatterns`): the Schema Registry API at `/schemaregistry/...` and the Message
Catalog API at `/messagecatalog/...` (docs/api-contract.md sections 1 and 8). Version segments are matched as strings
so that a non-integer answers with a problem document naming it; config/urls.py mounts them at the host root."""

from django.urls import path

from . import messagecatalog as mc
from . import openapi
from . import schemaregistry as sr
from .base import OlderBinding


def routes(names: OlderBinding, views: dict) -> list:
    """One route per level of a binding's `views` ({level: view class}), below its base path."""
    resources = f"{names.groups_base}/<str:gid>/{names.resource_segment}"
    paths = {
        "groups": names.groups_base,
        "lookup": f"{names.api_base}/{names.lookup_segment}",
        "group": f"{names.groups_base}/<str:gid>",
        "resources": resources,
        "resource": f"{resources}/<str:rid>",
        "versions": f"{resources}/<str:rid>/versions",
        "version": f"{resources}/<str:rid>/versions/<str:version>",
    }
    return [path(paths[level], view.as_view(), name=f"{names.api_base}-{level}") for level, view in views.items()]


urlpatterns = [*routes(sr.SCHEMA_REGISTRY, sr.VIEWS), *routes(mc.MESSAGE_CATALOG, mc.VIEWS)]
openapi.declare()
