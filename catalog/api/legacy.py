"""One implementation of the two older bindings (Schema Registry API section 3, Message Catalog API
section 4): the same operations over a group type and its resource type, in the older shapes.

Mapping to the core binding (docs/older-bindings.md): lists are JSON arrays of ids; a version is an
integer N, stored as the version id "N" (ids the core binding gave other names are not visible here);
attributes come in headers or the query string and go out as headers; `createdtimeutc`/`updatedtimeutc`
are the core `createdOn`/`modifiedOn`; `authority` is a schema attribute defaulting to this binding's URL.
Every write goes through the registry services, so validation, epochs and change events are shared.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from django.http import HttpResponse

from registry import selectors, services
from registry.api.base import RegistryView, json_response
from registry.api.requests import check_flags, json_body, version_input
from registry.attributes import timestamp, version_sort_key
from registry.errors import Problem
from registry.filters import apply as apply_filters
from registry.filters import parse as parse_filters
from registry.models import Resource, Version
from registry.paging import PageRequest, link_header
from registry.representations import document_bytes, merged_attributes

ATTRIBUTE_HEADERS = ("format", "description", "name", "authority")
GROUP_PERMISSIONS = {"PUT": ("registry.add_group", "registry.change_group"), "DELETE": "registry.delete_group"}
RESOURCE_PERMISSIONS = {"POST": ("registry.add_resource", "registry.add_version"),
                        "DELETE": ("registry.delete_resource", "registry.delete_version")}


@dataclass(frozen=True)
class Binding:
    prefix: str  # "schemaregistry/schemagroups"
    group_plural: str  # "schemaGroups"
    resource_plural: str  # "schemas"
    resource_segment: str  # "schemas" / "messagedefinitions"
    root: str  # "schemaregistry" / "messagecatalog"


SCHEMA_REGISTRY = Binding("schemaregistry/schemagroups", "schemaGroups", "schemas", "schemas", "schemaregistry")
MESSAGE_CATALOG = Binding("messagecatalog", "definitionGroups", "definitions", "messagedefinitions", "messagecatalog")


class LegacyView(RegistryView):
    binding: Binding = SCHEMA_REGISTRY

    @property
    def group_plural(self):
        return self.binding.group_plural

    @property
    def resource_plural(self):
        return self.binding.resource_plural

    def binding_url(self) -> str:
        return f"{self.base_url()}/{self.binding.prefix}"

    def group_json(self, group) -> dict:
        out = {"id": group.gid}
        for key in ("name", "description"):
            if getattr(group, key):
                out[key] = getattr(group, key)
        out.update({k: v for k, v in group.extensions.items()})
        out["createdtimeutc"] = timestamp(group.created_on)
        out["updatedtimeutc"] = timestamp(group.modified_on)
        return out

    def version_uri(self, resource, version) -> str:
        attrs = merged_attributes(resource, version)
        path = f"/{resource.group.gid}/{self.binding.resource_segment}/{resource.rid}/versions/{version.vid}"
        authority = attrs.get("authority")
        if authority:
            return authority.rstrip("/") + path if "://" in authority else f"{authority}:{path.strip('/')}"
        return self.binding_url() + path

    def version_headers(self, resource, version) -> dict:
        attrs = merged_attributes(resource, version)
        headers = {key: str(attrs[key]) for key in ATTRIBUTE_HEADERS if isinstance(attrs.get(key), str | int)}
        headers["authority"] = attrs.get("authority") or self.binding_url()
        headers["version"] = version.vid
        headers["id"] = self.version_uri(resource, version)
        headers["createdtimeutc"] = timestamp(version.created_on)
        headers["updatedtimeutc"] = timestamp(version.modified_on)
        return headers

    def document(self, resource, version, status: int = 200) -> HttpResponse:
        if version.resource_uri:
            response = HttpResponse(status=307)
            response["Location"] = version.resource_uri
        else:
            response = HttpResponse(document_bytes(self.rt, resource, version), status=status,
                                    content_type=version.media_type or "application/octet-stream")
        for name, value in self.version_headers(resource, version).items():
            response[name] = value
        return response


def integer_versions(resource) -> list[Version]:
    versions = [v for v in Version.objects.filter(resource=resource).defer("content") if v.vid.isdigit()]
    return sorted(versions, key=lambda v: version_sort_key(v.vid))


class GroupsView(LegacyView):
    def get(self, request):
        check_flags(request, {"filter", "limit", "page"})
        page = PageRequest.from_params(request.GET)
        groups, total = selectors.group_page(self.gt, request.GET.getlist("filter"), page, inline=False)
        link = link_header(request, page, total)
        return json_response([g.gid for g in groups], headers={"Link": link} if link else None)


class GroupView(LegacyView):
    write_permissions = GROUP_PERMISSIONS

    def get(self, request, gid):
        check_flags(request, set())
        return json_response(self.group_json(selectors.get_group(self.gt, gid)))

    def put(self, request, gid):
        check_flags(request, set())
        body = json_body(request, required=False) or {}
        body = {k: v for k, v in body.items() if k not in ("createdtimeutc", "updatedtimeutc")}
        group, created = services.put_group(self.context(), self.group_plural, gid, body)
        return json_response(self.group_json(group), status=201 if created else 200)

    def delete(self, request, gid):
        check_flags(request, set())
        group = services.delete_group(self.context(), self.group_plural, gid)
        return json_response(self.group_json(group))


class ResourcesView(LegacyView):
    write_permissions = RESOURCE_PERMISSIONS

    def get(self, request, gid):
        check_flags(request, {"filter", "limit", "page"})
        group = selectors.get_group(self.gt, gid)
        page = PageRequest.from_params(request.GET)
        resources, total = selectors.resource_page(group, self.resource_plural, request.GET.getlist("filter"), page,
                                                   inline=False)
        link = link_header(request, page, total)
        return json_response([r.rid for r in resources], headers={"Link": link} if link else None)

    def delete(self, request, gid):
        check_flags(request, set())
        deleted = services.delete_resources(self.context(), self.group_plural, gid, self.resource_plural, None)
        return json_response([r.rid for r, _v in deleted])


class ResourceView(LegacyView):
    write_permissions = RESOURCE_PERMISSIONS

    def get(self, request, gid, rid):
        check_flags(request, set())
        resource = selectors.get_resource(selectors.get_group(self.gt, gid), self.resource_plural, rid)
        return self.document(resource, resource.latest)

    def post(self, request, gid, rid):
        """Add a version (the first one creates the resource); attributes from headers or the query."""
        check_flags(request, set(ATTRIBUTE_HEADERS))
        inp = version_input(request, self.rt)
        inp.resource_id = None
        for key in ATTRIBUTE_HEADERS:
            value = request.GET.get(key, request.headers.get(key))
            if value is not None:
                inp.attributes[key] = value
        if "authority" in inp.attributes and ":" not in inp.attributes["authority"]:
            raise Problem("invalid-attribute", "authority must be a URI")
        ctx = self.context()
        exists = Resource.objects.filter(group__group_type=self.group_plural, group__gid=gid,
                                         resource_type=self.resource_plural, rid=rid).exists()
        if exists:
            resource, version = services.create_version(ctx, self.group_plural, gid, self.resource_plural, rid, inp)
        else:
            resource = services.create_resource(ctx, self.group_plural, gid, self.resource_plural, rid, inp)
            version = resource.latest
        response = self.document(resource, version, status=201)
        response["Location"] = f"{self.binding_url()}/{gid}/{self.binding.resource_segment}/{rid}/versions/{version.vid}"
        return response

    def delete(self, request, gid, rid):
        check_flags(request, set())
        resource, latest = services.delete_resource(self.context(), self.group_plural, gid, self.resource_plural, rid)
        return json_response({"id": resource.rid, "versions": [latest.vid] if latest else []})


class VersionsView(LegacyView):
    def get(self, request, gid, rid):
        check_flags(request, set())
        resource = selectors.get_resource(selectors.get_group(self.gt, gid), self.resource_plural, rid)
        return json_response([int(v.vid) for v in integer_versions(resource)])


class VersionView(LegacyView):
    write_permissions = RESOURCE_PERMISSIONS

    def get(self, request, gid, rid, version):
        check_flags(request, set())
        resource = selectors.get_resource(selectors.get_group(self.gt, gid), self.resource_plural, rid)
        return self.document(resource, selectors.get_version(resource, str(version)))

    def delete(self, request, gid, rid, version):
        check_flags(request, set())
        services.delete_version(self.context(), self.group_plural, gid, self.resource_plural, rid, str(version))
        return json_response({"id": rid, "version": version})


class LookupView(LegacyView):
    """GET `/schemaregistry/schema?uri=...`: a version by its schema version URI (section 2.2.2)."""

    def get(self, request):
        check_flags(request, {"uri"})
        uri = request.GET.get("uri")
        if not uri:
            raise Problem("bad-request", "the uri query parameter is required")
        found = self.find(uri)
        if found is None:
            raise Problem("not-found", f"no version has the URI {uri}")
        return self.document(*found)

    def find(self, uri: str):
        """The version whose URI (authority + path, section 2.2.2) is `uri`: the path names it, the full
        URI is then compared, so another authority's URI does not match."""
        pattern = re.compile(rf"(?:^|[/:])([^/:]+)/{re.escape(self.binding.resource_segment)}/([^/]+)/versions/([^/]+)$")
        match = pattern.search(uri)
        if match is None:
            return None
        gid, rid, vid = match.groups()
        resource = Resource.objects.filter(group__group_type=self.group_plural, group__gid=gid,
                                           resource_type=self.resource_plural, rid=rid).select_related("group").first()
        version = Version.objects.filter(resource=resource, vid=vid).first() if resource else None
        if version is not None and self.version_uri(resource, version) == uri:
            return resource, version
        return None


class FeaturesView(LegacyView):
    """`OPTIONS /messagecatalog`: the features document of the 2022 Message Catalog API; GET lists groups."""

    binding = MESSAGE_CATALOG
    filter_attributes = ["id", "name", "description", "format", "epoch"]

    def options(self, request, *args, **kwargs):
        return json_response({"filterattributes": self.filter_attributes, "pagination": True, "update": True},
                             headers={"Allow": "GET, HEAD, OPTIONS"})

    def get(self, request):
        return GroupsView.get(self, request)


__all__ = ["MESSAGE_CATALOG", "SCHEMA_REGISTRY", "apply_filters", "parse_filters"]
