"""HTTP caching of the API's reads, and conditional writes (RFC 9110 sections 8.8.3 and 13).

Every successful GET/HEAD of a registry view carries a strong `ETag` and `Cache-Control: no-cache` (clients keep
the answer and revalidate it each time); `If-None-Match` with a current tag answers 304 with no body.

- A buffered answer's tag is a hash of its bytes (and its media type), so it changes whenever anything in it
  changes: the entity, an inlined child, a count, a header-borne attribute (`Registry-*` headers are hashed
  too, since a document GET carries its metadata there).
- A streamed answer (`GET /?inline`, the export) is never held in memory, so its tag is a hash of the
  registry's change marker (it moves with every committed write: registry/store/change_marker.py) with everything
  that selects the variant (path, query, `Accept`, host).

Writes accept `If-Match` as an alternative to `?epoch`: the current representation of the same URL (as a GET
without write flags would answer it) must carry one of the given tags, else 412 and nothing is written; when
it does, its epoch becomes the write's expected epoch, so a change committed between the check and the write
still gives the usual 409. `If-None-Match: *` on a write succeeds only when nothing exists at the URL
(create-only). Django's `get_conditional_response` does the RFC's comparisons for reads; only the ETag
computation and the write-side preconditions are written here, as no library maps them onto this API's epochs.
"""

from __future__ import annotations

import copy
import hashlib
import json

from django.http import HttpResponse
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.http import parse_etags

from ..domain.errors import Problem
from .binding import binding_of
from .fast_reads import WHOLE_MARKER
from .problems import problem_response
from .requests import query_epoch

WRITE_METHODS = {"PUT", "PATCH", "POST", "DELETE"}
WRITE_FLAGS = {"epoch", "force"}  # query flags of writes that a GET of the same URL does not take


def _tag(*parts: str | bytes) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for part in parts:
        digest.update(part if isinstance(part, bytes) else part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return f'"{digest.hexdigest()}"'


def content_etag(response: HttpResponse, binding=None) -> str:
    """The strong tag of a buffered answer as its binding renders it: its bytes, media type and the binding's
    metadata headers (`Registry-*`, `xRegistry-*`: a document GET carries its metadata there)."""
    metadata = sorted((k.lower(), v) for k, v in response.items() if binding is not None and binding.metadata_header(k))
    return _tag(response.get("Content-Type", ""), json.dumps(metadata), response.content)


def stream_etag(request, marker: str) -> str:
    """The strong tag of a streamed answer: the registry's change marker and the variant it selects."""
    return _tag(marker, request.get_full_path(), request.headers.get("Accept", ""), request.get_host())


def finalize_read(request, response: HttpResponse, marker=None) -> HttpResponse:
    """Add ETag and Cache-Control to a successful read; answer 304 (or 412) per the request's preconditions.

    `marker` is called only for streamed answers, to get the registry's change marker."""
    if request.method not in ("GET", "HEAD") or response.status_code != 200:
        return response
    if not response.has_header("ETag"):
        if response.streaming:
            if marker is None:
                return response
            response["ETag"] = stream_etag(request, marker())
        else:
            response["ETag"] = content_etag(response, binding_of(request))
    authenticated = bool(getattr(getattr(request, "user", None), "is_authenticated", False))
    response["Cache-Control"] = "private, no-cache" if authenticated else "no-cache"
    patch_vary_headers(response, ("Accept", "Authorization", "Cookie"))
    conditional = get_conditional_response(request, etag=response["ETag"], response=response)
    if conditional is not None and conditional.status_code == 412:  # a GET with an If-Match that fails
        problem = Problem(
            "precondition-failed", f"If-Match failed: the current tag of {request.path} is {response['ETag']}"
        )
        binding = binding_of(request)
        return binding.render_problem(problem, request) if binding is not None else problem_response(problem, request)
    if conditional is not None and hasattr(response, WHOLE_MARKER):  # a whole-registry answer's 304: kept as such
        setattr(conditional, WHOLE_MARKER, getattr(response, WHOLE_MARKER))
    return conditional if conditional is not None else response


def head_etag(request, response: HttpResponse) -> None:
    """HEAD answers carry the tag of the GET they stand for (computed before the body is dropped)."""
    if response.status_code == 200 and not response.streaming and not response.has_header("ETag"):
        response["ETag"] = content_etag(response, binding_of(request))


def _current_read(view, request, kwargs):
    """What a GET of the same URL (without write-only flags) answers now, or None when nothing is there."""
    read = copy.copy(request._request)
    read.method = "GET"
    query = read.GET.copy()
    for name in WRITE_FLAGS:
        query.pop(name, None)
    read.GET = query
    wrapped = copy.copy(request)
    wrapped._request = read
    try:
        response = view.get(wrapped, **kwargs)
    except Problem as problem:
        if problem.status == 404:
            return None
        raise
    if response.streaming:
        raise Problem(
            "bad-request", "If-Match is not supported on this URL (its representation is streamed)", status=400
        )
    if response.status_code == 200 and not response.has_header("ETag"):
        response["ETag"] = content_etag(response, binding_of(request))
    return response


def _epoch_of(response, binding) -> str | None:
    """The epoch of the entity a representation shows: the binding's `PREFIX-epoch` header (a document), else the
    `epoch` of its JSON body."""
    header = response.get(binding.epoch_header) if binding is not None and binding.epoch_header else None
    if header:
        return header
    if response.get("Content-Type", "").startswith("application/json"):
        try:
            body = json.loads(response.content)
        except ValueError:
            return None
        epoch = body.get("epoch") if isinstance(body, dict) else None
        return str(epoch) if isinstance(epoch, int) else None
    return None


def check_write_preconditions(view, request, kwargs) -> None:
    """412 unless the write's `If-Match` / `If-None-Match` hold; `If-Match` pins the expected epoch."""
    if request.method not in WRITE_METHODS or not hasattr(view, "get"):
        return
    if_match = request.headers.get("If-Match")
    if_none_match = request.headers.get("If-None-Match")
    if if_match is None and if_none_match is None:
        return
    current = _current_read(view, request, kwargs)
    if if_none_match is not None:
        tags = parse_etags(if_none_match)
        if current is not None and ("*" in tags or current.get("ETag") in tags):
            raise Problem(
                "precondition-failed",
                f"If-None-Match: {if_none_match} failed: {request.path} exists (with tag {current.get('ETag')})",
            )
    if if_match is not None:
        tags = parse_etags(if_match)
        if current is None:
            raise Problem("precondition-failed", f"If-Match: {if_match} failed: {request.path} does not exist")
        if "*" not in tags and current.get("ETag") not in tags:
            raise Problem(
                "precondition-failed",
                f"If-Match: {if_match} failed: the current tag of {request.path} "
                f"is {current.get('ETag')}; read it again",
            )
        binding = binding_of(request)
        epoch = _epoch_of(current, binding)
        if epoch is not None and "*" not in tags:
            # the matched representation's epoch is the expected one (requests.expected_epoch): a write committed in
            # between gives the binding's epoch mismatch
            sent = query_epoch(request)
            if sent is not None and str(sent) != epoch:
                raise Problem(
                    "epoch-mismatch", f"If-Match names epoch {epoch} of {request.path}, the request says {sent}"
                )
            request._request.pinned_epoch = int(epoch)
