"""The 0.5-wip core binding's declaration (docs/api-contract.md): `Registry-*` headers, problem documents of the
project's own types (RFC 9457), a JSON body only with a JSON media type."""

from ..http.binding import Binding
from ..http.problems import problem_response

CORE = Binding(name="cloudevents-registry-0.5", render_problem=problem_response, header_prefix="Registry")
