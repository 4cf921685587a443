"""OpenAPI pieces every binding's descriptions share (drf-spectacular): the problem document, error responses,
the AutoSchema of the kernel's views (operation ids from the path, optional authentication on public reads), and
the security scheme of the kernel's HTTP Basic authentication."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.authentication import BasicScheme
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers

PROBLEM = inline_serializer(
    "Problem",
    fields={
        "type": serializers.CharField(),
        "title": serializers.CharField(),
        "status": serializers.IntegerField(),
        "detail": serializers.CharField(),
        "instance": serializers.CharField(required=False),
        "errors": serializers.ListField(child=serializers.JSONField(), required=False),
        "referencedby": serializers.DictField(
            child=serializers.JSONField(),
            required=False,
            help_text="409 on a delete: the entities still referencing it",
        ),
        "subject": serializers.CharField(
            required=False, help_text="xRegistry 1.0 binding: the entity's xid or the request path the error is about"
        ),
        "args": serializers.DictField(
            child=serializers.CharField(),
            required=False,
            help_text="xRegistry 1.0 binding: the substitution values of the title",
        ),
    },
)


def _problem(description: str) -> OpenApiResponse:
    return OpenApiResponse(response=PROBLEM, description=description)


PROBLEM_DESCRIPTIONS = {
    400: "invalid request",
    401: "authentication required",
    403: "permission denied",
    404: "unknown entity",
    405: "method not allowed",
    409: "conflict (id, epoch, compatibility, still referenced)",
    413: "body too large",
    415: "unsupported media type",
    429: "too many requests (anonymous callers of the checks and the map: REGISTRY_THROTTLE_ANON_*)",
    503: "the check ran past its budget (REGISTRY_CHECK_SECONDS), or a service is unavailable",
}


def problem_responses(*codes: int) -> dict:
    """Responses for these error statuses, as `application/problem+json` documents (for extend_schema)."""
    return {(code, "application/problem+json"): _problem(PROBLEM_DESCRIPTIONS[code]) for code in codes}


class RegistryBasicScheme(BasicScheme):
    """`basicAuth`, as drf-spectacular describes DRF's own HTTP Basic, for registry/http/basic_auth.py's (DRF's, its
    verified credentials remembered): drf-spectacular matches DRF's class only, not its subclasses."""

    target_class = "registry.http.basic_auth.BasicAuthentication"


class RegistryAutoSchema(AutoSchema):
    """Operation ids from the path: `get_schemaGroups_schemas` for a collection, `..._item` for one entry;
    reads that anyone may make (REGISTRY_PUBLIC_READ, views without `read_permissions`) say that
    authentication is optional."""

    def get_auth(self):
        auths = super().get_auth()
        public = settings.REGISTRY_PUBLIC_READ and not getattr(self.view, "read_permissions", None)
        reads = ("GET", "HEAD") if not getattr(self.view, "read_only_check", False) else ("GET", "HEAD", "POST")
        if self.method in reads and public and {} not in auths:
            auths.append({})
        return auths

    def get_operation_id(self):
        segments = [s for s in self.path.strip("/").split("/") if s]
        names = [s for s in segments if not s.startswith("{")]
        item = bool(segments) and segments[-1].startswith("{")
        base = "_".join(names) or "root"
        return f"{self.method.lower()}_{base}{'_item' if item else ''}"
