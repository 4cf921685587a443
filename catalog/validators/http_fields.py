"""HTTP field rules (RFC 9110) shared by the HTTP message format of definitions and the HTTP protocol options
of endpoints: a token (field names, methods), a field value (no control character but tab), and a list of
`{name, value}` header objects (a field may appear more than once, so a list, not a map)."""

from __future__ import annotations

import re
from collections.abc import Callable

TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")  # RFC 9110 token: field names, methods
# RFC 9110 section 5.5: a field value is visible characters, spaces and tabs; CR and LF would inject a field
CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def header_list_errors(headers, path: str, *, item_errors: Callable[[dict, str], list[str]]) -> list[str]:
    """The rules every header list keeps; `item_errors(header, where)` adds the caller's rules for one item
    (a definition's declaration members, an endpoint's value templates)."""
    if not isinstance(headers, list):
        return [f"{path} must be an array of {{name, value}} objects"]
    errors = []
    for index, header in enumerate(headers):
        where = f"{path}[{index}]"
        if not isinstance(header, dict):
            errors.append(f"{where} must be an object with name and value")
            continue
        name = header.get("name")
        if name is None:
            errors.append(f"{where}.name is required")
        elif not isinstance(name, str) or not name:
            errors.append(f"{where}.name must be a non-empty string")
        elif not TOKEN.fullmatch(name):
            errors.append(f"{where}.name: {name[:80]!r} is not an HTTP field name (RFC 9110 token)")
        value = header.get("value")
        if isinstance(value, str) and CONTROL.search(value):
            errors.append(f"{where}.value must not contain CR, LF, NUL or another control character")
        errors += item_errors(header, where)
    return errors
