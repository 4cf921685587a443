"""URIs and URI-references (RFC 3986) and an endpoint's `definitionGroups` references.

Spec ("Endpoint Registry"): "The `definitionGroups` attribute is an array of URI-references to message
definition groups"; docs/api-contract.md section 4: `#/definitionGroups/ID` and this registry's own URLs must resolve
to an existing definition group. This module only parses: `definition_group_ids` returns the ids of the
local references, the caller checks that they exist. References to other registries are kept as written
and not followed.

A reference is local when it is
- the fragment `#/definitionGroups/ID` (the document format's JSON Pointer form), or
- an absolute URL `<base_url>/definitionGroups/ID` (scheme and host compared case-insensitively, a
  trailing `/` tolerated), or
- an absolute-path or relative reference that resolves against `<base_url>/` to such a URL (with no
  base_url, `/definitionGroups/ID` against the root).
The path segment `definitionGroups` is matched case-insensitively, so the spec's own example spelling
`.../definitiongroups/mygroup` is checked for existence instead of passing as an external reference.
A local reference that does not name exactly one group (`#/schemaGroups/x`, `#/definitionGroups/`,
`.../definitionGroups/g/definitions/d`, an id with characters an id cannot have) is an error.

The URI helpers (`is_absolute_uri`, `is_uri_reference`) check the RFC 3986 grammar without normalising:
ASCII only, no spaces or braces, `%` followed by two hex digits, a valid scheme, brackets only around an
IP literal host, a numeric port. They are shared by the attribute and protocol validators.
"""

from __future__ import annotations

import re
from urllib.parse import SplitResult, urljoin, urlsplit

SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*$")
URI_CHARS = re.compile(r"^[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*$")
PCT = re.compile(r"%(?![0-9A-Fa-f]{2})")
# docs/api-contract.md section 2: ids are RFC 3986 segment-nz-nc characters, at most 128
ID = re.compile(r"^(?:[A-Za-z0-9\-._~!$&'()*+,;=@]|%[0-9A-Fa-f]{2})+$")
MAX_ID = 128
FRAGMENT_PREFIX = "#/definitionGroups/"
_NO_BASE = "http://registry.invalid/"


def split_uri(value) -> SplitResult | None:
    """The parts of a syntactically valid URI-reference, else None (never raises)."""
    if not isinstance(value, str) or not value or not URI_CHARS.fullmatch(value) or PCT.search(value):
        return None
    if value.count("#") > 1:
        return None
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError on a non-numeric or out-of-range port
    except ValueError:
        return None
    if parts.scheme and not SCHEME.fullmatch(parts.scheme):
        return None
    if not parts.scheme and ":" in value.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]:
        return None  # "1x:y" - a first path segment with ':' would be read as a scheme
    rest = value[len(parts.scheme) + 1 :] if parts.scheme else value
    outside_host = rest.replace(f"//{parts.netloc}", "", 1) if parts.netloc else rest
    if "[" in outside_host or "]" in outside_host:
        return None
    if "[" in parts.netloc and not re.search(r"(?:^|@)\[[0-9A-Fa-f:.vV]+\](?::\d*)?$", parts.netloc):
        return None
    return parts


def is_uri_reference(value) -> bool:
    """True for a non-empty RFC 3986 URI-reference (absolute URI, relative reference or fragment)."""
    return split_uri(value) is not None


def is_absolute_uri(value, *, require_host: bool = False) -> bool:
    """True for an RFC 3986 URI with a scheme (optionally also with a host)."""
    parts = split_uri(value)
    return parts is not None and bool(parts.scheme) and (not require_host or bool(parts.hostname))


def is_valid_id(value) -> bool:
    return isinstance(value, str) and 0 < len(value) <= MAX_ID and bool(ID.fullmatch(value))


def _origin_and_path(parts: SplitResult) -> tuple[tuple[str, str], str]:
    host = (parts.hostname or "").lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    return (parts.scheme.lower(), f"{host}:{port if port is not None else default}"), parts.path


def _local_rest(ref: str, base_url: str | None) -> str | None:
    """The part after `definitionGroups/` when `ref` points into this registry's definition groups."""
    if ref.startswith("#"):
        return ref[len(FRAGMENT_PREFIX) :] if ref[: len(FRAGMENT_PREFIX)].lower() == FRAGMENT_PREFIX.lower() else None
    base = (base_url.rstrip("/") + "/") if base_url else _NO_BASE
    try:
        target = urlsplit(urljoin(base, ref))
        root = urlsplit(base)
    except ValueError:
        return None
    if base_url is None and urlsplit(ref).scheme:
        return None  # an absolute URL cannot be recognised as ours without knowing our URL
    (t_origin, t_path), (r_origin, r_path) = _origin_and_path(target), _origin_and_path(root)
    if t_origin != r_origin or not t_path.startswith(r_path):
        return None
    rest = t_path[len(r_path) :]
    segment, sep, tail = rest.partition("/")
    if segment.lower() != "definitiongroups" or not sep:
        return None
    if target.query or target.fragment:
        return tail + "?"  # made invalid on purpose: a group URL has no query or fragment
    return tail


def definition_group_ids(attributes: dict, base_url: str | None) -> tuple[list[str], list[str]]:
    """(ids of this registry's definition groups referenced, errors of malformed entries).

    `base_url` is the registry's root URL (`https://host/prefix`), or None when unknown. Ids come back
    in array order, without duplicates. Never raises, whatever the JSON shape.
    """
    if not isinstance(attributes, dict):
        return [], []
    refs = attributes.get("definitionGroups")
    if refs is None:
        return [], []
    if not isinstance(refs, list):
        return [], ["definitionGroups must be an array of URI-references"]
    ids: list[str] = []
    errors: list[str] = []
    for index, ref in enumerate(refs):
        if not isinstance(ref, str) or not ref:
            errors.append(f"definitionGroups[{index}] must be a non-empty URI-reference")
            continue
        if not is_uri_reference(ref):
            errors.append(f"definitionGroups[{index}]: {ref!r} is not a URI-reference")
            continue
        rest = _local_rest(ref, base_url)
        if rest is None:
            if ref.startswith("#"):
                errors.append(
                    f"definitionGroups[{index}]: {ref!r} is a local reference but not '#/definitionGroups/ID'"
                )
            continue
        gid = rest[:-1] if rest.endswith("/") and not ref.startswith("#") else rest
        if not is_valid_id(gid):
            errors.append(
                f"definitionGroups[{index}]: {ref!r} does not name one definition group "
                f"(expected '#/definitionGroups/ID' or '<registry URL>/definitionGroups/ID')"
            )
        elif gid not in ids:
            ids.append(gid)
    return ids, errors
