"""`GET /map.svg?root=PATH`: the catalog map (registry/governance/catalog_map.py) as an SVG image, public like other reads,
so that a README or a wiki can embed it. Without `root`, the whole registry."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema

from ...access.throttles import AnonymousRateThrottle
from ...domain import references
from ...domain.errors import Problem
from ...governance.catalog_map import MapUnavailable, catalog_map_svg
from ...governance.dashboard import admin_url_of
from ...http.openapi import PROBLEM
from ...http.permissions import check_read
from ...http.requests import check_flags
from ...services.references import base_urls
from ..v10.mapping import reference_to_v05
from .binding import CoreView
from .openapi import READ_ERRORS


def map_root(value: str | None) -> str | None:
    """The entity path a `root` names (`/G/g`, `/G/g/R/r`, a version path, in the names of either binding:
    `/registry/messagegroups/g` is `/definitionGroups/g`), or None for the whole registry."""
    if value is None or value in ("", "/", "/registry", "/registry/"):
        return None
    if value.startswith("/registry/"):
        value = value[len("/registry") :]
    if value.startswith("/") and references.resolve(value) is None:
        value = reference_to_v05(value).removeprefix("#")
    if not value.startswith("/"):
        raise Problem(
            "bad-request",
            f"root must be the path of a group, resource or version "
            f"(/endpoints/ID, /schemaGroups/ID/schemas/ID, ...), not {value!r}",
        )
    if references.resolve(value) is None:
        raise Problem("not-found", f"{value} names no group, resource or version of this registry")
    return value


class CatalogMapView(CoreView):
    """The catalog map around `root` as SVG: boxes link to the admin pages of the entities (sign-in needed there).
    Graphviz lays it out; a registry above 60 resources is drawn one box per group."""

    throttle_classes, throttle_scope = [AnonymousRateThrottle], "map"  # issue 24: anonymous callers

    @extend_schema(
        summary="The catalog map as SVG: what connects to what around root (default: the registry)",
        parameters=[
            OpenApiParameter(
                "root", {"type": "string", "pattern": "^(/.*)?$"}, description="a group, resource or version path"
            )
        ],
        responses={
            (200, "image/svg+xml"): OpenApiResponse(OpenApiTypes.BINARY, "the map"),
            **READ_ERRORS,
            (429, "application/problem+json"): OpenApiResponse(PROBLEM, "too many anonymous maps"),
            (503, "application/problem+json"): OpenApiResponse(
                PROBLEM, "Graphviz is not installed on this server, failed, or ran past REGISTRY_MAP_SECONDS"
            ),
        },
        tags=["map"],
    )
    def get(self, request):
        check_flags(request, allowed={"root"})
        root = map_root(request.GET.get("root"))
        if root is not None:
            check_read(request, root)  # with public reads off, the root's group's read rule
        try:
            svg = catalog_map_svg(
                root=root,
                base_urls=base_urls(self.base_url()),
                link=admin_url_of,
                title=f"{settings.REGISTRY_NAME}: {root or 'the whole registry'}",
                scope=self.read_scope(),
            )
        except MapUnavailable as exc:  # no dot, dot failed, or past REGISTRY_MAP_SECONDS
            raise Problem("service-unavailable", str(exc), members={"budget": exc.budget} if exc.budget else None)
        return HttpResponse(svg, content_type="image/svg+xml")
