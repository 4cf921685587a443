"""Metadata in HTTP headers, both ways, for every binding that carries it there (`PREFIX-NAME: value`, maps as
`PREFIX-MAPNAME-KEY: value`).

Header fields are bytes; WSGI hands them over as ISO-8859-1 text and writes them back the same way. Values are
UTF-8 text: sent and answered as its bytes (`Registry-*`, the 0.5-wip binding), or percent-encoded as xRegistry
1.0 requires (core/http.md "HTTP Header Values": space, `"`, `%` and everything outside printable ASCII as `%XX`
of the UTF-8 bytes; a double-quoted value is unquoted first; bytes that are not UTF-8 are an error). Written by
hand: urllib's quoting encodes a different set and decodes invalid UTF-8 to replacement characters.
"""

from __future__ import annotations

import re

from ..domain.errors import Problem

PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")
QUOTED_PAIR = re.compile(r"\\(.)")


def _utf8(name: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Problem("bad-request", f"the header {name} is not UTF-8 text")


def decode_value(name: str, value: str, *, percent: bool) -> str:
    """A header's value as the client meant it (see the module's docstring); 400 naming the header otherwise."""
    try:
        raw = value.encode("latin-1")
    except UnicodeEncodeError:  # not from WSGI bytes (a test client's str): already text
        raw = value.encode("utf-8")
    text = _utf8(name, raw)
    if not percent:
        return text
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = QUOTED_PAIR.sub(r"\1", text[1:-1])
    if "%" not in text:
        return text
    pieces, position = bytearray(), 0
    for match in PERCENT.finditer(text):
        pieces += text[position : match.start()].encode("utf-8")
        pieces.append(int(match.group(1), 16))
        position = match.end()
    pieces += text[position:].encode("utf-8")
    return _utf8(name, bytes(pieces))


def encode_value(value: str, *, percent: bool) -> str:
    """A header value for Django to write (ISO-8859-1 text standing for the bytes to send)."""
    if percent:
        return "".join(
            char
            if "\x21" <= char <= "\x7e" and char not in '"%'
            else "".join(f"%{byte:02X}" for byte in char.encode("utf-8"))
            for char in value
        )
    return value.encode("utf-8", "backslashreplace").decode("latin-1")


def prefixed_headers(request, prefix: str, map_name: str, *, percent: bool = False):
    """The request's `PREFIX-NAME: value` headers as {name: value}, and its `PREFIX-MAPNAME-KEY: value` headers as
    the map {key: value} (None when there is none). Names and keys are lower case, since header names are
    case-insensitive and arrive re-cased by WSGI ("Owner")."""
    attrs: dict[str, str] = {}
    entries: dict[str, str] | None = None
    head, map_head = f"{prefix.lower()}-", f"{map_name}-"
    for header, value in request.headers.items():
        lower = header.lower()
        if not lower.startswith(head):
            continue
        name = lower[len(head) :]
        text = decode_value(header, value, percent=percent)
        if name.startswith(map_head):
            entries = entries if entries is not None else {}
            entries[name[len(map_head) :]] = text
        else:
            attrs[name] = text
    return attrs, entries


def metadata_headers(prefix: str, map_name: str, attrs: dict, *, percent: bool = False) -> dict[str, str]:
    """Scalar attributes as `PREFIX-NAME` headers and the map `map_name` as `PREFIX-MAPNAME-KEY` headers; a
    value with a line break only where it can be encoded (percent-encoding), else it is left out."""
    headers = {}
    for key, value in attrs.items():
        if key == map_name and isinstance(value, dict):
            items = [(f"{prefix}-{map_name}-{k}", v) for k, v in value.items()]
        elif isinstance(value, bool):
            items = [(f"{prefix}-{key}", "true" if value else "false")]
        elif isinstance(value, str | int | float):
            items = [(f"{prefix}-{key}", value)]
        else:
            continue
        for name, item in items:
            text = str(item)
            if not percent and ("\n" in text or "\r" in text):
                continue
            headers[name] = encode_value(text, percent=percent)
    return headers
