"""The reads of the registry's collections, one view per level, the same for every binding (0.5, 1.0, the older
ones): the groups, a group's resources and a resource's versions, each a page selected through the selectors
(within the caller's read scope) and answered with its `Link` to the next page (`page_response`).

A binding's views subclass these and declare, once on its base view, what differs between bindings: how `?filter`
and `?inline` read (`filters`, `inline_below`), how a collection is ordered and paged (`page_to_load`, `arranged`),
how an answer is shown (`shown`: 1.0's document view), whether inlined entities are counted against
REGISTRY_MAX_INLINE_ENTITIES, and, on each level, its representation of the rows (`groups_json`, ...: a map of
entities, or a list of ids). A collection's DELETE is the kernel's `delete_members` (the binding reads its body
into the services' items and answers with what was deleted); other writes of collections stay the binding's
methods: they translate its bodies into calls of the services.

One group, one resource and one version are a view each too (GroupView, ResourceView, VersionView): the kernel reads
them through the selectors, answers a document resource with its document (or its metadata when the request asks
for it, as the binding's `path_id` reads the path), and answers a write with the entity read again; the binding
declares its representations and translates a write's body into the service's call (`put_group`, `put_entity`,
`delete_...`).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from django.conf import settings
from django.http import HttpResponse

from .. import services
from ..domain.errors import Problem
from ..domain.model import registry_model
from ..models import Group
from ..store import selectors
from ..store.paging import PageRequest
from .requests import flag, query_epoch
from .views import RegistryView, json_response, page_response

# an answer's JSON: a map of entities (xRegistry), or a list of ids (the older bindings' collections); Any, so that
# each binding's hooks keep the narrower type they take
Body = Any


def check_inline_size(count: int) -> None:
    """An answer with `count` entities inlined: refused above REGISTRY_MAX_INLINE_ENTITIES (the paged collections
    are the way to read more)."""
    if count > settings.REGISTRY_MAX_INLINE_ENTITIES:
        raise Problem(
            "too-many-entities",
            f"the answer would hold {count} entities, more than "
            f"{settings.REGISTRY_MAX_INLINE_ENTITIES}; page through the collections "
            "without ?inline instead",
        )


def inlined_count(entity) -> int:
    """The entities an inlined answer of a group, a resource or a version holds: itself and what is below it."""
    if hasattr(entity, "all_versions"):  # a resource read with its versions
        return 1 + len(entity.all_versions)
    if isinstance(entity, Group):  # a group read with its resources
        resources = registry_model[entity.group_type].resources
        return 1 + sum(inlined_count(r) for rt in resources for r in getattr(entity, f"inline_{rt.plural}", ()))
    return 1


# (comments, not docstrings: the OpenAPI description of a view takes the first class docstring of its bases)
class EntityView(RegistryView):
    # A view of one level of the registry's entities (`level`: `group`, `resource` or `version`); the defaults are
    # a plain reading of the request (`?filter` as given, `?inline` as a switch, pages as asked).

    level = ""
    limits_inline = False  # whether an inlined answer is refused above REGISTRY_MAX_INLINE_ENTITIES
    missing_ok = False  # whether a collection DELETE skips the ids that name no member (1.0) rather than a 404

    @cached_property
    def base(self) -> str:
        return self.base_url()

    def filters(self) -> list[str]:
        """`?filter` expressions in the stored attributes' names."""
        return self.request.GET.getlist("filter")

    def inline_below(self) -> bool:
        """Whether a collection's rows are read with what is below them (their resources, their versions)."""
        return False

    def inlined_types(self) -> dict[str, bool] | None:
        """Of a group read with what is below it (`inline_below`): the resource types to read (by plural), each with
        whether its versions' documents are read; None for every type, documents included."""
        return None

    def page_to_load(self, page: PageRequest) -> PageRequest:
        """The rows to read for the page asked for."""
        return page

    def arranged(self, body: Body, page: PageRequest) -> Body:
        """A collection's members in the order answered (the page of a sorted collection)."""
        return body

    def shown(self, data: Body) -> Body:
        """An answer's JSON as the request asks to see it."""
        return data

    def answer(self, data: Body, status: int = 200, headers: dict | None = None) -> HttpResponse:
        return json_response(self.shown(data), status=status, headers=headers)

    def collection_answer(self, body: Body, page: PageRequest, total: int) -> HttpResponse:
        return page_response(self.request, self.shown(self.arranged(body, page)), page, total)

    def check_inlined(self, entities) -> None:
        if self.limits_inline and self.inline_below():
            check_inline_size(sum(inlined_count(e) for e in entities))

    def entity_answer(self, data: Body, created: bool = False) -> HttpResponse:
        """One entity's answer: 201 with where it is (`location`) when a write created it."""
        headers = {"Location": self.location(data)} if created else None
        return self.answer(data, status=201 if created else 200, headers=headers)

    def location(self, data: Body) -> str:
        """The URL of the entity `data` shows: its `self` (the older bindings' entities have none)."""
        return data["self"]

    def delete_members(self, items: list | None, gid: str | None = None, rid: str | None = None) -> list:
        """A collection's DELETE: the members `items` names (the services' items; None: every member) through the
        level's service, with the request's `?force`; what was deleted."""
        address = self.address(gid, rid, resources=self.level == "resource")
        delete = getattr(services, f"delete_{self.level}s")  # delete_groups, delete_resources, delete_versions
        force = flag(self.request, "force")
        return delete(ctx=self.context(), address=address, items=items, force=force, missing_ok=self.missing_ok)

    def group_json(self, group) -> Body:
        """A group in the binding's representation (a collection's members, a group's own answer)."""
        raise NotImplementedError

    def asks_referenced_by(self) -> bool:
        """`?referencedby`, where the binding declares it for the GET (docs/api-contract.md section 14)."""
        return "referencedby" in self.flags.get("get", ()) and flag(self.request, "referencedby")


class GroupCollectionView(EntityView):
    level = "group"

    def get(self, request):
        page = PageRequest.from_params(request.GET)
        groups, total = selectors.group_page(self.gt, self.filters(), self.page_to_load(page), False, self.read_scope())
        if self.inline_below():  # what is below the page's groups counted before it is read (a page of 1,000
            # groups of a large registry holds a hundred thousand versions: a gigabyte in the worker)
            if self.limits_inline:
                check_inline_size(selectors.inlined_entities(groups, self.gt, self.inlined_types()))
            selectors.load_inline(groups, self.gt, self.inlined_types())
        return self.collection_answer(self.groups_json(groups), page, total)

    def groups_json(self, groups) -> Body:
        return {g.gid: self.group_json(g) for g in groups}


class GroupView(EntityView):
    # One group, read through the selectors (with what is below it when `inline_below`); a PUT is the binding's
    # `put_group` (its body translated into the service's call), answered with the group read again (201 and
    # `Location` when it was created); a DELETE is the binding's `delete_group`, answered 204 unless the binding
    # answers with what it deleted.
    level = "group"

    def get(self, request, gid):
        if self.asks_referenced_by():
            return self.referenced_by_response(selectors.get_group(self.gt, gid).path)
        return self.group_answer(gid)

    def put(self, request, gid):
        return self.group_answer(gid, self.put_group(gid))

    def delete(self, request, gid):
        return self.delete_group(gid) or HttpResponse(status=204)

    def group_answer(self, gid: str, created: bool = False) -> HttpResponse:
        group = selectors.get_group(self.gt, gid, self.inline_below(), self.inlined_types())
        self.check_inlined([group])
        return self.entity_answer(self.group_json(group), created)

    def put_group(self, gid: str) -> bool:
        """Write the group the request's body describes; whether it was created."""
        raise NotImplementedError

    def delete_group(self, gid: str) -> HttpResponse | None:
        """Delete the group (with the epoch and the force the request gives); the binding's answer, None for 204."""
        epoch, force = query_epoch(self.request), flag(self.request, "force")
        services.delete_group(ctx=self.context(), address=self.address(gid), expected_epoch=epoch, force=force)
        return None


class ResourceCollectionView(EntityView):
    level = "resource"

    def get(self, request, gid):
        group = selectors.get_group(self.gt, gid)
        page = PageRequest.from_params(request.GET)
        resources, total = selectors.resource_page(
            group, self.resource_plural, self.filters(), self.page_to_load(page), self.inline_below()
        )
        self.check_inlined(resources)
        return self.collection_answer(self.resources_json(group, resources), page, total)

    def resources_json(self, group, resources) -> Body:
        raise NotImplementedError


class VersionCollectionView(EntityView):
    level = "version"

    def get(self, request, gid, rid):
        group, resource = self.versions_of(gid, rid)
        page = PageRequest.from_params(request.GET)
        versions, total = self.version_page(resource, page)
        self.check_inlined(versions)
        return self.collection_answer(self.versions_json(group, resource, versions), page, total)

    def versions_of(self, gid: str, rid: str) -> tuple:
        """The group and the resource whose versions are asked for."""
        group = selectors.get_group(self.gt, gid)
        return group, selectors.get_resource(group, self.resource_plural, rid)

    def version_page(self, resource, page: PageRequest) -> tuple[list, int]:
        """The page of the resource's versions, and how many versions it has."""
        return selectors.version_page(resource, self.filters(), page, self.inline_below())

    def versions_json(self, group, resource, versions) -> Body:
        raise NotImplementedError


class ResourceView(EntityView):
    # One resource, or one of its versions (VersionView: `vid` given). A path's last id reads as the binding says
    # (`path_id`: 1.0's `$details` suffix, 0.5's `?meta`); a read answers the entity's metadata (`entity_json`) when
    # the request asks for it or its type has no document (`reads_metadata`), else its document with the metadata
    # in headers (`document_read`). A PUT is the binding's `put_entity`, answered with the entity read again
    # (201 and `Location` when it was created); a DELETE is the binding's `delete_entity`, answered 204 unless
    # the binding answers with what it deleted.
    level = "resource"

    def path_id(self, value: str) -> tuple[str, bool]:
        """The id a path's last segment names, and whether it asks for the entity's metadata (not its document)."""
        return value, flag(self.request, "meta")

    def ids(self, rid: str, vid: str | None) -> tuple[str, str | None, bool]:
        """The resource's id, the version's (None for the resource itself) and whether the metadata is asked for."""
        if vid is None:
            rid, details = self.path_id(rid)
        else:
            vid, details = self.path_id(vid)
        return rid, vid, details

    def get(self, request, gid, rid, vid=None):
        rid, vid, details = self.ids(rid, vid)
        if self.asks_referenced_by():
            return self.referenced_by_response(self.entity_path(gid, rid, vid))
        return self.entity_read(gid, rid, vid, details)

    def put(self, request, gid, rid, vid=None):
        rid, vid, details = self.ids(rid, vid)
        return self.entity_read(gid, rid, vid, details, self.put_entity(gid, rid, vid, details))

    def delete(self, request, gid, rid, vid=None):
        rid, vid, _details = self.ids(rid, vid)
        return self.delete_entity(gid, rid, vid) or HttpResponse(status=204)

    def entity_read(self, gid: str, rid: str, vid: str | None, details: bool, created: bool = False) -> HttpResponse:
        if self.reads_metadata(details):
            return self.entity_answer(self.entity_json(gid, rid, vid), created)
        return self.document_read(gid, rid, vid, created)

    def entity_path(self, gid: str, rid: str, vid: str | None) -> str:
        """The store path of the resource or the version (404 when it does not exist)."""
        resource = selectors.get_resource(selectors.get_group(self.gt, gid), self.resource_plural, rid)
        return resource.path if vid is None else f"{resource.path}/versions/{selectors.get_version(resource, vid).vid}"

    def reads_metadata(self, details: bool) -> bool:
        """Whether a read answers the entity's metadata (JSON) rather than its document."""
        return details

    def entity_json(self, gid: str, rid: str, vid: str | None) -> Body:
        raise NotImplementedError

    def document_read(self, gid: str, rid: str, vid: str | None, created: bool = False) -> HttpResponse:
        """The document with its metadata in the binding's headers (registry/http/views.document_answer)."""
        raise NotImplementedError

    def put_entity(self, gid: str, rid: str, vid: str | None, details: bool) -> bool:
        """Write the entity the request's body describes (its metadata when `details`); whether it was created."""
        raise NotImplementedError

    def delete_entity(self, gid: str, rid: str, vid: str | None) -> HttpResponse | None:
        """Delete the entity (with the epoch and the force the request gives); the binding's answer, None for 204."""
        raise NotImplementedError


class VersionView(ResourceView):
    level = "version"
