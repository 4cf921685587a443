"""Routes of the Confluent API, mounted at `/confluent` (config/urls.py). Subject names may hold `/` (the
Protobuf serializers name subjects after .proto files), hence `path:` converters, tried longest route first. Any
other path under /confluent is answered by handler404 in Confluent's words (the binding is mounted there)."""

from django.urls import path

from . import associations, dek, openapi, schemas, settings, subjects
from .base import ConfluentView, answer


class RootView(ConfluentView):
    def get(self, request):
        return answer({})


openapi.declare(RootView)


urlpatterns = [
    path("", RootView.as_view()),
    path("subjects", subjects.SubjectsView.as_view()),
    path("subjects/<path:subject>/versions/<str:version>/schema", subjects.VersionSchemaView.as_view()),
    path("subjects/<path:subject>/versions/<str:version>/referencedby", subjects.ReferencedByView.as_view()),
    path("subjects/<path:subject>/versions/<str:version>", subjects.VersionView.as_view()),
    path("subjects/<path:subject>/versions", subjects.SubjectVersionsView.as_view()),
    path("subjects/<path:subject>/metadata", subjects.SubjectMetadataView.as_view()),
    path("subjects/<path:subject>", subjects.SubjectView.as_view()),
    path("schemas/types", schemas.SchemaTypesView.as_view()),
    path("schemas/ids/<str:schema_id>/schema", schemas.SchemaTextByIdView.as_view()),
    path("schemas/ids/<str:schema_id>/subjects", schemas.SchemaSubjectsView.as_view()),
    path("schemas/ids/<str:schema_id>/versions", schemas.SchemaVersionsView.as_view()),
    path("schemas/ids/<str:schema_id>", schemas.SchemaByIdView.as_view()),
    path("schemas/guids/<str:guid>", schemas.SchemaByGuidView.as_view()),
    path("config", settings.ConfigView.as_view()),
    path("config/<path:subject>", settings.ConfigView.as_view()),
    path("mode", settings.GlobalModeView.as_view()),
    path("mode/<path:subject>", settings.ModeView.as_view()),
    path("compatibility/subjects/<path:subject>/versions/<str:version>", settings.CompatibilityView.as_view()),
    path("compatibility/subjects/<path:subject>/versions", settings.CompatibilityView.as_view()),
    path("contexts", subjects.ContextsView.as_view()),
    *associations.urlpatterns,
    *dek.urlpatterns,
]
