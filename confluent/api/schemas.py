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
