"""Schemas by id, and the schema types served."""

from __future__ import annotations

from django.http import HttpResponse

from .. import selectors
from ..schema_types import TYPES
from . import render
from .base import ConfluentView, answer, flag, page


class SchemaByIdView(ConfluentView):
    def get(self, request, schema_id):
        """The schema of an id (`?format=serialized` for PROTOBUF descriptors; `?subject` is accepted: ids are
        global here)."""
        found = self.readable_schema(schema_id)
        return answer(render.schema(found, request.GET.get("format")))


class SchemaByGuidView(ConfluentView):
    def get(self, request, guid):
        """The schema of a GUID (what a message framed with a GUID names: the clients' `get_schema_by_guid`), with
        its id; 40403 for a GUID no subject the caller may read has."""
        found = self.readable_schema_by_guid(guid)
        return answer(render.schema(found, request.GET.get("format"), with_id=True))


class SchemaTextByIdView(ConfluentView):
    def get(self, request, schema_id):
        found = self.readable_schema(schema_id)
        text = render.formatted(found.schema_type, found.schema, found.references, request.GET.get("format"))
        return HttpResponse(text.encode("utf-8", "replace"), content_type="application/vnd.schemaregistry.v1+json")


class SchemaSubjectsView(ConfluentView):
    def get(self, request, schema_id):
        found = self.readable_schema(schema_id)
        pairs = self.readable_pairs(
            selectors.versions_of_id(found, deleted=flag(request, "deleted"), subject=request.GET.get("subject"))
        )
        return answer(page(sorted({pair["subject"] for pair in pairs}), request))


class SchemaVersionsView(ConfluentView):
    def get(self, request, schema_id):
        found = self.readable_schema(schema_id)
        pairs = self.readable_pairs(
            selectors.versions_of_id(found, deleted=flag(request, "deleted"), subject=request.GET.get("subject"))
        )
        return answer(page(pairs, request))


class SchemaTypesView(ConfluentView):
    def get(self, request):
        return answer(list(TYPES))
