"""Views of the 1.0 binding at `/registry`: the registry root and its fixed APIs (export, model, capabilities)
and the discovery document; the entities' views are in entity_views.py.

Thin: reads render rows selected by `reads.py`; writes translate the 1.0 body into the stored shape
(`writes.py`) and call the registry's services, so validation, the origin guard, epochs, retention and change
events are those of every other way in.
"""

from __future__ import annotations

from django.conf import settings

from ...documents.imports import owners_mode
from ...domain.errors import Problem
from ...domain.model import registry_model
from ...http.rendered_groups import group_parts
from ...http.requests import flag
from ...http.views import json_response
from ...http.whole_registry import whole_registry_answer
from ...store import selectors
from . import writes
from .base import XRegistryView
from .bodies import json_body
from .capabilities import capabilities, capabilities_offered, model_json, modelsource_json
from .document_view import document_view
from .errors import V1Problem
from .flags import LEVELS, Inline, only_collections
from .mapping import ordered_mappings
from .reads import export_chunks, registry_json, render_group


def inline_levels(inline: Inline) -> int:
    """How many levels below the registry `inline` asks for (groups, resources, versions), 0 for none."""
    return max(
        [
            1 + inline.wants(gm.v1_plural, rm.v1_plural) + inline.wants(gm.v1_plural, rm.v1_plural, "versions")
            for gm in ordered_mappings()
            if inline.wants(gm.v1_plural)
            for rm in gm.resources
        ]
        or [0]
    )


class RootView(XRegistryView):
    flags = LEVELS["root"]
    takes_collections = True

    def get(self, request):
        inline = Inline(request)

        def render():
            body = registry_json(self.base_url(), inline, doc=flag(request, "doc"), scope=self.read_scope())
            body = document_view(body, self.base_url()) if flag(request, "doc") else body
            return only_collections(request, body, [gm.v1_plural for gm in ordered_mappings()])

        levels = inline_levels(inline)
        if levels:  # rendered in memory: refused above REGISTRY_MAX_INLINE_ENTITIES
            selectors.check_whole_registry(self.read_scope(), self.collection_urls(), levels)
        if not (inline.any or flag(request, "doc")):
            # the registry's own attributes and its groups' counts change only with its state (a group added or
            # removed moves it): kept under that row, one primary-key read instead of the change marker's count
            state = selectors.registry_state()
            marker = f"state:{state.epoch}:{state.modified_on.isoformat()}"
            return whole_registry_answer(request, self.read_scope(), ("xr10", "root"), render, marker=marker)
        return whole_registry_answer(request, self.read_scope(), ("xr10", "root"), render)

    def post(self, request):
        """`POST /registry/`: a 1.0 document (its groups, as `xr import` sends it), all or nothing; `?owners=drop`
        leaves the groups' owners out; `?force=true` imports references that name nothing as written
        (registry/documents/imports.py)."""
        try:
            owners = owners_mode(request.GET.get("owners"))
        except Problem as problem:
            raise V1Problem("bad_flag", problem.detail, args={"flag": "owners"})
        doc = json_body(request)
        writes.import_v10(self.context(), doc, owners=owners, force=flag(request, "force"))
        # core/http.md `POST /`: the groups processed, by group type, and nothing else (`xr` reads every member of
        # the answer as a map of groups)
        base, inline = self.base_url(), Inline(request)
        out = {}
        for gm in ordered_mappings():
            gids = list(doc.get(gm.v1_plural) or {}) if isinstance(doc.get(gm.v1_plural), dict) else []
            if gids:
                groups = selectors.iter_groups(registry_model[gm.plural], inline=False, ids=gids)
                out[gm.v1_plural] = {g.gid: render_group(base, gm, g, inline) for g in groups}
        return json_response(out)

    def put(self, request):
        body = json_body(request)
        writes.refuse_registry_changes(body)
        return json_response(registry_json(self.base_url(), Inline(request)))


STREAM_ABOVE = 20_000  # entities: a larger export is streamed, its worker's memory bounded by a group's part


class ExportView(XRegistryView):
    flags = LEVELS["export"]

    def get(self, request):
        # Streamed group by group, each group's part kept until the group changes (registry/http/rendered_groups.py),
        # the whole kept under the change marker when it fits REGISTRY_RENDERED_ANSWER_BYTES (a small one, up to
        # STREAM_ABOVE entities, is answered whole, with its length); refused above REGISTRY_MAX_INLINE_ENTITIES
        # (the paged collections named instead). A comment, not a docstring: the OpenAPI description would show it.
        # `?doc&inline=*,capabilities,modelsource`; an `?inline` given "MUST override the default value" (core/http.md
        # "GET /export"): rendered whole, as `GET /registry/?doc&inline=...`
        scope = self.read_scope()
        if "inline" in request.GET:
            base, inline = self.base_url(), Inline(request)
            if inline_levels(inline):  # rendered in memory: refused above REGISTRY_MAX_INLINE_ENTITIES
                selectors.check_whole_registry(scope, self.collection_urls(), inline_levels(inline))
            return whole_registry_answer(
                request,
                scope,
                ("xr10", "export"),
                lambda: document_view(registry_json(base, inline, doc=True, scope=scope), base),
            )

        def render():
            count = selectors.check_whole_registry(scope, self.collection_urls())
            chunks = export_chunks(self.base_url(), group_parts, scope)
            return b"".join(chunks) if count <= STREAM_ABOVE else chunks  # small: whole, with its length

        return whole_registry_answer(request, scope, ("xr10", "export"), render)


class ModelView(XRegistryView):
    flags = LEVELS["fixed"]

    def get(self, request):
        return json_response(model_json())

    def put(self, request):
        raise V1Problem(
            "model_error",
            "the model of this registry is fixed (the CloudEvents registry model)",
            subject="/model",
            args={"error_detail": "the model of this registry is fixed"},
        )

    def post(self, request, *args, **kwargs):  # its own function, so that OpenAPI describes it apart
        return self.put(request, *args, **kwargs)


class ModelSourceView(ModelView):
    def get(self, request):
        return json_response(modelsource_json())


class CapabilitiesView(XRegistryView):
    flags = LEVELS["fixed"]

    def get(self, request):
        return json_response(capabilities())

    def put(self, request):
        body = json_body(request)
        writes.refuse_capability_changes(body, capabilities(), partial=request.method == "PATCH")
        return json_response(capabilities())


class CapabilitiesOfferedView(XRegistryView):
    flags = LEVELS["fixed"]

    def get(self, request):
        return json_response(capabilities_offered())


class DiscoveryView(XRegistryView):
    """`GET /.well-known/xregistry`: where the 1.0 binding is and which spec versions this server serves."""

    def get(self, request):
        root = self.base_url()
        return json_response(
            {
                "xregistry": [{"url": root + "/", "specversions": ["1.0-rc4"]}],
                "registries": [
                    {"url": root + "/", "specversion": "1.0-rc4", "binding": "xregistry-1.0"},
                    {  # at `/`, or at `/v0.5/` when 1.0 is at the root (REGISTRY_ROOT_BINDING)
                        "url": request.build_absolute_uri(settings.REGISTRY_CORE_PATH),
                        "specversion": "0.5-wip",
                        "binding": "cloudevents-registry-0.5",
                    },
                ],
            }
        )
