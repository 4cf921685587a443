"""Reading a request: allowed query flags, size limit, strict JSON bodies and `Registry-*` headers."""

from __future__ import annotations

from django.conf import settings

from ..errors import Problem
from ..json_text import TooDeep, strict_loads


def check_flags(request, allowed: set[str]) -> None:
    """400 for any query parameter this operation does not know."""
    unknown = sorted(set(request.GET.keys()) - allowed)
    if unknown:
        raise Problem(
            "unknown-flag",
            f"unknown query parameter(s): {', '.join(unknown)}; allowed here: {', '.join(sorted(allowed)) or 'none'}",
        )


def flag(request, name: str) -> bool:
    """A boolean flag such as `?inline` or `?meta` (present = on, `false`/`0` = off)."""
    if name not in request.GET:
        return False
    return request.GET.get(name, "").lower() not in ("false", "0", "no")


def parse_epoch(value, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, str):
        if not value.isdigit() or not value.isascii():
            raise Problem("bad-request", f"{where}: epoch must be an unsigned integer, not {value[:40]!r}")
        if len(value.lstrip("0")) > 20:  # epochs are unsigned 64-bit integers
            raise Problem("bad-request", f"{where}: epoch {value[:20]}... is larger than any epoch")
        return int(value)
    return value


def query_epoch(request) -> int | None:
    """The expected epoch from `?epoch=N` or a `Registry-epoch` header (they must agree)."""
    from_query = parse_epoch(request.GET.get("epoch"), "?epoch")
    from_header = parse_epoch(request.headers.get("Registry-epoch") or None, "Registry-epoch")
    if from_query is not None and from_header is not None and from_query != from_header:
        raise Problem("bad-request", f"?epoch={from_query} and Registry-epoch: {from_header} disagree")
    return from_query if from_query is not None else from_header


def body_bytes(request, *, limit: int | None = None, setting: str = "REGISTRY_MAX_BODY_BYTES") -> bytes:
    """The raw body, refused with 413 above `limit` (default: the setting REGISTRY_MAX_BODY_BYTES)."""
    limit = getattr(settings, setting) if limit is None else limit
    declared = request.META.get("CONTENT_LENGTH")
    if declared and declared.isdigit() and int(declared) > limit:
        raise Problem("too-large", f"the body has {declared} bytes; the limit is {limit} ({setting})")
    body = request.body
    if len(body) > limit:
        raise Problem("too-large", f"the body has {len(body)} bytes; the limit is {limit} ({setting})")
    return body


def loads_strict(raw: bytes, what: str = "body"):
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Problem("malformed-json", f"the {what} is not UTF-8")
    try:
        return strict_loads(text)
    except TooDeep as exc:  # registry.limits.MAX_DOCUMENT_DEPTH, the limit of every door
        raise Problem("malformed-json", f"the {what} {exc}")
    except RecursionError:
        raise Problem("malformed-json", f"the {what} is nested too deeply")
    except ValueError as exc:
        raise Problem("malformed-json", f"the {what} is not valid JSON: {exc}")


def _check_json_media_type(request, extra: tuple[str, ...] = ()):
    content_type = request.META.get("CONTENT_TYPE", "")
    base = content_type.split(";")[0].strip().lower()
    if not base:  # a body without a media type is not taken for JSON (docs/api-contract.md section 2: parsed strictly)
        raise Problem("unsupported-media-type", "a JSON body needs Content-Type: application/json")
    if base != "application/json" and not base.endswith("+json") and base not in extra:
        raise Problem("unsupported-media-type", f"expected application/json, not {base}")


def json_body(request, *, required: bool = True, kind: type = dict, what: str = "body"):
    """A strictly parsed JSON body of the given kind (object by default); None when empty and not required."""
    raw = body_bytes(request)
    if not raw.strip():
        if required:
            raise Problem("bad-request", f"a JSON {'object' if kind is dict else 'array'} {what} is required")
        return None
    _check_json_media_type(request)
    value = loads_strict(raw, what)
    if not isinstance(value, kind):
        raise Problem("bad-request", f"the {what} must be a JSON {'object' if kind is dict else 'array'}")
    return value


def prefixed_headers(request, prefix: str, map_name: str) -> tuple[dict[str, str], dict[str, str] | None]:
    """The request's `PREFIX-NAME: value` headers as {name: value}, and its `PREFIX-MAPNAME-KEY: value` headers as
    the map {key: value} (None when there is none): both bindings carry a document's metadata this way. Names and
    keys are lower case, since header names are case-insensitive and arrive re-cased by WSGI ("Owner")."""
    attrs: dict[str, str] = {}
    entries: dict[str, str] | None = None
    head, map_head = f"{prefix}-", f"{map_name}-"
    for header, value in request.headers.items():
        lower = header.lower()
        if not lower.startswith(head):
            continue
        name = lower[len(head) :]
        if name.startswith(map_head):
            entries = entries if entries is not None else {}
            entries[name[len(map_head) :]] = value
        else:
            attrs[name] = value
    return attrs, entries
