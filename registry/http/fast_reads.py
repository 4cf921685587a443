"""The fast path of public reads: `GET`/`HEAD` of a document (latest or by version) in every binding that registers
its document views, and of a whole-registry answer (`GET /?inline`, the exports: registry/http/whole_registry.py),
answered from the view's own answer kept per request, after one query.

A document GET through the framework costs many times the query it needs in Python (URL resolution, seven
middleware, DRF's request, authentication and permissions, the representation, the ETag). The answer is a function
of what one query reads (its `rows`) and of the request's URL, scheme, host, method, whether the caller signed in,
and whether its `If-None-Match` holds the answer's tag (a whole-registry answer's also of its query string and
`Accept`). A document's rows are its key (registry/store/document_keys.py: a small row that changes whenever any row
the answer depends on does); a whole-registry answer's, the registry's change marker (registry/store/change_marker.py:
every caller reads every group, reads being public); the same query says whether the caller's API token is valid.
When the rows are those an answer was kept under, that answer is replayed (status, headers, body; a 304 without a
body): no view, no DRF, no representation. Otherwise (a miss) the request goes the whole way, and its answer is kept
under the rows read before it (a whole-registry answer: under the marker it was rendered at, which it names). Every
answer is thus the full view's own, made by the same code; a write changes the rows, so the next read, on any worker,
is a miss. A write committed between the query and the full view's read keeps a newer answer under older rows, which
no later read sees again (a row's versions only move forward). The marker is read only for a request whose answer
was kept before, so that other requests (`GET /`, a collection) cost no query here.

Two doors serve kept answers. Behind gunicorn on PostgreSQL, `FastReadsApp`, a WSGI layer in front of Django's
handler (config/wsgi.py), writes a kept answer out before the framework runs at all; the operations app adds what
its middleware gives every other answer (request id, metrics, access log) through `observe_replays`. Elsewhere (the
query on Django's connection of the request: SQLite, no pool, a test's transaction) the middleware
`FastDocumentReads` does, after the middleware before it. On a miss the middleware runs the full view and keeps its
answer, with the probe the WSGI layer made when there was one.

It serves only what no rule of the caller's can change: reads are public (`permissions.reads_are_public`), the caller
is anonymous or sends an API token (`Authorization: Token KEY`) of an active user, no cookie (a session, CSRF), no
query string (but a whole-registry answer's), no `If-Match`/`If-Modified-Since`/`If-Unmodified-Since`/`If-Range`/
`Range`, a host Django accepts. Everything else, and any path where the key's query finds no document (404s), goes
the whole way. Bindings say which views are document reads and what rows their answers depend on (`register`).

Memory: per process, at most REGISTRY_FAST_READ_BYTES of kept answers (bodies, headers and keys, counted in bytes),
least recently used dropped first; the answers of one request's key larger than an eighth of it are not kept (a
whole-registry answer above it goes the whole way, which serves it from rendered_answers.py). URL resolutions are
kept for at most 2,048 paths of at most 1,024 characters. REGISTRY_FAST_READS=0 turns the fast path off. Written by
hand: Django's cache framework keys answers by URL and headers, not by the rows they were read from, so it cannot
tell when one is stale.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.core.handlers.wsgi import WSGIRequest
from django.core.signals import setting_changed
from django.http import HttpResponse
from django.urls import Resolver404, ResolverMatch, resolve
from django.utils.cache import (  # type: ignore[attr-defined]  # Django's own comparison: 304s as its views'
    _if_none_match_passes,
)
from django.utils.http import parse_etags

from ..store.bounded_cache import BoundedCache
from ..store.change_marker import change_marker_and_caller
from ..store.document_keys import document_key, reads_keys_apart
from .database_errors import is_unavailable, unavailable_response
from .permissions import reads_are_public

logger = logging.getLogger(__name__)

MAX_PATH = 1024  # longer paths go the whole way (their resolutions are not kept)
KEPT_STATUSES = frozenset({200, 303, 304, 307})  # a document, a 304, or the redirect to a document kept elsewhere
DEFERRING_HEADERS = (  # present with any value (an empty Cookie header sends no cookie: Django's test client)
    "HTTP_IF_MATCH",
    "HTTP_IF_MODIFIED_SINCE",
    "HTTP_IF_UNMODIFIED_SINCE",
    "HTTP_IF_RANGE",
    "HTTP_RANGE",
)
ENTRY_OVERHEAD = 1024  # bytes counted per kept answer besides its bodies, headers and rows
WHOLE_MARKER = "registry_fast_reads_marker"  # the attribute of a whole-registry answer (whole_registry.py) kept here


@dataclass(frozen=True)
class DocumentAddress:
    """What a document read's answer depends on, besides the request: the row of this document (store names), in
    1.0 with the resource's version count and previous version (`history`). A resource's document is its default
    version's (`Resource.latest`), in 1.0 too: the write services point it at a sticky default."""

    group_type: str
    gid: str
    resource_type: str
    rid: str
    vid: str | None = None
    history: bool = False


# view class -> the address of a request it answers (None: not a plain document read: it goes the whole way)
Addresser = Callable[[dict, dict], DocumentAddress | None]
_views: dict[type | None, Addresser] = {}


def register(view_class: type, addresser: Addresser) -> None:
    """Declare `view_class` (exactly that class, not its subclasses) a document read whose answer to a GET without
    a query string is a function of the request's URL, scheme, host and caller's sign-in and of the rows
    `addresser(view_initkwargs, url_kwargs)` names."""
    if getattr(view_class, "read_permissions", None) is not None:
        raise TypeError(f"{view_class.__name__}'s reads are not public: it cannot be served by the fast path")
    _views[view_class] = addresser


@dataclass
class Kept:
    """The answers kept for one request's key, valid while what they were read from is `rows` (a document's rows,
    a whole-registry answer's change marker)."""

    rows: tuple
    match: ResolverMatch | None = None  # the route the request metrics count a replay under
    etag: str | None = None
    answers: dict = field(default_factory=dict)  # (method, not modified) -> (status, headers, body, WSGI form)
    size: int = ENTRY_OVERHEAD


class KeptAnswers(BoundedCache):
    """The kept answers (module docstring, "Memory"; registry/store/bounded_cache.py: `fast_read_answers` in the
    metrics): each request key's `Kept` under its rows (the version)."""

    def __init__(self):
        super().__init__(
            "fast_read_answers",
            max_bytes=lambda: settings.REGISTRY_FAST_READ_BYTES,
            max_item_bytes=lambda: settings.REGISTRY_FAST_READ_BYTES // 8,
        )

    def add(self, key: tuple, rows: tuple, variant: tuple, answer: tuple, etag: str | None, match=None) -> None:
        status, headers, body = answer[:3]
        kept = self.get(key, rows, counted=False)
        if kept is None:
            rows_size = sum(len(v) for row in rows if row for v in row if isinstance(v, bytes | str))
            kept = Kept(rows=rows, match=match, size=ENTRY_OVERHEAD + rows_size)
        if variant not in kept.answers:
            kept.answers[variant] = answer
            kept.size += len(body) + sum(len(name) + len(value) for name, value in headers.values())
        if etag is not None:
            kept.etag = etag
        self.put(key, kept, size=kept.size, version=rows)  # (too large to keep: read the whole way each time)


kept_answers = KeptAnswers()
_resolutions = BoundedCache("fast_read_paths", max_entries=2048)
_UNKNOWN = object()


def _address(path_info: str) -> DocumentAddress | None:
    """The address of a path whose view registered as a document read, else None (also when a segment can be no
    query parameter: the whole way answers it); kept per path (`register`: a function of the path alone)."""
    found = _resolutions.get(path_info, default=_UNKNOWN)
    if found is _UNKNOWN:
        try:
            match = resolve(path_info)
        except Resolver404:
            match = None
        addresser = _views.get(getattr(match.func, "view_class", None)) if match is not None else None
        found = addresser(getattr(match.func, "view_initkwargs", {}), match.kwargs) if match and addresser else None
        if found is not None and not all(_storable(v) for v in (found.gid, found.rid, found.vid)):
            found = None
        _resolutions.put(path_info, found)
    return found


def _forget(**_kwargs) -> None:
    """A changed setting (tests) may change any answer or the URL configuration."""
    _resolutions.clear()
    kept_answers.clear()


setting_changed.connect(_forget, dispatch_uid="registry.http.fast_reads")


def _caller_token(meta: dict) -> tuple[bool, str | None]:
    """(served here, token): no Authorization header, or `Token KEY` as DRF's TokenAuthentication reads it."""
    header = meta.get("HTTP_AUTHORIZATION")
    if header is None:
        return True, None
    parts = header.split()
    if len(parts) != 2 or parts[0].lower() != "token" or not parts[1].isascii():
        return False, None  # another scheme (HTTP Basic), or a malformed token: the whole way
    return True, parts[1]


def _document_rows(address: DocumentAddress, token: str | None):
    """The rows of the address, or None when the path holds no document or the token given is not the key of an active
    user (the whole way answers 401)."""
    path = (address.group_type, address.gid, address.resource_type, address.rid)
    key = document_key(*path, address.vid, history=address.history, token=token)
    if key is None or key.version_id is None or (token is not None and not key.caller_active):
        return None
    return (key.row,)


def _marker_rows(token: str | None):
    """The change marker (a whole-registry answer's rows), or None when the token given is not the key of an active
    user (the whole way answers 401)."""
    marker, caller = change_marker_and_caller(token)
    return None if token is not None and not caller else (marker,)


def _storable(value: str | None) -> bool:
    """Whether a path segment can be a query parameter (PostgreSQL takes no NUL; text must encode as UTF-8): the
    others go the whole way, whose answer names what is wrong."""
    try:  # (the encoding of a non-empty text is true)
        return value is None or ("\x00" not in value and bool(value.isascii() or value.encode("utf-8")))
    except UnicodeEncodeError:
        return False


@dataclass
class Probe:
    """What the query found for a request the fast path serves: where its answer is kept (`key`), the rows it is kept
    under (a whole-registry answer's: None, the marker its answer names), and the kept answer to this request
    (None: a miss) with the route it was kept with."""

    key: tuple
    rows: tuple | None
    if_none_match: str | None
    answer: tuple | None = None
    match: ResolverMatch | None = None


def probe(request) -> Probe | None:
    """The fast path's look-up for `request` (at most one query), or None when the request goes the whole way. Raises
    what the query raises."""
    meta = request.META
    method = request.method
    if (
        (method != "GET" and method != "HEAD")
        or not settings.REGISTRY_FAST_READS
        or not reads_are_public()
        or settings.DISALLOWED_USER_AGENTS
        or meta.get("HTTP_COOKIE")
        or any(name in meta for name in DEFERRING_HEADERS)
        or len(request.path_info) > MAX_PATH
    ):
        return None
    ours, token = _caller_token(meta)
    if not ours or not _storable(token):
        return None
    try:
        host = request.get_host()
    except DisallowedHost:
        return None  # the whole way answers it (400)
    address = None if meta.get("QUERY_STRING") else _address(request.path_info)
    if address is None:  # another path or query string than a document's: a whole-registry answer, if one was kept
        key: tuple = (request.get_full_path(), request.scheme, host, token is not None, meta.get("HTTP_ACCEPT"))
        rows = _marker_rows(token) if key in kept_answers else ()
    else:
        key = (request.path, request.scheme, host, token is not None)
        rows = _document_rows(address, token)
    if rows is None:
        return None
    found = Probe(key, rows if address is not None else None, meta.get("HTTP_IF_NONE_MATCH"))
    kept = kept_answers.get(key, rows) if rows else None
    if kept is not None:
        not_modified = (
            found.if_none_match is not None
            and kept.etag is not None
            and not _if_none_match_passes(kept.etag, parse_etags(found.if_none_match))
        )
        found.answer, found.match = kept.answers.get((method, not_modified)), kept.match
    return found


def _replayed(request, found: Probe, where: str = "") -> None:
    request.resolver_match = found.match  # the route the request metrics count it under
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("kept answer of %s %s%s", request.method, request.path, where)


# the probe of a request the WSGI layer found no kept answer for (False: nothing the fast path serves), handed to
# the middleware so that it does not run the query again
PROBED = "registry.fast_reads.probe"


class FastDocumentReads:
    """The middleware (config/settings.py puts it after the request id, the operations endpoints and the database
    guard, before the rest): a kept answer when the rows are the same, else the whole way, whose answer it keeps."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        found = request.META.pop(PROBED, None)  # False: the WSGI layer's probe found nothing to serve
        if found is None:
            try:
                found = probe(request)
            except Exception as exc:
                if is_unavailable(exc):
                    return unavailable_response(request, exc)
                raise
            if found is not None and found.answer is not None:
                _replayed(request, found)
                status, store, body, _wsgi = found.answer
                response = HttpResponse(body, status=status)
                # the kept headers as they were, without setting each through HttpResponse's checks again (they
                # passed them when the view answered; tests compare the two answers header by header)
                response.headers._store = dict(store)
                return response
        response = self.get_response(request)
        if isinstance(found, Probe):
            _keep(request, found, response)
        return response


def _keep(request, found: Probe, response) -> None:
    status = response.status_code
    if status not in KEPT_STATUSES or response.streaming or response.cookies:
        return
    if status == 304 and found.if_none_match is None:
        return
    rows = found.rows
    if rows is None:  # a whole-registry answer's: the marker it was rendered at (none: not one, not kept)
        marker = getattr(response, WHOLE_MARKER, None)
        if marker is None:
            return
        rows = (marker,)
    store = {name.lower(): (name, value) for name, value in response.items()}
    # the WSGI layer's form of it: the status line and the header list, as Django's handler writes them
    answer = (status, store, response.content, (f"{status} {response.reason_phrase}", list(store.values())))
    etag = response.get("ETag")
    kept_answers.add(found.key, rows, (request.method, status == 304), answer, etag, request.resolver_match)


# Called for each answer the WSGI layer replays (which no middleware sees): observer(request, status, seconds) ->
# headers to add to the answer. The operations app registers its request id, metrics and access log here
# (operations/apps.py), which its middleware gives every other answer.
_replay_observers: list[Callable] = []


def observe_replays(observer: Callable) -> None:
    if observer not in _replay_observers:
        _replay_observers.append(observer)


class FastReadsApp:
    """The WSGI layer (module docstring, "Two doors"): no request signals, middleware or response object for a kept
    answer; a miss goes to Django's handler with this probe; an error of the query, the whole way."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        method = environ.get("REQUEST_METHOD")
        if (method != "GET" and method != "HEAD") or not reads_keys_apart():
            return self.app(environ, start_response)
        started = time.perf_counter()
        try:
            request = WSGIRequest(environ)
            found = probe(request)
        except Exception:  # noqa: BLE001 - the whole way answers it (a 503 when the database is unavailable)
            logger.debug("the fast path's probe failed; the whole way answers", exc_info=True)
            return self.app(environ, start_response)
        if found is None or found.answer is None:
            environ[PROBED] = found if found is not None else False
            return self.app(environ, start_response)
        _replayed(request, found, " (before the framework)")
        status, _store, body, (status_line, headers) = found.answer
        seconds = time.perf_counter() - started
        for observer in _replay_observers:
            headers = headers + observer(request, status, seconds)
        start_response(status_line, headers)
        return [body]
