"""Schemas by id, and the schema types served."""

from __future__ import annotations

from django.http import HttpResponse

from registry.http.requests import declared_flags

from .. import selectors
from ..schema_types import TYPES
from . import render
from .base import ConfluentView, answer, flag, page, query
from .binding import MEDIA_TYPE


class SchemaByIdView(ConfluentView):
    flags = declared_flags(get="format subject")

    def get(self, request, schema_id):
        """The schema of an id (`?format=serialized` for PROTOBUF descriptors; `?subject` is accepted: ids are
        global here)."""
        found = self.readable_schema(schema_id)
        return answer(render.schema(found, query(request, "format")))


class SchemaByGuidView(ConfluentView):
    flags = declared_flags(get="format")

    def get(self, request, guid):
        """The schema of a GUID (what a message framed with a GUID names: the clients' `get_schema_by_guid`), with
        its id; 40403 for a GUID no subject the caller may read has."""
        found = self.readable_schema_by_guid(guid)
        return answer(render.schema(found, query(request, "format"), with_id=True))


class SchemaTextByIdView(ConfluentView):
    flags = declared_flags(get="format")

    def get(self, request, schema_id):
        found = self.readable_schema(schema_id)
        text = render.formatted(found.schema_type, found.schema, found.references, query(request, "format"))
        return HttpResponse(text.encode("utf-8", "replace"), content_type=MEDIA_TYPE)


class SchemaVersionsView(ConfluentView):
    flags = declared_flags(get="deleted subject offset limit")

    def pairs(self, request, schema_id) -> list[dict]:
        """The (subject, version) pairs of the id in subjects the caller may read (`?deleted`, `?subject`)."""
        found = self.readable_schema(schema_id)
        deleted, subject = flag(request, "deleted"), query(request, "subject")
        return self.readable_pairs(selectors.versions_of_id(found, deleted=deleted, subject=subject))

    def get(self, request, schema_id):
        return answer(page(self.pairs(request, schema_id), request))


class SchemaSubjectsView(SchemaVersionsView):
    def get(self, request, schema_id):
        return answer(page(sorted({pair["subject"] for pair in self.pairs(request, schema_id)}), request))


class SchemaTypesView(ConfluentView):
    def get(self, request):
        return answer(list(TYPES))
