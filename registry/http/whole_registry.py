"""The whole-registry answer of every binding (0.5's `GET /?inline` and export, 1.0's root, `?inline` and
`/export`): served as rendered under the current change marker (registry/http/rendered_answers.py), else rendered
and kept, so that a repeated read costs one query; tagged with the marker, so that a revalidation costs one query
too. Kept per read scope (registry/access/read_scope.py): a caller who may not read every group gets the answer of those
he may read, under its own key and tag.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable

from django.http import HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase

from ..access.read_scope import EVERYTHING_KEY, ReadScope
from ..store import selectors
from .conditional import stream_etag
from .fast_reads import WHOLE_MARKER
from .rendered_answers import rendered_answers
from .views import JSON_CONTENT_TYPE

# what renders an answer: a JSON value (a dict), its bytes, or its chunks (streamed, kept when it fits)
Rendered = dict | bytes | Iterable[str | bytes]


def whole_registry_answer(
    request,
    scope: ReadScope,
    key: tuple,
    render: Callable[[], Rendered],
    *,
    content_type: str = JSON_CONTENT_TYPE,
    marker: str | None = None,
) -> HttpResponseBase:
    """The answer `render` gives, kept under `key` (the binding and the variant: the request's host and full path
    are added) until the next committed change. `marker`: what the answer depends on when that is less than every
    change (the registry's own state for its root). `render` is called only when nothing is kept: what must be
    checked before rendering (the size of the answer) is checked there."""
    changes = marker is None  # kept under the change marker: the fast path's WSGI layer may serve it again
    marker = marker or selectors.change_marker()
    shows = scope.key()
    if shows != EVERYTHING_KEY:
        marker = f"{marker} {shows}"
    cache_key = (*key, request.build_absolute_uri("/"), request.get_full_path(), shows)
    body = rendered_answers.get(marker, cache_key)
    response: HttpResponseBase
    if body is None:
        rendered = render()
        if isinstance(rendered, dict):
            rendered = json.dumps(rendered, ensure_ascii=False).encode()
        if isinstance(rendered, bytes):
            body = rendered
            rendered_answers.put(marker, cache_key, body)
        else:
            response = StreamingHttpResponse(
                rendered_answers.keep(marker, cache_key, rendered), content_type=content_type
            )
    if body is not None:
        response = HttpResponse(body, content_type=content_type)
    response["ETag"] = stream_etag(request, marker)
    if changes and shows == EVERYTHING_KEY:
        setattr(response, WHOLE_MARKER, marker)  # registry/http/fast_reads.py keeps it under the marker
    return response
