"""AsyncAPI at `/registry` (the xRegistry 1.0 binding's door: its errors, its Basic auth):

- `POST /registry/asyncapi[?prefix=P][&dryrun=true]`: import AsyncAPI 2.6 / 3.x documents (`asyncapi.services`);
  the body is one document (JSON or YAML), or `multipart/form-data` with `document` parts and the files they refer
  to as `file` parts (named by their file name);
- `GET /registry/messagegroups/G/asyncapi?role=producer|consumer`, `GET /registry/endpoints/E/asyncapi[?role=...]`
  and `GET /registry/asyncapi?messagegroup=G&endpoint=E...&role=...`: AsyncAPI 3.0 (`?version=3.1.0`: 3.1), JSON
  or YAML by `Accept`.

Thin: the import service (`services.py`), the export's reads (`export_reads.py`) and `exporting.py` do the work.
"""

from __future__ import annotations

import posixpath

import yaml
from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema

from registry.bindings.v10.base import XRegistryView
from registry.bindings.v10.errors import V1Problem
from registry.bindings.v10.openapi import ERRORS
from registry.domain.errors import Problem
from registry.http.permissions import check_read
from registry.http.requests import body_bytes
from registry.http.views import json_response
from registry.services.references import base_urls

from .. import export_reads
from ..exporting import DEFAULT_EXPORT_VERSION, EXPORT_VERSIONS, export_asyncapi
from ..services import import_asyncapi
from ..sources import Source

TAGS = ["asyncapi"]
YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml", "application/vnd.aai.asyncapi+yaml")
DOCUMENT_TYPES = ("application/json", "application/vnd.aai.asyncapi+json", "application/vnd.aai.asyncapi", *YAML_TYPES)
ROLES = ("producer", "consumer")
YamlDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml's C emitter, when PyYAML has it: faster


def _flags(request, allowed: set[str]) -> None:
    for name in request.GET:
        if name not in allowed:
            raise V1Problem("bad_flag", f"the flag {name!r} is not supported here", args={"flag": name})


def _role(request, default: str = "producer") -> str:
    role = request.GET.get("role", default)
    if role not in ROLES:
        raise V1Problem("bad_flag", f"role must be producer or consumer, not {role!r}", args={"flag": "role"})
    return role


def _version(request) -> str:
    version = request.GET.get("version", DEFAULT_EXPORT_VERSION)
    if version not in EXPORT_VERSIONS:
        raise V1Problem(
            "bad_flag",
            f"version must be one of {', '.join(EXPORT_VERSIONS)} (the AsyncAPI versions an export is written in), "
            f"not {version!r}",
            args={"flag": "version"},
        )
    return version


def _true(request, name: str) -> bool:
    value = request.GET.get(name)
    if value is None:
        return False
    if value.lower() in ("", "true", "1"):
        return True
    if value.lower() in ("false", "0"):
        return False
    raise V1Problem("bad_flag", f"{name} is true or false, not {value!r}", args={"flag": name})


def asyncapi_response(request, document: dict) -> HttpResponse:
    """The document as YAML when `Accept` (or `?format=yaml`, for a link) asks for YAML, else as JSON."""
    accept = request.headers.get("Accept", "").lower()
    wanted = request.GET.get("format")
    if wanted not in (None, "json", "yaml"):
        raise V1Problem("bad_flag", f"format is json or yaml, not {wanted!r}", args={"flag": "format"})
    if wanted == "json":
        accept = ""
    if wanted == "yaml" or any(kind in accept for kind in YAML_TYPES):
        kind = "application/vnd.aai.asyncapi+yaml" if "vnd.aai.asyncapi+yaml" in accept else "application/yaml"
        text = yaml.dump(document, Dumper=YamlDumper, sort_keys=False, allow_unicode=True)
        return HttpResponse(text, content_type=f"{kind}; charset=utf-8")
    response = json_response(document)
    if "application/vnd.aai.asyncapi+json" in accept:
        response["Content-Type"] = "application/vnd.aai.asyncapi+json; charset=utf-8"
    return response


def uploaded(files) -> callable:
    """`read_beside` over the files of a multipart upload: a `$ref` names a file by its name (its directories, which
    browsers do not send, are matched when the name alone is unique)."""
    by_name = {}
    for item in files:
        by_name.setdefault(item.name, []).append(item)

    def read(name: str) -> bytes:
        if name.startswith("../") or name == "..":
            raise ValueError("a file outside the document's directory is not read")
        found = by_name.get(name) or by_name.get(posixpath.basename(name)) or []
        if len(found) != 1:
            raise FileNotFoundError(name)
        found[0].seek(0)
        return found[0].read()

    return read


DESCRIPTION_IMPORT = (
    "Imports AsyncAPI 2.6, 3.0 and 3.1 documents (docs/asyncapi.md): servers become endpoints, channels message groups, "
    "messages message definitions (CloudEvents when their headers or traits say so), payloads schemas whose version "
    "is `info.version`. The body is one document (JSON or YAML), or `multipart/form-data` with `document` parts and "
    "the files their `$ref`s name as `file` parts. All or nothing; re-importing the same document changes nothing. "
    "`prefix`: the prefix of the group ids (default: the document's title in PascalCase); `dryrun=true`: the same "
    "answer, nothing written."
)
REPORT = OpenApiResponse(OpenApiTypes.OBJECT, "{created: [paths], updated: [paths], unchanged: [paths]}")
ASYNCAPI = {
    (200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, "an AsyncAPI 3.0 (or 3.1) document"),
    (200, "application/yaml"): OpenApiResponse(
        OpenApiTypes.OBJECT, "the same document as YAML (Accept: application/yaml)"
    ),
}
ROLE = OpenApiParameter(
    "role", OpenApiTypes.STR, OpenApiParameter.QUERY, enum=list(ROLES), description="producer (send) or consumer"
)
FORMAT = OpenApiParameter(
    "format", OpenApiTypes.STR, OpenApiParameter.QUERY, enum=["json", "yaml"], description="instead of Accept"
)
VERSION = OpenApiParameter(
    "version",
    OpenApiTypes.STR,
    OpenApiParameter.QUERY,
    enum=list(EXPORT_VERSIONS),
    description=f"the AsyncAPI version of the document (default {DEFAULT_EXPORT_VERSION})",
)


class AsyncAPIView(XRegistryView):
    """`POST /registry/asyncapi` imports; `GET` exports the message groups and endpoints named in the query."""

    # an import writes through the registry's services, which check each entity's permission (registry.access.permissions)

    @extend_schema(
        tags=TAGS,
        operation_id="post_registry_asyncapi",
        summary="Import AsyncAPI documents",
        description=DESCRIPTION_IMPORT,
        parameters=[
            OpenApiParameter("prefix", OpenApiTypes.STR, OpenApiParameter.QUERY, description="group id prefix"),
            OpenApiParameter("dryrun", OpenApiTypes.BOOL, OpenApiParameter.QUERY, description="write nothing"),
        ],
        request={
            "application/json": OpenApiTypes.OBJECT,
            "application/yaml": OpenApiTypes.STR,
            "multipart/form-data": OpenApiTypes.OBJECT,
        },
        responses={200: REPORT, **ERRORS, (413, "application/problem+json"): ERRORS[(400, "application/problem+json")]},
    )
    def post(self, request):
        _flags(request, {"prefix", "dryrun"})
        dry_run = _true(request, "dryrun")
        prefix = request.GET.get("prefix")
        media = request.META.get("CONTENT_TYPE", "").split(";")[0].strip().lower()
        if media == "multipart/form-data":
            limit = settings.REGISTRY_MAX_BODY_BYTES
            declared = request.META.get("CONTENT_LENGTH") or "0"
            if declared.isdigit() and int(declared) > limit:
                raise Problem(
                    "too-large", f"the body has {declared} bytes; the limit is {limit} (REGISTRY_MAX_BODY_BYTES)"
                )
            files = request._request.FILES  # Django's multipart parser (the views' negotiation reads JSON only)
            documents = files.getlist("document")
            if not documents:
                raise Problem("bad-request", "a multipart import needs at least one `document` part")
            read = uploaded(files.getlist("file"))
            sources = [Source(d.name or "document", d.read(), read_beside=read) for d in documents]
        else:
            if media and media not in DOCUMENT_TYPES:
                raise Problem(
                    "unsupported-media-type",
                    f"an AsyncAPI document is JSON or YAML (or a multipart upload), not {media}",
                )
            raw = body_bytes(request)
            if not raw.strip():
                raise Problem("bad-request", "the body must be an AsyncAPI document")
            # no type, or AsyncAPI's own without a suffix: JSON or YAML by the first character
            yaml_format = None if media in ("", "application/vnd.aai.asyncapi") else media in YAML_TYPES
            sources = [Source("document", raw, yaml_format=yaml_format)]
        ctx = self.context()
        ctx.door = "asyncapi"  # the audit trail names the AsyncAPI import, not the 1.0 binding it answers in
        report = import_asyncapi(ctx=ctx, sources=sources, group_prefix=prefix, dry_run=dry_run)
        return json_response(report.as_json())

    @extend_schema(
        tags=TAGS,
        operation_id="get_registry_asyncapi",
        summary="AsyncAPI 3.0 or 3.1 of several message groups and endpoints",
        parameters=[
            OpenApiParameter("messagegroup", OpenApiTypes.STR, OpenApiParameter.QUERY, many=True),
            OpenApiParameter("endpoint", OpenApiTypes.STR, OpenApiParameter.QUERY, many=True),
            ROLE,
            FORMAT,
            VERSION,
        ],
        responses={**ASYNCAPI, **ERRORS},
    )
    def get(self, request):
        _flags(request, {"messagegroup", "endpoint", "role", "format", "version"})
        role, version = _role(request), _version(request)
        gids, eids = request.GET.getlist("messagegroup"), request.GET.getlist("endpoint")
        if not gids and not eids:
            raise V1Problem(
                "bad_request", "name at least one messagegroup or endpoint", args={"error_detail": "no entity"}
            )
        for path in [f"/definitionGroups/{gid}" for gid in gids] + [f"/endpoints/{eid}" for eid in eids]:
            check_read(request, path)  # named in the query, not the path: their read rule (public reads off)
        bases = base_urls(request.build_absolute_uri("/").rstrip("/"))
        referrers = export_reads.endpoints_by_group(bases) if gids else {}
        named = export_reads.message_groups(gids, bases)
        endpoints = export_reads.endpoints(eids, bases)
        export_reads.readable(self.read_scope(), named, endpoints, referrers)
        groups = [(g, referrers.get(g.gid, [])) for g in named]
        document = export_asyncapi(
            groups=groups, endpoints=endpoints, role=role, title=settings.REGISTRY_NAME, version=version
        )
        return asyncapi_response(request, document)


class MessageGroupAsyncAPIView(XRegistryView):
    group_plural = "definitionGroups"  # (1.0's messagegroups)

    @extend_schema(
        tags=TAGS,
        operation_id="get_registry_messagegroups_asyncapi",
        summary="AsyncAPI 3.0 or 3.1 of a message group",
        description="A channel with the group's messages, an operation per message (`send` for role=producer, "
        "`receive` for consumer), the payload schemas, and the endpoints that reference the group as servers.",
        parameters=[ROLE, FORMAT, VERSION],
        responses={**ASYNCAPI, **ERRORS},
    )
    def get(self, request, gid):
        _flags(request, {"role", "format", "version"})
        role, version = _role(request), _version(request)
        bases = base_urls(request.build_absolute_uri("/").rstrip("/"))
        (group,) = export_reads.message_groups([gid], bases)
        referrers = export_reads.endpoints_by_group(bases)
        export_reads.readable(self.read_scope(), [group], [], referrers)
        title = group.attributes.get("name") or group.gid
        document = export_asyncapi(
            groups=[(group, referrers.get(group.gid, []))],
            endpoints=[],
            role=role,
            title=title,
            version=version,
        )
        return asyncapi_response(request, document)


class EndpointAsyncAPIView(XRegistryView):
    group_plural = "endpoints"

    @extend_schema(
        tags=TAGS,
        operation_id="get_registry_endpoints_asyncapi",
        summary="AsyncAPI 3.0 or 3.1 of an endpoint",
        description="The endpoint as the server, a channel per message group it references; the role defaults to "
        "the endpoint's usage.",
        parameters=[ROLE, FORMAT, VERSION],
        responses={**ASYNCAPI, **ERRORS},
    )
    def get(self, request, eid):
        _flags(request, {"role", "format", "version"})
        version = _version(request)
        (endpoint,) = export_reads.endpoints([eid], base_urls(request.build_absolute_uri("/").rstrip("/")))
        export_reads.readable(self.read_scope(), [], [endpoint], {})
        usage = endpoint.attributes.get("usage") or []
        role = _role(request, "producer" if "producer" in usage else "consumer")
        title = endpoint.attributes.get("name") or endpoint.eid
        document = export_asyncapi(groups=[], endpoints=[endpoint], role=role, title=title, version=version)
        return asyncapi_response(request, document)
