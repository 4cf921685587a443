"""What a binding declares, and all it declares: the kernel (this package) reads the declaration, the binding's
views translate names and shapes.

A binding names its header prefix (metadata headers, the expected epoch's header, the headers a conditional
request's tag covers), whether a body without a media type is JSON, the challenge of a 401, and how a problem is
written in its words (`render_problem`). Body rules, write semantics and permissions are the kernel's and the
services', the same for every binding.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse

from ..domain.errors import Problem


@dataclass(frozen=True)
class Binding:
    """name: how the binding is called in writes' contexts (`WriteContext.binding`) and change events.

    header_prefix: `Registry` (0.5-wip) or `xRegistry` (1.0): `PREFIX-NAME` headers carry a document's metadata,
        `PREFIX-epoch` an expected epoch; a read's tag covers every `PREFIX-*` header it answers with. None for
        bindings with headers of their own names (the older bindings, Confluent).
    percent_encoded_headers: metadata header values are percent-encoded UTF-8 (xRegistry 1.0), not raw UTF-8.
    bare_body_is_json: a body sent without `Content-Type` is read as JSON (the `xr` CLI sends none; Django's
        development server reports a missing type as `text/plain`, which then counts as none).
    json_media_types: media types read as JSON besides `application/json` and `*/*+json` (Confluent's clients may
        send `application/octet-stream`).
    render_problem: writes a Problem as this binding's error document.
    challenge: the `WWW-Authenticate` of this binding's 401 answers.
    check_flags: refuses a query flag that the operation does not take, in the binding's words (it is given the
        request and the flags the view declares for its method: `RegistryView.flags`); None: the kernel's 400
        naming the unknown flags and the allowed ones (registry/http/requests.py).
    empty_header_removes: an empty `PREFIX-NAME` header removes the attribute (0.5-wip), not sets it to "" (1.0).
    headers_alone: a document write without a body changes only the metadata its headers give, and a body beside
        the resource's URI is refused (0.5-wip); otherwise the body is the document (1.0;
        registry/http/requests.header_input).
    on_unless_false: the boolean flags this binding reads as on unless their value is `false` (any case: 1.0's
        `?doc`, `?collections`, `?binary`, where "0" and "no" are on); any other reads as `requests.flag` says.
    """

    name: str
    render_problem: Callable[[Problem, HttpRequest], HttpResponse]
    header_prefix: str | None = None
    percent_encoded_headers: bool = False
    bare_body_is_json: bool = False
    json_media_types: tuple[str, ...] = ()
    challenge: str = 'Token realm="registry"'
    check_flags: Callable[[HttpRequest, frozenset[str]], None] | None = None
    empty_header_removes: bool = False
    headers_alone: bool = False
    on_unless_false: frozenset[str] = frozenset()

    @property
    def epoch_header(self) -> str | None:
        return f"{self.header_prefix}-epoch" if self.header_prefix else None

    def metadata_header(self, name: str) -> bool:
        """Whether a response header carries entity metadata in this binding (and so belongs in a read's tag)."""
        return self.header_prefix is not None and name.lower().startswith(self.header_prefix.lower() + "-")


def binding_of(request) -> Binding | None:
    """The binding a request came through (set by the kernel's base view), None before a view took it."""
    return getattr(request, "binding", None)


# where each binding is served (URL path prefix -> binding), registered by the URL configuration
_mounts: dict[str, Binding] = {}


def mount(prefix: str, binding: Binding) -> None:
    """Record that `binding` answers the paths under `prefix` ("/" for the host root, "/registry/" ...)."""
    _mounts[prefix if prefix.endswith("/") else prefix + "/"] = binding


def binding_for_path(path: str) -> Binding | None:
    """The binding mounted at the longest prefix of `path` (for answers no view gave: 404, 500)."""
    path = path if path.endswith("/") else path + "/"
    best = max((p for p in _mounts if path.startswith(p)), key=len, default=None)
    return _mounts[best] if best is not None else None
