"""The 0.5-wip core binding's declaration (docs/api-contract.md): `Registry-*` headers, problem documents of the
project's own types (RFC 9457), a JSON body only with a JSON media type; and the base of its views, whose links
start where the binding is mounted (REGISTRY_CORE_PATH: the host root, or /v0.5/ when xRegistry 1.0 is there)."""

from django.conf import settings

from ...http.binding import Binding
from ...http.entity_views import EntityView
from ...http.problems import problem_response
from ...http.requests import flag
from .representations import group_json

CORE = Binding(
    name="cloudevents-registry-0.5",
    render_problem=problem_response,
    header_prefix="Registry",
    empty_header_removes=True,
    headers_alone=True,
)


class CoreView(EntityView):
    binding = CORE
    limits_inline = True  # an answer `?inline` fills is refused above REGISTRY_MAX_INLINE_ENTITIES

    def inline_below(self) -> bool:
        return flag(self.request, "inline")

    def group_json(self, group) -> dict:
        return group_json(self.base, self.gt, group, self.inline_below())

    def base_url(self) -> str:
        return self.request.build_absolute_uri(settings.REGISTRY_CORE_PATH).rstrip("/")
