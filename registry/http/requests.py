"""Reading a request, the same for every binding: query flags, the expected epoch, the body within its size limit,
strict JSON (no NaN, duplicate keys, NUL characters, lone surrogates, nesting past the limit), media types, and
a document with its metadata in headers (`header_input`).

The binding a request came through (`binding.binding_of`) decides only what a binding declares: its header
prefix and whether a body without a media type is JSON.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings

from ..domain.attributes import unstorable
from ..domain.errors import Problem
from ..domain.json_text import TooDeep, strict_loads
from ..services.epochs import parse_epoch
from ..services.inputs import UNSET, VersionInput
from .binding import Binding, binding_of
from .headers import prefixed_headers

# Django's development server reports a request without Content-Type as `text/plain` (gunicorn reports none)
DEVELOPMENT_SERVER_STAND_IN = "text/plain"


def check_flags(request, allowed: set[str] | frozenset[str]) -> None:
    """400 for any query parameter this operation does not know."""
    unknown = sorted(set(request.GET.keys()) - allowed)
    if unknown:
        raise Problem(
            "unknown-flag",
            f"unknown query parameter(s): {', '.join(unknown)}; allowed here: {', '.join(sorted(allowed)) or 'none'}",
        )


def declared_flags(**methods: str) -> dict[str, frozenset[str]]:
    """A view's `flags` (registry/http/views.py): per method, the flags it takes, named in one string ("" for none)."""
    return {method: frozenset(names.split()) for method, names in methods.items()}


def flag(request, name: str) -> bool:
    """A boolean flag such as `?inline`, `?meta` or `?force`: present is on, unless its value is `false`, `0` or `no`
    (any case), or only `false` for the flags the binding declares so (`Binding.on_unless_false`)."""
    if name not in request.GET:
        return False
    binding = binding_of(request)
    if binding is not None and name in binding.on_unless_false:
        return request.GET.get(name, "").lower() != "false"
    return request.GET.get(name, "").strip().lower() not in ("false", "0", "no")


def query_epoch(request) -> int | None:
    """The expected epoch from `?epoch=N`, the binding's `PREFIX-epoch` header or the epoch an `If-Match` matched
    (conditional.check_write_preconditions pins it); those given must agree."""
    from_query = parse_epoch(request.GET.get("epoch"), "?epoch")
    binding = binding_of(request)
    header = binding.epoch_header if binding is not None else None
    from_header = parse_epoch(request.headers.get(header) or None, header) if header else None
    if from_query is not None and from_header is not None and from_query != from_header:
        raise Problem("bad-request", f"?epoch={from_query} and {header}: {from_header} disagree")
    given = from_query if from_query is not None else from_header
    return given if given is not None else getattr(request, "pinned_epoch", None)


def expected_epoch(request, body_epoch=None, where: str = "the body") -> int | None:
    """The epoch a write expects, from every place a binding lets a client say it: `?epoch`, the `PREFIX-epoch`
    header, `If-Match`, and the body's `epoch` member (`body_epoch`); those given must agree (400 otherwise)."""
    given = query_epoch(request)
    body = parse_epoch(body_epoch, f"epoch in {where}") if body_epoch is not None else None
    if given is not None and body is not None and given != body:
        raise Problem("bad-request", f"epoch {body} in {where} and the expected epoch {given} of the request disagree")
    return body if body is not None else given


def body_bytes(request, *, limit: int | None = None, setting: str = "REGISTRY_MAX_BODY_BYTES") -> bytes:
    """The raw body, refused with 413 above `limit` (default: the setting REGISTRY_MAX_BODY_BYTES).

    A chunked body (no Content-Length) is read when the server says the stream ends with it (gunicorn sets
    `wsgi.input_terminated`); a server that cannot say so (Django's development server) would give it as empty,
    so such a request is answered 411 instead of being taken for an empty body."""
    limit = getattr(settings, setting) if limit is None else limit
    meta = request.META
    declared = meta.get("CONTENT_LENGTH")
    if declared and declared.isdigit() and int(declared) > limit:
        raise Problem("too-large", f"the body has {declared} bytes; the limit is {limit} ({setting})")
    if not declared and "chunked" in meta.get("HTTP_TRANSFER_ENCODING", "").lower():
        if not meta.get("wsgi.input_terminated"):
            raise Problem("length-required", "this server reads a body only with a Content-Length; send one")
        body = meta["wsgi.input"].read(limit + 1)
    else:
        body = request.body
    if len(body) > limit:
        raise Problem("too-large", f"the body has more than {limit} bytes; the limit is {limit} ({setting})")
    return body


def loads_strict(raw: bytes, what: str = "body"):
    """Strict JSON of untrusted bytes: UTF-8, no NaN/Infinity/1e999, no duplicate keys, nesting within
    registry.domain.limits.MAX_DOCUMENT_DEPTH, no NUL character or lone surrogate in any key or string. A 400 names the first fault."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Problem("malformed-json", f"the {what} is not UTF-8")
    try:
        value = strict_loads(text)
    except TooDeep as exc:  # registry.domain.limits.MAX_DOCUMENT_DEPTH, the limit of every door
        raise Problem("malformed-json", f"the {what} {exc}")
    except RecursionError:
        raise Problem("malformed-json", f"the {what} is nested too deeply")
    except ValueError as exc:
        raise Problem("malformed-json", f"the {what} is not valid JSON: {exc}")
    problem = unstorable(value)
    if problem:
        raise Problem("malformed-json", f"the {what}: {problem}")
    return value


def media_type(request) -> str:
    """The request's media type without parameters, lower case ("" when none was sent)."""
    return request.META.get("CONTENT_TYPE", "").split(";")[0].strip().lower()


def bare_body_as_json(request) -> bool:
    """The binding reads a body without a media type (or the development server's stand-in for none) as JSON."""
    binding = binding_of(request)
    return bool(binding and binding.bare_body_is_json) and media_type(request) in ("", DEVELOPMENT_SERVER_STAND_IN)


def check_json_media_type(request, extra: tuple[str, ...] = ()) -> None:
    base = media_type(request)
    if bare_body_as_json(request):
        return
    if not base:  # a body without a media type is not taken for JSON (docs/api-contract.md section 2: parsed strictly)
        raise Problem("unsupported-media-type", "a JSON body needs Content-Type: application/json")
    binding = binding_of(request)
    extra = (*extra, *(binding.json_media_types if binding is not None else ()))
    if base != "application/json" and not base.endswith("+json") and base not in extra:
        raise Problem("unsupported-media-type", f"expected application/json, not {base}")


def json_body(request, *, required: bool = True, kind: type = dict, what: str = "body"):
    """A strictly parsed JSON body of the given kind (object by default); None when empty and not required."""
    raw = body_bytes(request)
    if not raw.strip():
        if required:
            raise Problem("bad-request", f"a JSON {'object' if kind is dict else 'array'} {what} is required")
        return None
    check_json_media_type(request)
    value = loads_strict(raw, what)
    if kind is not object and not isinstance(value, kind):
        raise Problem("bad-request", f"the {what} must be a JSON {'object' if kind is dict else 'array'}")
    return value


def header_input(
    request, binding: Binding, *, map_name: str, uri_name: str, translate: Callable[[dict], VersionInput]
) -> VersionInput:
    """A document resource's write in every binding that has one: the document in the body, its metadata in the
    `PREFIX-NAME` headers (prefix and encoding as `binding` declares them; registry/http/headers.py), a map in
    `PREFIX-MAPNAME-KEY` headers. `translate` makes the services' input of the headers (lower-case names, the map
    under `map_name`, an empty value None where `binding.empty_header_removes`); `PREFIX-URI_NAME` gives the
    resource's URI instead of a document (empty: none); what a body then is, is `binding.headers_alone`'s."""
    attrs, entries = prefixed_headers(
        request, binding.header_prefix or "", map_name, percent=binding.percent_encoded_headers
    )
    if binding.empty_header_removes:
        attrs = {name: value or None for name, value in attrs.items()}
    uri = attrs.pop(uri_name.lower(), UNSET)
    if entries is not None:
        attrs[map_name] = entries
    inp = translate(attrs)
    if uri is not UNSET:
        inp.resource_uri = uri or None
    if binding.headers_alone:
        raw = body_bytes(request)
        if inp.resource_uri not in (UNSET, None) and raw:
            raise Problem("bad-request", f"{binding.header_prefix}-{uri_name} is given, so the body must be empty")
        # an empty body with metadata headers changes metadata only; an empty body alone erases the content
        alone = not raw and (inp.attributes or inp.resource_uri is not UNSET or inp.version_id or inp.resource_id)
        inp.document, inp.media_type = None if alone else raw, request.META.get("CONTENT_TYPE") or None
    elif uri is UNSET:
        inp.document, inp.media_type = body_bytes(request), request.META.get("CONTENT_TYPE") or None
    return inp
