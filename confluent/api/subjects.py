"""Subjects and their versions: list, register, look up, read, delete, referenced-by."""

from __future__ import annotations

from django.http import HttpResponse

from registry.http.requests import declared_flags, json_body

from .. import selectors, services
from ..errors import SCHEMA_NOT_FOUND, ConfluentError, subject_not_found
from ..models import SchemaId
from ..numbering import ensure_numbered
from ..schema_types import prepare
from ..subjects import context_name, parse
from . import render
from .base import ConfluentView, answer, flag, page, queries, query
from .binding import MEDIA_TYPE
from .inputs import registration


class SubjectsView(ConfluentView):
    flags = declared_flags(get="subjectPrefix deleted deleted_only offset limit")

    def get(self, request):
        """Every subject (`?subjectPrefix`, `?deleted`, `?deleted_only`, `?offset`, `?limit`)."""
        prefix = query(request, "subjectPrefix") or ""
        if prefix in (":*:", "*"):
            prefix = ""
        names = selectors.subject_names(
            prefix=prefix, deleted=flag(request, "deleted"), deleted_only=flag(request, "deleted_only")
        )
        return answer(page(self.readable_subjects(names), request))


class SubjectVersionsView(ConfluentView):
    flags = declared_flags(get="deleted deleted_only offset limit", post="normalize")

    def get(self, request, subject):
        """The subject's version numbers (`?deleted`, `?deleted_only`)."""
        found = parse(subject)
        deleted, deleted_only = flag(request, "deleted"), flag(request, "deleted_only")
        return answer(page(selectors.version_numbers(found, deleted=deleted, deleted_only=deleted_only), request))

    def post(self, request, subject):
        """Register a schema under the subject: its id (and version); the same content again answers the same."""
        found = parse(subject)
        flag(request, "normalize")
        row = services.register(ctx=self.context(), subject=found, data=registration(json_body(request)))
        return answer(render.registered(row))


class SubjectView(ConfluentView):
    post_reads = read_only_check = True  # a lookup only reads: as public as a read
    flags = declared_flags(post="deleted normalize format", delete="permanent")

    def post(self, request, subject):
        """Look a schema up in the subject: its subject, version, id and schema; 40403 when it is not there."""
        found = parse(subject)
        deleted = flag(request, "deleted")
        flag(request, "normalize")
        inp = services.checked_contracts(registration(json_body(request)))
        resource = selectors.find_resource(found)
        if resource is None:
            raise subject_not_found(found.name)
        ensure_numbered(resource)
        references = services.resolve_references(inp.references, found)
        prepared = prepare(inp.schema_type, inp.schema, references)
        # as sent, then as a registration would store it (merged with the latest version's metadata and rule set and
        # the config's defaults and overrides): Confluent's lookUpSchemaUnderSubject
        latest = selectors.latest_live(resource)
        merged = services.contracts(inp, prepared, selectors.config_in_scope(found, resource), latest, merge=True)
        row = None
        for key in dict.fromkeys([prepared.key_with(inp.metadata, inp.rule_set), *merged.keys]):
            row = selectors.with_content(resource, key, deleted=deleted, newest=True)
            if row is not None:
                break
        if row is None:
            if not selectors.has_versions(resource, deleted=deleted):  # every version soft-deleted
                raise subject_not_found(found.name)
            raise ConfluentError(SCHEMA_NOT_FOUND, "Schema not found")
        return answer(render.subject_version(row, found.name, query(request, "format")))

    def delete(self, request, subject):
        """Soft-delete the subject's versions, or remove the subject (`?permanent=true`, after a soft delete)."""
        found = parse(subject)
        numbers = services.delete_subject(ctx=self.context(), subject=found, permanent=flag(request, "permanent"))
        return answer(numbers)


class SubjectMetadataView(ConfluentView):
    flags = declared_flags(get="key value deleted format", post="deleted normalize format", delete="permanent")

    def get(self, request, subject):
        """The newest version whose metadata holds the properties `?key=K&value=V` (repeated, paired in order;
        `?deleted=true`: soft-deleted versions too): 40401 without the subject, 40403 without such a version."""
        found = parse(subject)
        deleted = flag(request, "deleted")
        keys, values = queries(request, "key"), queries(request, "value")
        wanted = dict(zip(keys, values, strict=False))  # as Confluent: pairs up to the shorter list
        resource = selectors.find_resource(found)
        if resource is None:
            raise subject_not_found(found.name)
        ensure_numbered(resource)
        row = selectors.latest_with_metadata(resource, wanted, deleted=deleted)
        if row is None:
            if not selectors.has_versions(resource, deleted=deleted):
                raise subject_not_found(found.name)
            raise ConfluentError(SCHEMA_NOT_FOUND, "Schema not found")
        _resource, row = selectors.one_version(found, str(row.number), deleted=True)  # with its document
        return answer(render.subject_version(row, found.name, query(request, "format")))

    # a subject whose name ends in `/metadata` (the Protobuf serializers name subjects after file paths): its lookup and
    # delete are the subject's
    post_reads = read_only_check = True

    def post(self, request, subject):
        return SubjectView.post(self, request, f"{subject}/metadata")

    def delete(self, request, subject):
        return SubjectView.delete(self, request, f"{subject}/metadata")


class VersionView(ConfluentView):
    flags = declared_flags(get="deleted format", delete="permanent")

    def get(self, request, subject, version):
        """One version (`latest` or -1: the registry's latest among the live ones; `?deleted=true` reaches soft-deleted ones)."""
        found = parse(subject)
        _resource, row = selectors.one_version(found, version, deleted=flag(request, "deleted"))
        return answer(render.subject_version(row, found.name, query(request, "format")))

    def delete(self, request, subject, version):
        found = parse(subject)
        number = services.delete_subject_version(
            ctx=self.context(), subject=found, version=version, permanent=flag(request, "permanent")
        )
        return answer(number)


class VersionSchemaView(ConfluentView):
    flags = declared_flags(get="deleted format")

    def get(self, request, subject, version):
        """The schema text alone."""
        found = parse(subject)
        _resource, row = selectors.one_version(found, version, deleted=flag(request, "deleted"))
        text = render.formatted(
            row.schema_id.schema_type, render.schema_text(row), row.references, query(request, "format")
        )
        return HttpResponse(text.encode("utf-8", "replace"), content_type=MEDIA_TYPE)


class ReferencedByView(ConfluentView):
    flags = declared_flags(get="offset limit")

    def get(self, request, subject, version):
        """The ids of the schemas that reference this version."""
        found = parse(subject)
        _resource, row = selectors.one_version(found, version, deleted=True)
        ids = selectors.referenced_by(found.name, row.number)
        if self.hidden_groups():  # those some subject the caller may read has
            ids = [n for n in ids if self.readable_pairs(selectors.versions_of_id(SchemaId(pk=n), deleted=True))]
        return answer(page(ids, request))


class ContextsView(ConfluentView):
    flags = declared_flags(get="offset limit")

    def get(self, request):
        hidden = {context_name(gid) for gid in self.hidden_groups()}
        return answer(page([name for name in selectors.context_names() if name not in hidden], request))
