"""The base of the Confluent API's views: auth (token, `Bearer` token, session, HTTP Basic), the permission rule,
Confluent's media types, strict JSON bodies, case-insensitive query booleans and the one place where every failure
becomes Confluent's `{"error_code", "message"}` (the dialect of `confluent.errors`).

Built on the registry's view base (`registry.http.views.RegistryView`: HTTP caching of reads) and request reader
(`registry.http.requests`: size limit, strict JSON with no NUL, lone surrogate, NaN or duplicate key).
"""

from __future__ import annotations

import json
import logging
from urllib.parse import unquote_to_bytes

from django.db import DatabaseError, OperationalError
from django.http import HttpResponse
from rest_framework import exceptions
from rest_framework.authentication import BasicAuthentication, SessionAuthentication, TokenAuthentication
from rest_framework.views import APIView

from registry.errors import Problem
from registry.http.permissions import RegistryPermission
from registry.http.requests import body_bytes, loads_strict
from registry.http.views import RegistryView

from ..errors import INVALID_SUBJECT, ConfluentError

logger = logging.getLogger(__name__)
MEDIA_TYPE = "application/vnd.schemaregistry.v1+json"
ACCEPTED_BODIES = {
    "application/vnd.schemaregistry.v1+json",
    "application/vnd.schemaregistry+json",
    "application/json",
    "application/octet-stream",
}
ACCEPTABLE = {*ACCEPTED_BODIES - {"application/octet-stream"}, "*/*", "application/*"}
PROBLEM_CODES = {"not-found": 404, "method-not-allowed": 405, "not-acceptable": 406, "unsupported-media-type": 415}


class BearerTokenAuthentication(TokenAuthentication):
    """`Authorization: Bearer KEY` with the same API tokens (the Confluent clients' bearer auth sends this form)."""

    keyword = "Bearer"


class ConfluentPermission(RegistryPermission):
    """The registry's rule (reads public unless REGISTRY_PUBLIC_READ=0; writes need the view's Django model
    permissions), with the POSTs that only read (lookup, compatibility test) taken as reads."""

    def has_permission(self, request, view):
        if request.method == "POST" and getattr(view, "post_reads", False):
            from django.conf import settings

            return settings.REGISTRY_PUBLIC_READ or bool(request.user and request.user.is_authenticated)
        return super().has_permission(request, view)


def answer(data, status: int = 200) -> HttpResponse:
    return HttpResponse(json.dumps(data, ensure_ascii=False), status=status, content_type=MEDIA_TYPE)


def error_answer(error: ConfluentError) -> HttpResponse:
    # a message may quote client input holding a lone surrogate: escaped, the answer stays valid UTF-8
    text = json.dumps(error.as_json(), ensure_ascii=False).encode("utf-8", "backslashreplace")
    return HttpResponse(text, status=error.status, content_type=MEDIA_TYPE)


def as_confluent(exc: Exception) -> ConfluentError | None:
    """Every failure in Confluent's words (None: not one of ours, a bug)."""
    if isinstance(exc, ConfluentError):
        return exc
    if isinstance(exc, Problem):
        if exc.kind == "too-large":
            return ConfluentError(42209, exc.detail, status=413)
        code = PROBLEM_CODES.get(exc.kind, exc.status)
        return ConfluentError(code, exc.detail, status=exc.status)
    if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
        return ConfluentError(40101, f"Unauthorized: {exc.detail}", status=401)
    if isinstance(exc, exceptions.PermissionDenied):
        return ConfluentError(40301, f"Forbidden: {exc.detail}", status=403)
    if isinstance(exc, exceptions.APIException):
        return ConfluentError(exc.status_code, str(exc.detail), status=exc.status_code)
    if isinstance(exc, OperationalError):
        return ConfluentError(50002, "Operation timed out: the store is busy; retry", status=500)
    if isinstance(exc, DatabaseError):
        return ConfluentError(50001, "Error in the backend data store", status=500)
    return None


def flag(request, name: str, default: bool = False) -> bool:
    """A query boolean, case-insensitive (`deleted=True`, `normalize=false`); 400 for anything else."""
    value = request.GET.get(name)
    if value is None or value == "":
        return default
    lowered = value.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    raise ConfluentError(400, f"query parameter {name} must be true or false, not {value[:40]!r}", status=400)


def number(request, name: str, default: int) -> int:
    value = request.GET.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ConfluentError(400, f"query parameter {name} must be an integer, not {value[:40]!r}", status=400)


def page(items: list, request) -> list:
    """`?offset` and `?limit` (-1 or absent: all)."""
    offset, limit = max(number(request, "offset", 0), 0), number(request, "limit", -1)
    return items[offset:] if limit < 0 else items[offset : offset + limit]


def json_body(request) -> dict:
    """The request's JSON object (Confluent's media types, application/json, octet-stream or none), parsed strictly
    within REGISTRY_MAX_BODY_BYTES."""
    media = request.META.get("CONTENT_TYPE", "").split(";")[0].strip().lower()
    if media and media not in ACCEPTED_BODIES and not media.endswith("+json"):
        raise ConfluentError(415, f"Unsupported media type {media}; send {MEDIA_TYPE}", status=415)
    raw = body_bytes(request)
    if not raw.strip():
        raise ConfluentError(400, "a JSON object body is required", status=400)
    try:
        value = loads_strict(raw)
    except Problem as exc:
        raise ConfluentError(400, exc.detail, status=400)
    if not isinstance(value, dict):
        raise ConfluentError(400, "the body must be a JSON object", status=400)
    return value


class ConfluentView(RegistryView):
    authentication_classes = [
        TokenAuthentication,
        BearerTokenAuthentication,
        SessionAuthentication,
        BasicAuthentication,
    ]
    permission_classes = [ConfluentPermission]
    schema = None  # not in the OpenAPI document of the registry's own API: Confluent's API is documented by Confluent
    post_reads = False

    def context(self):
        ctx = super().context()
        ctx.door = "confluent"  # the audit trail's name of this API
        return ctx

    def initial(self, request, *args, **kwargs):
        for value in kwargs.values():
            # Django keeps the escapes of bytes that are not UTF-8 (an encoded lone surrogate, %FF) in the path
            try:
                unquote_to_bytes(value).decode("utf-8")
            except UnicodeError:
                raise ConfluentError(INVALID_SUBJECT, "the path is not UTF-8 (a lone surrogate?): it names no subject")
        accept = request.headers.get("Accept", "")
        if accept:
            offered = {part.split(";")[0].strip().lower() for part in accept.split(",")}
            if not offered & ACCEPTABLE:
                raise ConfluentError(406, f"Not acceptable: this API answers {MEDIA_TYPE}", status=406)
        APIView.initial(self, request, *args, **kwargs)  # authentication and permissions

    def handle_exception(self, exc):
        error = as_confluent(exc)
        if error is None:
            logger.exception("unexpected failure in the Confluent API", exc_info=exc)
            error = ConfluentError(50001, "Error in the backend: the failure is logged for the operators", status=500)
        response = error_answer(error)
        if error.status == 401:
            response["WWW-Authenticate"] = 'Basic realm="registry"'
        if isinstance(exc, exceptions.MethodNotAllowed):
            response["Allow"] = ", ".join(self.allowed_methods)
        return response
