"""The base of the Confluent API's views, on the kernel's (`registry.http.views.RegistryView`): auth (token,
`Bearer` token, session, HTTP Basic), conditional reads, the POSTs that only read (`read_only_check`: as public as
reads), the request reader (`registry.http.requests`: size limit, strict JSON with no NUL, lone surrogate, NaN or
duplicate key) and problems written in Confluent's words by the binding (`confluent.api.binding`). What stays here is
Confluent's own: its media types (`Accept`), query parameters read as its REST server reads them (the views declare
them per method in `flags`, as the kernel's views do; confluent.api.openapi describes them), `?offset`/`?limit`, and
subjects in the path that cannot be one (42208).
"""

from __future__ import annotations

import json
from urllib.parse import unquote_to_bytes

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpResponse
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework.authentication import TokenAuthentication

from registry.http.openapi import RegistryAutoSchema
from registry.http.permissions import check_read, only_reads
from registry.http.views import RegistryView

from .. import selectors
from ..errors import INVALID_SUBJECT, ConfluentError, schema_not_found
from ..models import SchemaId
from ..subjects import GROUPS, parse
from .binding import CONFLUENT, MEDIA_TYPE

ACCEPTABLE = {MEDIA_TYPE, "application/vnd.schemaregistry+json", "application/json", "*/*", "application/*"}


class BearerTokenAuthentication(TokenAuthentication):
    """`Authorization: Bearer KEY` with the same API tokens (the Confluent clients' bearer auth sends this form)."""

    keyword = "Bearer"


class BearerTokenScheme(OpenApiAuthenticationExtension):
    """`bearerAuth` in the OpenAPI document (drf-spectacular would describe it as a second `tokenAuth`)."""

    target_class = BearerTokenAuthentication
    name = "bearerAuth"

    def get_security_definition(self, auto_schema):
        return build_bearer_security_scheme_object(header_name="Authorization", token_prefix="Bearer")


def answer(data, status: int = 200) -> HttpResponse:
    return HttpResponse(json.dumps(data, ensure_ascii=False), status=status, content_type=MEDIA_TYPE)


def queries(request, name: str) -> list[str]:
    """Every value of a query parameter the view declares for the request's method (`flags`): a view reading one it
    does not declare is a bug (the OpenAPI description, made from the declarations, would leave it out)."""
    view, method = request.parser_context["view"], request.method.lower()
    if name not in view.flags.get("get" if method == "head" else method, ()):
        raise ImproperlyConfigured(f"{type(view).__name__}.{method} reads ?{name} without declaring it in its flags")
    return request.GET.getlist(name)


def query(request, name: str) -> str | None:
    """A single-valued query parameter as Confluent's REST server (Jersey's `@QueryParam`) reads it: the first value
    of a repeated one (Django's `QueryDict.get` would give the last)."""
    values = queries(request, name)
    return values[0] if values else None


def _given(request, name: str) -> str | None:
    """A boolean or integer parameter's value; None for an absent one, or one empty or blank (Jersey gives such a
    primitive parameter its default)."""
    value = query(request, name)
    return value if value is not None and value.strip() else None


def flag(request, name: str, default: bool = False) -> bool:
    """A query boolean, case-insensitive (`deleted=True`, `normalize=false`); 400 for anything else."""
    value = _given(request, name)
    if value is None:
        return default
    lowered = value.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    raise ConfluentError(400, f"query parameter {name} must be true or false, not {value[:40]!r}", status=400)


def number(request, name: str, default: int) -> int:
    value = _given(request, name)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError:
        raise ConfluentError(400, f"query parameter {name} must be an integer, not {value[:40]!r}", status=400)


def page(items: list, request) -> list:
    """`?offset` and `?limit` (-1 or absent: all)."""
    offset, limit = max(number(request, "offset", 0), 0), number(request, "limit", -1)
    return items[offset:] if limit < 0 else items[offset : offset + limit]


def _path(name: str, kind, description: str) -> OpenApiParameter:
    return OpenApiParameter(name, kind, OpenApiParameter.PATH, description=description)


# the path parameters of the routes (confluent.api.urls), as the OpenAPI document describes them
PATH_PARAMETERS = {
    "subject": _path("subject", OpenApiTypes.STR, "a subject (`:.ctx:name` in a context; may hold `/`)"),
    "version": _path(
        "version",
        {"type": "string", "pattern": "^(latest|-1|[0-9]+)$"},
        "a version number, `latest` or -1 (the newest)",
    ),
    "schema_id": _path("schema_id", OpenApiTypes.INT, "a schema id"),
    "guid": _path("guid", OpenApiTypes.STR, "a schema's GUID"),
    "name": _path("name", OpenApiTypes.STR, "a KEK's name (the DEK registry), a topic's (associations)"),
    "namespace": _path("namespace", OpenApiTypes.STR, "a topic's cluster id (`-`: any)"),
    "resource_id": _path("resource_id", OpenApiTypes.STR, "a topic's id"),
}


class ConfluentAutoSchema(RegistryAutoSchema):
    """The kernel's AutoSchema for the Confluent API (its operations are described in confluent.api.openapi), with
    the path parameters described."""

    def get_override_parameters(self):
        described = [PATH_PARAMETERS[name] for name in PATH_PARAMETERS if "{" + name + "}" in self.path]
        return [*described, *super().get_override_parameters()]


class ConfluentView(RegistryView):
    binding = CONFLUENT
    authentication_classes = [*RegistryView.authentication_classes, BearerTokenAuthentication]
    schema = ConfluentAutoSchema()  # the operations' descriptions: confluent.api.openapi
    flags: dict[str, frozenset[str]] = {}  # the query parameters each method reads (`query`, `flag`, `page`)

    def initial(self, request, *args, **kwargs):
        for value in kwargs.values():
            # Django keeps the escapes of bytes that are not UTF-8 (an encoded lone surrogate, %FF) in the path; a NUL
            # is a control character no subject holds (the kernel would call it a path naming nothing)
            try:
                unquote_to_bytes(value).decode("utf-8")
            except UnicodeError:
                raise ConfluentError(INVALID_SUBJECT, "the path is not UTF-8 (a lone surrogate?): it names no subject")
            if "\x00" in value:
                raise ConfluentError(INVALID_SUBJECT, "Invalid subject: a NUL character is not allowed in a subject")
        accept = request.headers.get("Accept", "")
        if accept:
            offered = {part.split(";")[0].strip().lower() for part in accept.split(",")}
            if not offered & ACCEPTABLE:
                raise ConfluentError(406, f"Not acceptable: this API answers {MEDIA_TYPE}", status=406)
        super().initial(request, *args, **kwargs)  # authentication, permissions, throttles, preconditions
        if not settings.REGISTRY_PUBLIC_READ and kwargs.get("subject") is not None and only_reads(self, request):
            # a subject lives in a schema group (its context's): with public reads off, its read rule
            check_read(request, f"/{GROUPS}/{parse(kwargs['subject'], allow_context=True).group_id}")

    def hidden_groups(self) -> set[str]:
        """The ids of the schema groups (contexts) the caller may not read (registry/access/read_scope.py): what lists and
        schema ids leave out."""
        return self.read_scope().hidden_ids(GROUPS)

    def readable_subjects(self, names: list[str]) -> list[str]:
        hidden = self.hidden_groups()
        return [name for name in names if parse(name, allow_context=True).group_id not in hidden] if hidden else names

    def readable_schema(self, schema_id: str) -> SchemaId:
        """The schema of an id, when some subject the caller may read has it; else 40403, as an unknown id (ids are
        global: no group to name in a refusal)."""
        found = selectors.schema_by_id(schema_id)
        if self.hidden_groups() and not self.readable_pairs(selectors.versions_of_id(found, deleted=True)):
            raise schema_not_found(f"Schema {schema_id} not found")
        return found

    def readable_schema_by_guid(self, guid: str) -> SchemaId:
        found = selectors.schema_by_guid(guid)
        if self.hidden_groups() and not self.readable_pairs(selectors.versions_of_id(found, deleted=True)):
            raise schema_not_found(f"Schema {guid} not found")
        return found

    def readable_pairs(self, pairs: list[dict]) -> list[dict]:
        """The (subject, version) pairs of a schema id in subjects the caller may read."""
        names = set(self.readable_subjects(sorted({pair["subject"] for pair in pairs})))
        return [pair for pair in pairs if pair["subject"] in names]
