"""Reading a JSON body of the 1.0 binding: present when needed, JSON by its media type, of the expected kind."""

from __future__ import annotations

import json

from ..errors import Problem
from ..json_text import TooDeep, nesting_exceeds
from ..limits import MAX_DOCUMENT_DEPTH
from .errors import V1Problem
from .flags import ignored


def json_body(request, *, kind=dict, required: bool = True):
    raw = request.body
    if not raw.strip():
        if required:
            raise V1Problem("missing_body", "this request needs a body", http=True)
        return None
    media = request.META.get("CONTENT_TYPE", "").split(";")[0].strip().lower()
    if media and media != "application/json" and not media.endswith("+json"):
        raise Problem("unsupported-media-type", f"this body is JSON (application/json), not {media}")
    try:
        if nesting_exceeds(raw.decode("utf-8"), MAX_DOCUMENT_DEPTH):  # the limit of every door (registry.limits)
            raise TooDeep(f"it is nested deeper than {MAX_DOCUMENT_DEPTH} levels")
        value = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise V1Problem("parsing_data", f"the body is not JSON: {exc}") from None
    names = ignored(request)
    if names:
        value = _without(value, names)
    if not isinstance(value, kind):
        raise V1Problem("bad_request", f"the body must be a JSON {'object' if kind is dict else 'array'}")
    return value


def _without(value, names: set[str]):
    """The body less the members `?ignore` names, at every level (an export re-imported keeps its epochs out)."""
    if isinstance(value, dict):
        return {k: _without(v, names) for k, v in value.items() if k not in names}
    if isinstance(value, list):
        return [_without(v, names) for v in value]
    return value
