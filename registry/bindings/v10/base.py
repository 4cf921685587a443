"""The xRegistry 1.0 binding's declaration and the plumbing of its views: 1.0 error documents, the root link,
flags, ids in paths.

Reading requests, auth, permissions and conditional requests are the kernel's (`registry/http/`); this binding
declares `xRegistry-*` headers, bodies without a media type read as JSON (the `xr` CLI sends none), HTTP Basic
challenges, and writes problems in the 1.0 form: `type` URIs of the 1.0 spec ("Error Processing"), `title`,
`detail` and `subject` naming entities by their 1.0 xids, still `application/problem+json`.
"""

from __future__ import annotations

from functools import cached_property

from django.conf import settings
from django.http import HttpResponse

from ...domain.attributes import check_id
from ...domain.errors import Problem, not_found
from ...http.binding import Binding
from ...http.entity_views import EntityView
from ...http.problems import problem_body, problem_response_of
from ...http.requests import flag
from ...store import selectors
from ...store.paging import PageRequest
from .document_view import document_view
from .errors import HTTP_SPEC, SPEC, TITLES, V1Problem, spec_title
from .flags import (
    Inline,
    check_flags,
    check_values,
    filters,
    page_to_load,
    sorted_collection,
)
from .mapping import common_attribute_to_v10, mappings, ordered_mappings, v1_attribute_name, v1_path
from .reads import inlined_types, render_group
from .representations import BINARY

# the kernel's problem kinds -> (1.0 error type, status in the 1.0 binding, the HTTP header it is about)
ERROR_TYPES = {
    "bad-request": (SPEC + "bad_request", 400, None),
    "malformed-json": (SPEC + "parsing_data", 400, None),
    "unknown-flag": (SPEC + "bad_flag", 400, None),
    "invalid-id": (SPEC + "malformed_id", 400, None),
    "invalid-attribute": (SPEC + "invalid_attribute", 400, None),
    "invalid-document": (SPEC + "format_violation", 400, None),
    "too-many-entities": (SPEC + "too_large", 406, None),
    "not-found": (SPEC + "not_found", 404, None),
    "method-not-allowed": (SPEC + "action_not_supported", 405, None),
    "id-exists": (SPEC + "bad_request", 409, None),
    "epoch-mismatch": (SPEC + "mismatched_epoch", 400, None),
    "conflict": (SPEC + "bad_request", 409, None),
    "incompatible-version": (SPEC + "compatibility_violation", 400, None),
    "too-large": (SPEC + "too_large", 413, None),
    "server-error": (SPEC + "server_error", 500, None),
    "service-unavailable": (SPEC + "server_busy", 503, None),
    "too-many-requests": (SPEC + "server_busy", 429, None),
    "not-acceptable": (SPEC + "bad_request", 406, None),
    "forbidden": (SPEC + "bad_request", 403, None),
    # no 1.0 error of their own: the HTTP binding's header_error, naming the header, with the HTTP status
    "unauthorized": (HTTP_SPEC + "header_error", 401, "Authorization"),
    "unsupported-media-type": (HTTP_SPEC + "header_error", 415, "Content-Type"),
    "precondition-failed": (HTTP_SPEC + "header_error", 412, "If-Match"),
    "length-required": (HTTP_SPEC + "header_error", 411, "Content-Length"),
    "uri-too-long": (HTTP_SPEC + "header_error", 414, None),
    "header-fields-too-large": (HTTP_SPEC + "header_error", 431, None),
    "expectation-failed": (HTTP_SPEC + "header_error", 417, "Expect"),
}


def request_subject(request) -> str:
    """The request's path below the binding's root, as the spec's `<request_path>` subjects are written."""
    return request.path.removeprefix(settings.REGISTRY_XR10_PATH.rstrip("/")).replace("$details", "") or "/"


def error_response(problem: Problem, request) -> HttpResponse:
    """A problem document in the 1.0 form: `type`, `title`, `detail`, `subject`, `args`, `instance`. Entities are
    named by their 1.0 xids (`problem.subject` is a store path, written by `v1_path`), never by rewriting text."""
    names = v1_attribute_name(problem.subject) if problem.subject else common_attribute_to_v10
    body = problem_body(problem, request.build_absolute_uri(request.path), v1_path, names, v1_attribute_name)
    if isinstance(problem, V1Problem):
        type_uri, status, header = problem.error_type, problem.status, None
        subject = problem.v1_subject or request_subject(request)
    else:
        type_uri, status, header = ERROR_TYPES.get(problem.kind, (SPEC + "bad_request", problem.status, None))
        subject = v1_path(problem.subject) if problem.subject else request_subject(request)
        if problem.kind == "not-found" and problem.subject is None and not getattr(request, "binding", None):
            type_uri = HTTP_SPEC + "api_not_found"  # a path no route of the binding serves
    body.update(type=type_uri, status=status, subject=subject)
    if isinstance(problem, V1Problem):
        body["title"] = problem.title_for(subject)
        if problem.title_args:
            body["args"] = dict(problem.title_args)
    elif header is not None:
        body["title"] = f'For "{subject}", there was an error processing HTTP header "{header}": {body["detail"]}'
        body["args"] = {"name": header, "error_detail": body["detail"]}
    else:
        args = {"error_detail": body["detail"].rstrip("."), **problem.values}
        title = spec_title(type_uri.rpartition("#")[2], {**args, "subject": subject})
        if title is not None:
            body["title"] = title
            body["args"] = {k: v for k, v in args.items() if f"<{k}>" in TITLES[type_uri.rpartition("#")[2]]}
    return problem_response_of(body, problem, status)


XREGISTRY = Binding(
    name="xregistry-1.0",
    render_problem=error_response,
    header_prefix="xRegistry",
    percent_encoded_headers=True,
    bare_body_is_json=True,
    challenge='Basic realm="registry"',
    check_flags=check_flags,
    on_unless_false=frozenset({"doc", "collections", "binary"}),
)


def root_url(request) -> str:
    return request.build_absolute_uri(settings.REGISTRY_XR10_PATH).rstrip("/")


class XRegistryView(EntityView):
    """A view of the 1.0 binding; the generated routes set the types it serves."""

    # (the docstring is the OpenAPI description of the views that have none) the routes set the types' stored
    # plurals (`group_plural`, `resource_plural`), as the 0.5 binding's do; their 1.0 mappings are `gm` and `rm`
    binding = XREGISTRY
    limits_inline = True  # an answer `?inline` fills is refused above REGISTRY_MAX_INLINE_ENTITIES (406 too_large)

    def __init_subclass__(cls, **kwargs):
        """A view with a PUT, and a collection with a POST, take PATCH the same way (the write reads
        `request.method` where a PATCH merges): its own function, so that OpenAPI describes it apart."""
        super().__init_subclass__(**kwargs)
        target = "put" if hasattr(cls, "put") else "post" if getattr(cls, "collection", False) else None
        if target is not None and hasattr(cls, target) and "patch" not in cls.__dict__:

            def patch(self, request, *args, **kwargs):
                return getattr(self, target)(request, *args, **kwargs)

            cls.patch = patch

    @property
    def gm(self):
        return mappings[self.group_plural]

    @property
    def rm(self):
        return self.gm.by_plural[self.resource_plural]

    # what the kernel's entity views (registry/http/entity_views.py) read in the 1.0 way
    @cached_property
    def inline(self) -> Inline:
        return Inline(self.request)

    @property
    def singular(self) -> str:
        """The 1.0 name of a member of the collection asked for (`<SINGULAR>id` in `?filter` and `?sort`)."""
        if self.level == "version":
            return "version"
        return self.gm.v1_singular if self.level == "group" else self.rm.v1_singular

    def inline_below(self) -> bool:
        """A group is read with its resources when `?inline` names one of their collections."""
        return self.level == "group" and bool(inlined_types(self.gm, self.inline))

    def inlined_types(self) -> dict[str, bool]:
        """Only the collections `?inline` names, their documents only when it shows them."""
        return inlined_types(self.gm, self.inline)

    def group_json(self, group) -> dict:
        return render_group(self.base, self.gm, group, self.inline, doc=flag(self.request, "doc"))

    def filters(self) -> list[str]:
        return filters(self.request, self.singular)

    def page_to_load(self, page: PageRequest) -> PageRequest:
        return page_to_load(self.request, page)

    def arranged(self, body: dict, page: PageRequest) -> dict:
        return sorted_collection(body, self.request, self.singular, page)

    def shown(self, data: dict) -> dict:
        """rc4's document view when the request says `?doc` (document_view.py)."""
        return document_view(data, self.base) if flag(self.request, "doc") else data

    def load(self, gid, rid, *, with_content=True):
        """The group and the resource, with its versions (their documents `with_content`)."""
        group = selectors.get_group(self.gt, gid)
        found = selectors.resources_with_versions(group, self.rm.plural, with_content=with_content, ids=[rid])
        if not found:
            raise not_found(f"/{self.gm.plural}/{gid}/{self.rm.plural}/{rid}")
        return group, found[0]

    def base_url(self) -> str:
        return root_url(self.request)

    def collection_urls(self) -> list[str]:
        """The URLs of the group collections (the paged way to read what a whole-registry answer would hold)."""
        return [f"{self.base_url()}/{gm.v1_plural}" for gm in ordered_mappings()]

    def check_request(self, request, kwargs):
        BINARY.set(flag(request, "binary"))
        if request.method.lower() in self.http_method_names and hasattr(self, request.method.lower()):
            check_values(request)  # an undeclared method answers 405 first
            for name in ("gid", "rid", "vid"):  # ids in the path: 400 before anything is looked up or written
                if name in kwargs:
                    check_id(kwargs[name].removesuffix("$details"), name)
            if flag(request, "collections") and not getattr(self, "takes_collections", False):
                raise V1Problem(
                    "bad_flag", "?collections is only allowed on the registry or a group", args={"flag": "collections"}
                )
            if "sort" in request.GET and not getattr(self, "collection", False):
                raise V1Problem("sort_noncollection", "?sort applies to a collection of groups, resources or versions")

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        response["Link"] = ", ".join(filter(None, [response.get("Link"), f"<{root_url(request)}/>;rel=xregistry-root"]))
        return response
