"""Routes of the older bindings (`urlpatterns`): the Schema Registry API at `/schemaregistry/...` and the Message
Catalog API at `/messagecatalog/...` (docs/api-contract.md sections 1 and 8). Version segments are matched as strings
so that a non-integer answers with a problem document naming it; config/urls.py mounts them at the host root."""

from django.urls import path

from . import messagecatalog as mc
from . import openapi
from . import schemaregistry as sr

SR = "schemaregistry/schemagroups"
MC = "messagecatalog"

urlpatterns = [
    path(SR, sr.SchemaGroupsView.as_view(), name="schemaregistry-groups"),
    path("schemaregistry/schema", sr.SchemaLookupView.as_view(), name="schemaregistry-lookup"),
    path(f"{SR}/<str:gid>", sr.SchemaGroupView.as_view(), name="schemaregistry-group"),
    path(f"{SR}/<str:gid>/schemas", sr.SchemasView.as_view(), name="schemaregistry-schemas"),
    path(f"{SR}/<str:gid>/schemas/<str:rid>", sr.SchemaView.as_view(), name="schemaregistry-schema"),
    path(f"{SR}/<str:gid>/schemas/<str:rid>/versions", sr.SchemaVersionsView.as_view(), name="schemaregistry-versions"),
    path(
        f"{SR}/<str:gid>/schemas/<str:rid>/versions/<str:version>",
        sr.SchemaVersionView.as_view(),
        name="schemaregistry-version",
    ),
    path(MC, mc.MessageCatalogView.as_view(), name="messagecatalog-groups"),
    path(f"{MC}/{mc.LOOKUP_SEGMENT}", mc.MessageDefinitionLookupView.as_view(), name="messagecatalog-lookup"),
    path(f"{MC}/<str:gid>", mc.MessageGroupView.as_view(), name="messagecatalog-group"),
    path(f"{MC}/<str:gid>/messagedefinitions", mc.MessageDefinitionsView.as_view(), name="messagecatalog-definitions"),
    path(
        f"{MC}/<str:gid>/messagedefinitions/<str:rid>",
        mc.MessageDefinitionView.as_view(),
        name="messagecatalog-definition",
    ),
    path(
        f"{MC}/<str:gid>/messagedefinitions/<str:rid>/versions",
        mc.MessageDefinitionVersionsView.as_view(),
        name="messagecatalog-versions",
    ),
    path(
        f"{MC}/<str:gid>/messagedefinitions/<str:rid>/versions/<str:version>",
        mc.MessageDefinitionVersionView.as_view(),
        name="messagecatalog-version",
    ),
]

openapi.declare()
