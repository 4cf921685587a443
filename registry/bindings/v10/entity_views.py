"""Views of the 1.0 binding's entities at `/registry/...`: groups, resources (a document resource answers with its
document and `xRegistry-*` headers, or its metadata with `$details`), `meta` and versions.

Thin: reads render rows selected by `reads.py`; writes translate the 1.0 body into the stored shape
(`writes.py`) and call the registry's services, so validation, the origin guard, epochs, retention and change
events are those of every other way in.
"""

from __future__ import annotations

from functools import partial

from django.http import HttpResponse

from ... import compiled_reads, services
from ...domain.errors import Problem, not_found
from ...http import entity_views as kernel
from ...http import fast_reads
from ...http.requests import expected_epoch, flag, query_epoch
from ...http.views import document_answer, json_response
from ...store import selectors
from . import writes
from .base import XRegistryView
from .bodies import json_body
from .flags import LEVELS, Inline, only_collections
from .inputs import request_input
from .mapping import mappings
from .reads import render_group, render_resource
from .representations import Place, Versions, document_headers, meta_json, version_json


def version_read(view: XRegistryView, gid: str, rid: str, vid: str | None, *, document: bool = False) -> tuple:
    """(resource with its group, version, the resource's version count, the version's `ancestorid`) in one query
    (`compiled_reads.document_row`): version `vid`, or the resource's default (`Resource.latest`: None when it has
    none, unless its `document` is asked for). What is missing is its 404."""
    found = compiled_reads.document_row(view.gm.plural, gid, view.rm.plural, rid, vid, history=True)
    if found is None or (document and found[1] is None):
        view.load(gid, rid, with_content=False)  # a missing group or resource: its own 404
        if not document:
            raise not_found(f"/{view.gm.plural}/{gid}/{view.rm.plural}/{rid}/versions/{vid}")
        path = f"/{view.gm.v1_plural}/{gid}/{view.rm.v1_plural}/{rid}"
        raise Problem(
            "not-found",
            f"{path}/versions/{vid} does not exist" if vid is not None else f"{path} has no version, so no document",
        )
    resource, version, count, previous = found
    return resource, version, count, previous or (version.vid if version is not None else None)


class CollectionView(XRegistryView):
    # (comments, not a docstring: the OpenAPI description would show it) a map of groups, resources or versions: it
    # takes `?sort`, and its DELETE (a delete map: writes.deletions) skips the ids that name nothing and answers 204
    collection = True
    missing_ok = True

    def delete(self, request, **ids):
        items = writes.deletions(json_body(request, required=False), self.singular, resources=self.level == "resource")
        self.delete_members(items, **ids)
        return HttpResponse(status=204)


class GroupCollectionView(CollectionView, kernel.GroupCollectionView):
    flags = LEVELS["groups"]

    def post(self, request):
        body = json_body(request)
        services.put_groups(ctx=self.context(), address=self.address(), groups=writes.group_writes(self.gm, body))
        base = self.base_url()
        return json_response(
            {gid: render_group(base, self.gm, selectors.get_group(self.gt, gid), Inline(request)) for gid in body}
        )


class GroupView(XRegistryView, kernel.GroupView):
    flags = LEVELS["group"]
    takes_collections = True

    def shown(self, data: dict) -> dict:
        data = super().shown(data)
        return only_collections(self.request, data, [rm.v1_plural for rm in self.gm.resources])

    def put_group(self, gid) -> bool:
        body = json_body(self.request, required=False) or {}
        epoch = expected_epoch(self.request, body.get("epoch"))
        write = writes.group_write(self.gm, gid, body, epoch=epoch, patch=self.request.method == "PATCH")
        return services.put_group_with_resources(ctx=self.context(), address=self.address(gid), data=write)[1]

    def post(self, request, gid):
        """`POST /GROUPS/gID`: a map of resource types -> resources, created or updated."""
        maps = writes.resource_maps(self.gm, gid, json_body(request))
        services.put_resource_maps(ctx=self.context(), address=self.address(gid), maps=maps)
        return self.group_answer(gid)


class ResourceCollectionView(CollectionView, kernel.ResourceCollectionView):
    flags = LEVELS["resources"]

    def resources_json(self, group, resources) -> dict:
        """The page's resources, each with its default version and `ancestorid` (read in one query) and its
        `versionscount` (the page's); where `?inline` shows their versions, read again with all of them (one
        deleted since the page was read is left out)."""
        # (a definition's attributes are in its document)
        with_content = self.inline.wants(self.rm.v1_singular) or not self.rm.hasdocument
        shown: dict[str, tuple] = {}
        if self.inline.wants("versions"):
            ids = [r.rid for r in resources]
            loaded = selectors.resources_with_versions(group, self.rm.plural, with_content=with_content, ids=ids)
            shown = {r.rid: (r, Versions.of(r, r.all_versions)) for r in loaded}
        else:
            defaults = selectors.default_versions(resources, with_content=with_content)
            for r in resources:
                default, ancestor = defaults.get(r.pk, (None, None))
                shown[r.rid] = (r, Versions(default, ancestor, r.versions_count))
        doc = flag(self.request, "doc")
        return {
            r.rid: render_resource(Place(self.base, self.gm, self.rm, group, loaded), versions, self.inline, doc=doc)
            for r in resources
            if r.rid in shown
            for loaded, versions in [shown[r.rid]]
        }

    def post(self, request, gid):
        body = json_body(request)
        resources = writes.resource_writes(self.gm, self.rm, gid, body)
        services.put_resources(ctx=self.context(), address=self.address(gid, resources=True), resources=resources)
        base, group = self.base_url(), selectors.get_group(self.gt, gid)
        loaded = selectors.resources_with_versions(group, self.rm.plural, with_content=False, ids=list(body))
        return json_response(
            {
                r.rid: render_resource(
                    Place(base, self.gm, self.rm, group, r), Versions.of(r, r.all_versions), Inline(request)
                )
                for r in loaded
            }
        )


class ResourceView(XRegistryView, kernel.ResourceView):
    flags = LEVELS["resource"]

    def path_id(self, value: str) -> tuple[str, bool]:
        """`ID$details`: the entity's metadata, not its document."""
        return value.removesuffix("$details"), value.endswith("$details")

    def reads_metadata(self, details: bool) -> bool:
        # the doc flag serializes the metadata view ("Doc Flag")
        return details or flag(self.request, "doc") or not self.rm.hasdocument

    def entity_json(self, gid, rid, vid) -> dict:
        """The resource (read with all its versions where `?inline` shows them) or version `vid`."""
        inline_document = self.inline.wants(self.rm.v1_singular)
        if vid is None and self.inline.wants("versions"):
            group, resource = self.load(gid, rid)
            versions = Versions.of(resource, resource.all_versions)
        else:
            resource, version, count, ancestor = version_read(self, gid, rid, vid)
            group, versions = resource.group, Versions(version, ancestor, count)
        place = Place(self.base, self.gm, self.rm, group, resource)
        if vid is not None:
            return version_json(place, version, ancestor=ancestor, inline_document=inline_document)
        return render_resource(
            place, versions, self.inline, doc=flag(self.request, "doc"), inline_document=inline_document
        )

    def document_read(self, gid, rid, vid, created=False):
        """A document resource without `$details`: the document as the body, its metadata as `xRegistry-*` headers
        in the resource's (`vid` None) or the version's form (a `<RESOURCE>url` version answers 303 to it); a
        creation (201) says where the new entity is in `Location`. One query: the compiled read of the document
        with the resource's version count and previous version (`version_read`)."""
        resource, version, count, ancestor = version_read(self, gid, rid, vid, document=True)
        headers = document_headers(
            Place(self.base_url(), self.gm, self.rm, resource.group, resource),
            version,
            count=count,
            ancestor=ancestor,
            resource_form=vid is None,
        )
        if created:
            headers["Location"] = headers["xRegistry-self"]
        return document_answer(version, bytes(version.content or b""), headers, 201 if created else 200, redirect=303)

    def put_entity(self, gid, rid, vid, details) -> bool:
        # the request is read once the services made the entity's parents (services.upserts.Read)
        def read():
            if self.rm.hasdocument and not details:
                inp = request_input(self.rm, rid, vid, self.request, details=False)
                return inp if vid is not None else services.ResourceWrite(data=inp)
            body = json_body(self.request, required=False) or {}
            epoch, patch = expected_epoch(self.request, body.get("epoch")), self.request.method == "PATCH"
            if vid is None:
                return writes.resource_write(self.gm, self.rm, gid, rid, body, epoch=epoch, patch=patch)
            return writes.version_write(self.gm, self.rm, rid, vid, body, epoch, patch)

        if vid is None:
            return services.put_resource_with_meta(ctx=self.context(), address=self.address(gid, rid), data=read)
        return any(services.put_version_creating(ctx=self.context(), address=self.address(gid, rid, vid), data=read))

    def post(self, request, gid, rid):
        """A new version of the resource (its id from the body's `versionid`, or the next number)."""
        rid, details = self.path_id(rid)
        read = partial(request_input, self.rm, rid, None, request, details=details)
        vid = services.add_version(ctx=self.context(), address=self.address(gid, rid), data=read).vid
        # (a 404 when deleted since this write committed: its group deleted meanwhile)
        resource, version, _count, ancestor = version_read(self, gid, rid, vid)
        place = Place(self.base_url(), self.gm, self.rm, resource.group, resource)
        data = version_json(place, version, ancestor=ancestor)
        return self.entity_answer(data, created=True)

    def delete_entity(self, gid, rid, vid) -> None:
        address, epoch, force = self.address(gid, rid, vid), query_epoch(self.request), flag(self.request, "force")
        if vid is None:  # (a resource's expected epoch is its meta's)
            services.delete_resource(ctx=self.context(), address=address, expected_meta_epoch=epoch, force=force)
        else:
            services.delete_version(ctx=self.context(), address=address, expected_epoch=epoch, force=force)


class MetaView(XRegistryView):
    flags = LEVELS["meta"]
    http_method_names = ["get", "put", "patch", "head", "options"]  # a meta entity goes with its resource

    def get(self, request, gid, rid):
        resource, default, _count, _ancestor = version_read(self, gid, rid, None)
        return self.answer(meta_json(Place(self.base, self.gm, self.rm, resource.group, resource), default))

    def put(self, request, gid, rid):
        body = json_body(request)
        epoch = expected_epoch(request, body.get("epoch"))
        meta, replace = writes.meta_write(self.gm, self.rm, gid, rid, body), request.method != "PATCH"
        address = self.address(gid, rid)
        services.set_resource_meta(
            ctx=self.context(), address=address, meta=meta, replace=replace, expected_epoch=epoch
        )
        return self.get(request, gid, rid)


class VersionCollectionView(CollectionView, kernel.VersionCollectionView):
    flags = LEVELS["versions"]
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def version_page(self, resource, page):
        """The versions `?filter` keeps, in version order, each with its `ancestorid`: the page, or all of them when
        the collection is sorted (`arranged` pages it)."""
        wanted = self.inline.wants(self.rm.v1_singular)
        return selectors.version_page(resource, self.filters(), self.page_to_load(page), wanted, ancestors=True)

    def versions_json(self, group, resource, versions) -> dict:
        place, wanted = Place(self.base, self.gm, self.rm, group, resource), self.inline.wants(self.rm.v1_singular)
        return {v.vid: version_json(place, v, ancestor=v.ancestor or v.vid, inline_document=wanted) for v in versions}

    def post(self, request, gid, rid):
        """Create or update versions from a map (version id -> version); `?setdefaultversionid` sets the default.
        The answer is the versions collection."""
        versions = writes.version_writes(self.gm, self.rm, gid, rid, json_body(request))
        default = request.GET.get("setdefaultversionid")
        services.put_versions(
            ctx=self.context(), address=self.address(gid, rid), versions=versions, default_version=default
        )
        return self.get(request, gid, rid)


class VersionView(ResourceView, kernel.VersionView):
    flags = LEVELS["version"]
    http_method_names = ["get", "put", "patch", "delete", "head", "options"]


def document_address(initkwargs: dict, kwargs: dict) -> fast_reads.DocumentAddress | None:
    """What a document GET without `$details` or flags depends on, for the fast path (registry/http/fast_reads.py):
    the row `document` reads, with the version count and previous version."""
    gm = mappings[initkwargs["group_plural"]]
    rm = gm.by_plural[initkwargs["resource_plural"]]
    rid, vid = kwargs["rid"], kwargs.get("vid")
    if not rm.hasdocument or rid.endswith("$details") or (vid is not None and vid.endswith("$details")):
        return None
    return fast_reads.DocumentAddress(gm.plural, kwargs["gid"], rm.plural, rid, vid, history=True)


fast_reads.register(ResourceView, document_address)
fast_reads.register(VersionView, document_address)
