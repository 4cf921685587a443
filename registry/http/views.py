"""The base view of every binding: the binding it belongs to (`binding`, a declaration the kernel reads), auth
(token, session or HTTP Basic, the same for every binding) and permissions from DRF, problem documents in the
binding's words, conditional requests, JSON, paged and document responses, HEAD."""

from __future__ import annotations

import json

from django.http import HttpResponse
from rest_framework.authentication import SessionAuthentication
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView

from ..domain.errors import Problem
from ..domain.model import registry_model
from ..services import EntityAddress, WriteContext
from ..services.references import base_urls
from ..store import selectors
from ..store.paging import PageRequest, link_header
from . import conditional
from .basic_auth import BasicAuthentication
from .binding import Binding, binding_for_path
from .openapi import RegistryAutoSchema
from .permissions import check_group_read, read_scope
from .problems import problem_for_exception, problem_response
from .requests import check_flags
from .token_auth import TokenAuthentication

JSON_CONTENT_TYPE = "application/json; charset=utf-8"


class AnyAccept(BaseContentNegotiation):
    """Views write their own responses (documents keep their media type), so Accept never fails a request."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return JSONRenderer(), JSONRenderer.media_type


def json_response(data, status: int = 200, headers: dict | None = None) -> HttpResponse:
    response = HttpResponse(json.dumps(data, ensure_ascii=False), status=status, content_type=JSON_CONTENT_TYPE)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def document_answer(version, content: bytes, headers: dict, status: int = 200, *, redirect: int | None = None):
    """A document resource's answer in every binding: the document's bytes (`content`) with its media type, its
    metadata in `headers` (the binding's names). A document kept elsewhere (the version's `resource_uri`) has no
    body here, so its answer names no media type (Django's default `text/html` would claim an HTML body; 1.0's
    core/http.md: the 303's body MUST be empty); with `redirect` (the binding's status for it), the answer sends the
    client there."""
    if version.resource_uri:
        response = HttpResponse(b"", status=redirect or status)
        del response["Content-Type"]
        if redirect:
            response["Location"] = version.resource_uri
    else:
        response = HttpResponse(content, status=status, content_type=version.media_type or "application/octet-stream")
    for name, value in headers.items():
        response[name] = value
    return response


def page_response(request, body, page: PageRequest, total: int) -> HttpResponse:
    """One page of a collection as JSON, with the `Link` header to the next page when there is one."""
    link = link_header(request, page, total)
    return json_response(body, headers={"Link": link} if link else None)


def refuse_nul(request, path_values: dict) -> None:
    """A NUL character can be in no id (ids are URI segment characters) and no stored text (PostgreSQL refuses
    it): a path holding one names nothing (404), a query parameter holding one is malformed (400), before any
    query reaches the database."""
    for value in path_values.values():
        if isinstance(value, str) and "\x00" in value:
            raise Problem("not-found", f"{request.path!r} names nothing: ids cannot contain a NUL character")
    for name, values in request.GET.lists():
        if "\x00" in name or any("\x00" in v for v in values):
            raise Problem("bad-request", f"query parameter {name!r} contains a NUL character")


UNMOUNTED = Binding(name="registry", render_problem=problem_response)  # a view no mount names: problem documents


class RegistryView(APIView):
    """Common plumbing; subclasses declare their `binding` and get `group_plural` / `resource_plural` from the URL
    configuration. Every binding authenticates the same way: a DRF token, a session, or HTTP Basic (the `xr` CLI
    and the Confluent clients send `http://user:password@host/...`)."""

    binding: Binding | None = None  # None: the binding mounted where the view's URL is (registry/http/binding.py)
    authentication_classes = [TokenAuthentication, SessionAuthentication, BasicAuthentication]
    content_negotiation_class = AnyAccept
    schema = RegistryAutoSchema()
    group_plural: str = ""  # set by the URL configuration for views of registry entities
    resource_plural: str = ""
    # the query flags each method takes (a HEAD those of its GET), checked before the method runs; a method not
    # named here checks none (or its own)
    flags: dict[str, frozenset[str]] = {}

    @property
    def gt(self):
        return registry_model[self.group_plural]

    @property
    def rt(self):
        return self.gt.resource_type(self.resource_plural)

    def base_url(self) -> str:
        return self.request.build_absolute_uri("/").rstrip("/")

    def read_scope(self):
        """The groups the caller may read (registry/access/read_scope.py): what reads of many groups keep to."""
        return read_scope(self.request)

    def context(self) -> WriteContext:
        return WriteContext.from_request(self.request, door=self.binding.name if self.binding else "")

    def address(
        self, gid: str | None = None, rid: str | None = None, vid: str | None = None, *, resources: bool = False
    ) -> EntityAddress:
        """The address of a write below this view's types: the groups, a group, its resources (`resources`),
        a resource or a version."""
        rplural = self.resource_plural or None if (resources or rid is not None) else None
        return EntityAddress(self.group_plural, gid, rplural, rid, vid)

    def referenced_by_response(self, path: str):
        """`GET PATH?referencedby` (docs/api-contract.md section 14): the referrers the caller may read."""
        found, scope = selectors.referenced_by(path, base_urls(self.base_url())), self.read_scope()
        return json_response({referrer: ref for referrer, ref in found.items() if not scope.hides(referrer)})

    def initialize_request(self, request, *args, **kwargs):
        if self.binding is None:
            self.binding = binding_for_path(request.path) or UNMOUNTED
        request.binding = self.binding  # what the kernel's readers and the 404/500 handlers consult
        drf_request = super().initialize_request(request, *args, **kwargs)
        drf_request.binding = self.binding
        return drf_request

    def handle_exception(self, exc):
        problem = problem_for_exception(exc, self.binding)
        if problem is None:
            return super().handle_exception(exc)
        binding = self.binding or UNMOUNTED
        response = binding.render_problem(problem, self.request)
        setattr(response, "exception", True)  # noqa: B010 - as DRF marks its own answers to exceptions
        if response.status_code == 405:
            response["Allow"] = ", ".join(self.allowed_methods)
        return response

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)  # authentication and permissions first
        refuse_nul(request, kwargs)
        check_group_read(self, request, kwargs)
        conditional.check_write_preconditions(self, request, kwargs)
        self.check_request(request, kwargs)
        method = request.method.lower()
        if method in self.http_method_names and hasattr(self, method):  # a method the view has not answers 405 first
            declared = self.flags.get("get" if method == "head" else method)
            if declared is not None:
                ((self.binding or UNMOUNTED).check_flags or check_flags)(request, declared)

    def check_request(self, request, kwargs) -> None:
        """What a binding checks on every request after the kernel's checks and before its flags (none here)."""

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        return conditional.finalize_read(request, response, marker=selectors.change_marker)

    def head(self, request, *args, **kwargs):
        response = self.get(request, *args, **kwargs)
        conditional.head_etag(request, response)
        if hasattr(response, "streaming_content"):
            response = HttpResponse(status=response.status_code, headers=dict(response.items()))
        else:
            length = len(response.content)
            response.content = b""
            response["Content-Length"] = str(length)
        return response
