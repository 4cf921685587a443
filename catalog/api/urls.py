"""Routes of the older bindings: `/schemaregistry/...` and `/messagecatalog/...`."""
from django.urls import path

from . import legacy
from .openapi import describe

describe()


def routes(binding: legacy.Binding, lookup: str, groups_view=legacy.GroupsView):
    p, r = binding.prefix, binding.resource_segment
    kwargs = {"binding": binding}
    return [
        path(p, groups_view.as_view(**kwargs), name=f"{binding.root}-groups"),
        path(f"{binding.root}/{lookup}", legacy.LookupView.as_view(**kwargs), name=f"{binding.root}-lookup"),
        path(f"{p}/<str:gid>", legacy.GroupView.as_view(**kwargs), name=f"{binding.root}-group"),
        path(f"{p}/<str:gid>/{r}", legacy.ResourcesView.as_view(**kwargs), name=f"{binding.root}-resources"),
        path(f"{p}/<str:gid>/{r}/<str:rid>", legacy.ResourceView.as_view(**kwargs), name=f"{binding.root}-resource"),
        path(f"{p}/<str:gid>/{r}/<str:rid>/versions", legacy.VersionsView.as_view(**kwargs),
             name=f"{binding.root}-versions"),
        path(f"{p}/<str:gid>/{r}/<str:rid>/versions/<int:version>", legacy.VersionView.as_view(**kwargs),
             name=f"{binding.root}-version"),
    ]


urlpatterns = [
    *routes(legacy.SCHEMA_REGISTRY, "schema"),
    *routes(legacy.MESSAGE_CATALOG, "messagedefinition", groups_view=legacy.FeaturesView),
]
