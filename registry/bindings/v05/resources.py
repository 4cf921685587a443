"""Views of resources and versions: `/GROUPs/gID/RESOURCEs[/rID[/versions[/V]]]` (docs/api-contract.md section 5)."""

from __future__ import annotations

from django.http import HttpResponse

from ... import services
from ...http import entity_views as kernel
from ...http import fast_reads
from ...http.requests import declared_flags, flag, json_body, query_epoch
from ...http.views import document_answer, json_response
from ...representations import document_bytes
from ...store import selectors
from .binding import CoreView
from .inputs import version_input
from .representations import registry_headers, resource_json, version_json, version_meta


class ResourceTypeView(CoreView):
    def document_response(
        self, resource, version, status: int = 200, extra: dict | None = None, redirect: bool = False
    ) -> HttpResponse:
        """The document with its media type and every metadata attribute as a `Registry-*` header."""
        meta = version_meta(self.base_url(), self.rt, resource, version)
        headers = registry_headers(meta)
        headers["Content-Location"] = meta["self"]
        headers.update(extra or {})
        content = b"" if version.resource_uri else document_bytes(self.rt, resource, version)
        return document_answer(version, content, headers, status, redirect=307 if redirect else None)

    def answer(self, data: dict, status: int = 200, headers: dict | None = None) -> HttpResponse:
        """An entity's metadata says where the entity is in `Content-Location`."""
        return super().answer(data, status=status, headers={"Content-Location": data["self"], **(headers or {})})

    def resource_url(self, resource) -> str:
        return f"{self.base_url()}{resource.path}"


class ResourceCollectionView(ResourceTypeView, kernel.ResourceCollectionView):
    flags = declared_flags(get="inline filter limit page", post="", delete="force")

    def resources_json(self, group, resources) -> dict:
        return {r.rid: resource_json(self.base, self.rt, r, group=group, inline=self.inline_below()) for r in resources}

    def post(self, request, gid):
        inp = version_input(request, self.rt)
        resource = services.create_resource(
            ctx=self.context(), address=self.address(gid, inp.resource_id, resources=True), data=inp
        )
        return self.document_response(
            resource, resource.latest, status=201, extra={"Location": self.resource_url(resource)}
        )

    def delete(self, request, gid):
        deleted = self.delete_members(json_body(request, required=False, kind=list), gid)
        return json_response({r.rid: resource_json(self.base, self.rt, r, version=v) for r, v in deleted})


class ResourceView(ResourceTypeView, kernel.ResourceView):
    flags = declared_flags(get="meta inline referencedby", put="meta epoch", post="epoch", delete="epoch force")

    def reads_metadata(self, details: bool) -> bool:
        """The metadata as JSON with `?meta`, or with what is below it with `?inline`."""
        return details or flag(self.request, "inline")

    def entity_json(self, gid, rid, vid) -> dict:
        if vid is not None:
            resource, version = selectors.get_document_version(self.gt, gid, self.resource_plural, rid, vid)
            return version_json(self.base_url(), self.rt, resource, version)
        group = selectors.get_group(self.gt, gid)
        resource = selectors.get_resource(group, self.resource_plural, rid, inline=self.inline_below())
        self.check_inlined([resource])
        return resource_json(self.base_url(), self.rt, resource, group=group, inline=self.inline_below())

    def document_read(self, gid, rid, vid, created=False):
        resource, version = selectors.get_document_version(self.gt, gid, self.resource_plural, rid, vid)
        return self.document_response(resource, version, redirect=True)

    def put(self, request, gid, rid, vid=None):
        # (a comment, not a docstring: the OpenAPI description would show it) the answer is what the write returns:
        # with `?meta` the metadata of the version written, else its document
        ctx, address = self.context(), self.address(gid, rid, vid)
        if flag(request, "meta"):
            body = json_body(request)
            resource, version = services.put_meta(
                ctx=ctx, address=address, data=body, expected_epoch=query_epoch(request)
            )
            return self.answer(version_json(self.base_url(), self.rt, resource, version))
        inp = version_input(request, self.rt)
        write = services.put_resource if vid is None else services.put_version
        resource, version, created = write(ctx=ctx, address=address, data=inp)
        location = self.resource_url(resource) + (f"/versions/{vid}" if vid is not None else "")
        extra = {"Location": location} if created else None
        return self.document_response(resource, version, status=201 if created else 200, extra=extra)

    def post(self, request, gid, rid):
        inp = version_input(request, self.rt)
        resource, version = services.create_version(ctx=self.context(), address=self.address(gid, rid), data=inp)
        return self.document_response(resource, version, status=201, extra={"Location": self.resource_url(resource)})

    def delete_entity(self, gid, rid, vid):
        delete = services.delete_resource if vid is None else services.delete_version
        resource, version = delete(
            ctx=self.context(),
            address=self.address(gid, rid, vid),
            expected_epoch=query_epoch(self.request),
            force=flag(self.request, "force"),
        )
        base = self.base_url()
        data = (
            version_json(base, self.rt, resource, version)
            if vid is not None and version is not None  # (a deleted version, not its resource's latest)
            else resource_json(base, self.rt, resource, version=version)
        )
        return json_response(data, headers=registry_headers(data))


class VersionCollectionView(ResourceTypeView, kernel.VersionCollectionView):
    flags = declared_flags(get="inline filter limit page", delete="force")

    def versions_json(self, group, resource, versions) -> dict:
        return {
            v.vid: version_json(self.base, self.rt, resource, v, group, inline=self.inline_below()) for v in versions
        }

    def delete(self, request, gid, rid):
        deleted = self.delete_members(json_body(request, required=False, kind=list), gid, rid)
        return json_response({v.vid: version_json(self.base, self.rt, r, v) for r, v in deleted})


class VersionView(ResourceView, kernel.VersionView):
    flags = declared_flags(get="meta referencedby", put="meta epoch", delete="epoch force")
    http_method_names = ["get", "put", "delete", "head", "options"]


# a document GET without flags is the fast path's (registry/http/fast_reads.py): its answer depends on the row only
def document_address(initkwargs: dict, kwargs: dict) -> fast_reads.DocumentAddress:
    """The row of a resource's latest document, or of a version's (`vid`)."""
    return fast_reads.DocumentAddress(
        initkwargs["group_plural"], kwargs["gid"], initkwargs["resource_plural"], kwargs["rid"], kwargs.get("vid")
    )


fast_reads.register(ResourceView, document_address)
fast_reads.register(VersionView, document_address)
