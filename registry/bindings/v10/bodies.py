"""A JSON body of the 1.0 binding: the kernel's reading (strict JSON, limits, media types: a body without one is
JSON here), the spec's `missing_body` error, and `?ignore` (members an export re-imported leaves out)."""

from __future__ import annotations

from ...http import requests
from .errors import V1Problem
from .flags import ignored


def json_body(request, *, kind=dict, required: bool = True):
    value = requests.json_body(request, required=False, kind=kind)  # (not of `kind`: the kernel's bad-request)
    if value is None:
        if required:
            raise V1Problem("missing_body", "this request needs a body", http=True)
        return None
    names = ignored(request)
    return _without(value, names) if names else value


def _without(value, names: set[str]):
    """The body less the members `?ignore` names, at every level (an export re-imported keeps its epochs out)."""
    if isinstance(value, dict):
        return {k: _without(v, names) for k, v in value.items() if k not in names}
    if isinstance(value, list):
        return [_without(v, names) for v in value]
    return value
