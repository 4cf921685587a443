"""The plumbing of every `/registry` view: 1.0 error documents, `xRegistry-*` headers, the root link, flags.

Auth, permissions and HTTP caching are those of the 0.5 binding (`registry/http/views.py`); HTTP Basic auth
is accepted besides tokens and sessions (`xr` sends credentials as `http://user:password@host/registry`).
Errors keep `application/problem+json` and take the `type` URIs of the 1.0 spec ("Error Processing").
"""

from __future__ import annotations

from django.http import HttpResponse
from rest_framework import exceptions
from rest_framework.authentication import BasicAuthentication, SessionAuthentication, TokenAuthentication

from ..attributes import check_id
from ..errors import Problem
from ..http.problems import problem_from_drf
from ..http.views import RegistryView, json_response
from ..model import registry_model
from .errors import SPEC, V1Problem
from .flags import check_values, collections_only
from .mapping import mappings, v1_mappings
from .representations import BINARY

# 0.5 problem kinds -> (1.0 error type, status in the 1.0 binding)
ERROR_TYPES = {
    "bad-request": (SPEC + "bad_request", 400),
    "malformed-json": (SPEC + "parsing_data", 400),
    "unknown-flag": (SPEC + "bad_flag", 400),
    "invalid-id": (SPEC + "malformed_id", 400),
    "invalid-attribute": (SPEC + "invalid_attribute", 400),
    "invalid-document": (SPEC + "format_violation", 400),
    "too-many-entities": (SPEC + "too_large", 406),
    "not-found": (SPEC + "not_found", 404),
    "method-not-allowed": (SPEC + "action_not_supported", 405),
    "id-exists": (SPEC + "bad_request", 409),
    "epoch-mismatch": (SPEC + "mismatched_epoch", 400),
    "conflict": (SPEC + "bad_request", 409),
    "incompatible-version": (SPEC + "compatibility_violation", 400),
    "too-large": (SPEC + "too_large", 413),
    "server-error": (SPEC + "server_error", 500),
    "service-unavailable": (SPEC + "server_busy", 503),
}


def error_response(problem: Problem, request) -> HttpResponse:
    """A problem document in the 1.0 form: `type`, `title`, `detail`, `subject`, `instance`."""
    if isinstance(problem, V1Problem):
        type_uri, status = problem.error_type, problem.status
    else:
        type_uri, status = ERROR_TYPES.get(problem.kind, (problem.type_uri, problem.status))
        if problem.kind == "too-large" or problem.status in (401, 403, 412, 414, 415, 431):
            status = problem.status
    body = problem.as_json(request.build_absolute_uri(request.path))
    body["detail"] = v1_paths(body.get("detail", ""))
    if body.get("errors"):
        body["errors"] = [
            v1_paths(e)
            if isinstance(e, str)
            else {k: v1_paths(v) if isinstance(v, str) else v for k, v in e.items()}
            if isinstance(e, dict)
            else e
            for e in body["errors"]
        ]
    body["type"] = type_uri
    body["status"] = status
    body["subject"] = (
        getattr(problem, "subject", None) or request.path.removeprefix("/registry").replace("$details", "") or "/"
    )
    if isinstance(problem, V1Problem):
        body["title"] = problem.title_for(body["subject"])
        if problem.title_args:
            body["args"] = dict(problem.title_args)
    response = json_response(body, status=status)
    response["Content-Type"] = "application/problem+json"
    for name, value in problem.headers.items():
        response[name] = value
    return response


def v1_paths(text: str) -> str:
    """Entity paths of the store (`/definitionGroups/g/definitions/d`) in a message, written in 1.0 names."""
    for gm in mappings.values():
        text = text.replace(f"/{gm.plural}/", f"/{gm.v1_plural}/")
        for rm in gm.resources:
            text = text.replace(f"/{rm.plural}/", f"/{rm.v1_plural}/")
    return text


def root_url(request) -> str:
    return request.build_absolute_uri("/registry").rstrip("/")


def gm_for(v1_plural: str):
    return v1_mappings[v1_plural]


class XRegistryView(RegistryView):
    """A view of the 1.0 binding; `v1_group` / `v1_resource` are set by the generated routes."""

    authentication_classes = [TokenAuthentication, SessionAuthentication, BasicAuthentication]
    v1_group: str | None = None
    v1_resource: str | None = None

    @property
    def gm(self):
        return v1_mappings[self.v1_group]

    @property
    def rm(self):
        return self.gm.by_v1_plural[self.v1_resource]

    @property
    def gt(self):
        return registry_model[self.gm.plural]

    @property
    def rt(self):
        return self.gt.resource_type(self.rm.plural)

    @property
    def group_plural(self):
        return self.gm.plural

    @property
    def resource_plural(self):
        return self.rm.plural if self.v1_resource else None

    def base_url(self) -> str:
        return root_url(self.request)

    def context(self):
        ctx = super().context()
        ctx.binding = "xregistry-1.0"
        return ctx

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        BINARY.set("binary" in request.GET and request.GET.get("binary", "").lower() != "false")
        if request.method.lower() in self.http_method_names and hasattr(self, request.method.lower()):
            check_values(request)  # an undeclared method answers 405 first
            for name in ("gid", "rid", "vid"):  # ids in the path: 400 before anything is looked up or written
                if name in kwargs:
                    check_id(kwargs[name].removesuffix("$details"), name)
            if collections_only(request) and not getattr(self, "takes_collections", False):
                raise V1Problem(
                    "bad_flag", "?collections is only allowed on the registry or a group", args={"flag": "collections"}
                )
            if "sort" in request.GET and not getattr(self, "collection", False):
                raise V1Problem("sort_noncollection", "?sort applies to a collection of groups, resources or versions")

    def handle_exception(self, exc):
        if isinstance(exc, Problem):
            return error_response(exc, self.request)
        if isinstance(exc, exceptions.APIException):
            response = error_response(problem_from_drf(exc), self.request)
            if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
                response["WWW-Authenticate"] = 'Basic realm="registry"'
            return response
        return super().handle_exception(exc)

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        response["Link"] = ", ".join(filter(None, [response.get("Link"), f"<{root_url(request)}/>;rel=xregistry-root"]))
        return response


def registered_mapping(plural: str):
    return mappings.get(plural)
