"""The registry root: `GET /`, `GET /?model`, and `GET /?inline` streamed group by group."""

from __future__ import annotations

import json

from django.conf import settings

from ...access.read_scope import EVERYTHING, ReadScope
from ...documents.exports import SPEC_VERSION, export_document, stream_json_document
from ...documents.formats import JSON_MEDIA_TYPES, YAML_MEDIA_TYPES, dump_document, is_yaml, parse_document
from ...documents.imports import import_document, owners_mode
from ...documents.precheck import check_size
from ...domain.errors import Problem
from ...domain.json_text import Spliced
from ...domain.model import registry_model
from ...http.rendered_groups import group_parts, joined
from ...http.representation import STORE
from ...http.requests import body_bytes, declared_flags, flag
from ...http.views import JSON_CONTENT_TYPE, json_response
from ...http.whole_registry import whole_registry_answer
from ...store import selectors
from .binding import CoreView
from .representations import group_json


def registry_attributes(base: str) -> dict:
    out = {"id": settings.REGISTRY_ID, "name": settings.REGISTRY_NAME}
    if settings.REGISTRY_DESCRIPTION:
        out["description"] = settings.REGISTRY_DESCRIPTION
    out["specVersion"] = SPEC_VERSION
    out["self"] = base + "/"
    if settings.REGISTRY_DOCS:
        out["docs"] = settings.REGISTRY_DOCS
    return out


def root_json(base: str, scope: ReadScope = EVERYTHING) -> dict:
    out = registry_attributes(base)
    counts = selectors.registry_counts(scope)
    out.update(STORE.collections(base, [(gt.plural, gt.plural) for gt in registry_model.group_types], None, counts))
    return out


def stream_inline(base: str, scope: ReadScope = EVERYTHING):
    """The whole registry (what `scope` reads of it) as one JSON object, written one group at a time (memory bounded
    by a chunk), each group's part kept until the group changes (registry/http/rendered_groups.py)."""
    head = root_json(base, scope)
    head["model"] = registry_model.as_json()
    yield json.dumps(head, ensure_ascii=False)[:-1]
    spliced = Spliced()  # the stored JSON documents written as their text
    for gt in registry_model.group_types:
        yield f", {json.dumps(gt.plural)}: {{"

        def render(group, gt=gt) -> bytes:
            return f"{json.dumps(group.gid)}: {spliced.dumps(group_json(base, gt, group, True, spliced))}".encode()

        yield from joined(group_parts(("inline", base), gt, render, scope=scope))
        yield "}"
    yield "}"


class RootView(CoreView):
    flags = declared_flags(get="model inline", post="owners force")

    def get(self, request):
        base = self.base_url()
        if flag(request, "model"):
            return json_response(registry_model.as_json())
        if flag(request, "inline"):
            return self.whole_registry(request, base)
        return json_response(root_json(base, self.read_scope()))

    def whole_registry(self, request, base: str):
        """`?inline` or the export, kept rendered until the next change (registry/http/whole_registry.py)."""
        accept = request.headers.get("Accept", "")
        if "application/cloudevents-registry+yaml" in accept:
            variant, content_type = "yaml", "application/cloudevents-registry+yaml; charset=utf-8"
        elif "application/cloudevents-registry+json" in accept:
            variant, content_type = "export", "application/cloudevents-registry+json; charset=utf-8"
        else:
            variant, content_type = "inline", JSON_CONTENT_TYPE
        scope = self.read_scope()

        def render():
            selectors.check_whole_registry(scope, [f"{base}/{gt.plural}" for gt in registry_model.group_types])
            if variant == "yaml":  # rendered in memory by the YAML dumper anyway: answered as bytes
                return dump_document(export_document(scope=scope), yaml_format=True).encode("utf-8")
            return stream_json_document(scope, group_parts) if variant == "export" else stream_inline(base, scope)

        return whole_registry_answer(request, scope, ("v05", variant), render, content_type=content_type)

    def post(self, request):
        """Import a registry document (JSON or YAML by media type): all or nothing. `?owners=drop` leaves the groups'
        owners out; `?force=true` imports references that name nothing as written, with warnings
        (registry/documents/imports.py)."""
        owners = owners_mode(request.GET.get("owners"))
        content_type = request.META.get("CONTENT_TYPE", "").split(";")[0].strip().lower()
        if content_type and content_type not in JSON_MEDIA_TYPES + YAML_MEDIA_TYPES:
            raise Problem("unsupported-media-type", f"a registry document is JSON or YAML, not {content_type}")
        raw = body_bytes(request, setting="REGISTRY_MAX_IMPORT_BYTES")
        if not raw.strip():
            raise Problem("bad-request", "the body must be a registry document")
        doc = parse_document(raw, yaml_format=is_yaml(content_type))
        check_size(doc, max_entities=settings.REGISTRY_IMPORT_MAX_ENTITIES)
        report = import_document(self.context(), doc, owners=owners, force=flag(request, "force"))
        return json_response(report.as_json())
