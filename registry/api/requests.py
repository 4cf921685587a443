"""Reading a request: allowed query flags, size limit, strict JSON bodies and `Registry-*` headers."""

from __future__ import annotations

from django.conf import settings

from ..attributes import V10_NAMES
from ..errors import Problem
from ..json_text import strict_loads
from ..model import ResourceType
from ..services.inputs import UNSET, VersionInput

KNOWN_ATTRIBUTES = {
    name.lower(): name
    for name in (
        "id",
        "name",
        "description",
        "docs",
        "version",
        "epoch",
        "self",
        "createdBy",
        "createdOn",
        "modifiedBy",
        "modifiedOn",
        "format",
        "compatibility",
    )
}
IGNORED_HEADER_ATTRIBUTES = {
    "self",
    "createdBy",
    "createdOn",
    "modifiedBy",
    "modifiedOn",
    "versionsURL",
    "versionsCount",
}


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


def version_input(request, rt: ResourceType) -> VersionInput:
    """Metadata from `Registry-*` headers (empty value = remove) and the document from the body."""
    inp = VersionInput()
    uri_key = rt.uri_attribute.lower()
    headers, tags = prefixed_headers(request, "registry", "tags")
    for name, value in headers.items():
        if name == uri_key:
            inp.resource_uri = value or None
            continue
        canonical = KNOWN_ATTRIBUTES.get(name, name)
        if canonical in IGNORED_HEADER_ATTRIBUTES:
            continue
        if canonical in V10_NAMES or canonical.startswith("labels-"):
            instead = (
                "Registry-tags-KEY"
                if canonical.startswith("labels")
                else (f"Registry-{V10_NAMES[canonical]}" if V10_NAMES[canonical] else None)
            )
            raise Problem(
                "invalid-attribute",
                f"Registry-{name} names an attribute of xRegistry 1.0 (the /registry "
                "binding), not of the 0.5-wip binding" + (f"; here it is {instead}" if instead else ""),
            )
        if canonical == "id":
            inp.resource_id = value or None
        elif canonical == "version":
            inp.version_id = value or None
        elif canonical == "epoch":
            inp.epoch = parse_epoch(value, "Registry-epoch") if value else None
        else:
            inp.attributes[canonical] = value if value != "" else None
    if tags is not None:
        inp.attributes["tags"] = tags
    query = query_epoch(request)
    if query is not None:
        inp.epoch = query
    raw = body_bytes(request)
    if inp.resource_uri not in (UNSET, None) and raw:
        raise Problem("bad-request", f"Registry-{rt.uri_attribute} is given, so the body must be empty")
    metadata_only = not raw and (inp.attributes or inp.resource_uri is not UNSET or inp.version_id or inp.resource_id)
    # an empty body with Registry-* headers changes metadata only; an empty body alone erases the content
    inp.document = None if metadata_only else raw
    inp.media_type = request.META.get("CONTENT_TYPE") or None
    return inp
