"""Reads of the registry, with their queries planned: counts by subquery, `?inline` by prefetching.

A page of groups costs one query for the groups (counts included), one for their resources and one for
the versions of those resources, whatever the page size: no query per entity.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import connection
from django.db.models import Count, IntegerField, OuterRef, Prefetch, QuerySet, Subquery
from django.db.models.base import ModelState
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce, Lower
from django.utils import timezone

from .. import compiled_reads
from ..access.read_scope import EVERYTHING, ReadScope
from ..domain.attributes import version_order_sql
from ..domain.errors import Problem, not_found
from ..domain.model import GroupType, registry_model
from ..domain.references import referrers, resolve
from ..models import Group, RegistryState, Resource, Version
from ..representations import merged_attributes
from . import change_marker as marker
from . import filters as filtering
from .estimates import EXACT_BELOW, planned_rows
from .paging import PageRequest

if TYPE_CHECKING:
    from typing import TypeAlias, TypedDict

    from django_stubs_ext import WithAnnotations

    class _Versions(TypedDict):
        all_versions: list[Version]  # its versions, prefetched (`Prefetch("versions", to_attr="all_versions")`)

    ResourceWithVersions: TypeAlias = WithAnnotations[Resource, _Versions]


def count_subquery(model, **filters):
    """How many rows of `model` match `filters` (an OuterRef among them), as a correlated subquery: counted for the
    rows a page shows, where an annotated Count joins and groups the whole table (the admin's lists, issue 40)."""
    qs = model.objects.filter(**filters).order_by().values(*filters.keys()).annotate(c=Count("pk")).values("c")
    return Coalesce(Subquery(qs[:1], output_field=IntegerField()), 0)


_count_subquery = count_subquery


def registry_counts(scope: ReadScope = EVERYTHING) -> dict[str, int]:
    """Number of groups per group type (those `scope` reads)."""
    if scope.everything:  # written out: compiling it in the ORM cost more than the query
        with connection.cursor() as cursor:
            cursor.execute(_GROUP_COUNTS_SQL)
            counts = dict(cursor.fetchall())
    else:
        counts = dict(scope.filter(Group.objects.order_by()).values_list("group_type").annotate(c=Count("pk")))
    return {gt.plural: counts.get(gt.plural, 0) for gt in registry_model.group_types}


_GROUP_COUNTS_SQL = f"SELECT group_type, COUNT(*) FROM {Group._meta.db_table} GROUP BY group_type"


def exists_ignoring_case(queryset, field: str, value: str) -> bool:
    """Whether a row's `field` equals `value` irrespective of case, by `LOWER(field) = lower(value)`: the
    expression of the models' case-insensitive unique indexes, which serve it (`__iexact` compiles to `LIKE`
    or `UPPER()`, which they cannot, and made every check a table scan: imports of many groups went
    quadratic). Ids are ASCII (URI segment characters), where SQL's and Python's lower case agree."""
    return queryset.annotate(_lower=Lower(field)).filter(_lower=value.lower()).exists()


def change_marker() -> str:
    """Changes whenever a change is committed, read in constant time (registry/store/change_marker.py). For the kept
    whole-registry answers and the tags of answers too large to hash (`registry/http/conditional.py`)."""
    return marker.change_marker()


def registry_state() -> RegistryState:
    """The registry entity's epoch and times (an unsaved first state when no group was ever added)."""
    state = next(iter(RegistryState.objects.filter(pk=1).order_by()), None)  # by pk: no ordering to compile
    if state is None:
        now = timezone.now()
        state = RegistryState(pk=1, epoch=1, created_on=now, modified_on=now)
    return state


def count_entities(scope: ReadScope = EVERYTHING, levels: int = 3) -> tuple[int, bool]:
    """Groups, + resources (`levels` 2), + versions (3): what a whole-registry answer would hold (for a caller who
    reads `scope`), and whether that is the planner's estimate (registry/store/estimates.py: on PostgreSQL, far enough
    from the limit of REGISTRY_MAX_INLINE_ENTITIES for the estimate to decide)."""
    querysets = [
        scope.filter(Group.objects),
        scope.filter(Resource.objects, "group__"),
        scope.filter(Version.objects, "resource__group__"),
    ][:levels]
    limit = settings.REGISTRY_MAX_INLINE_ENTITIES
    planned = [planned_rows(qs) for qs in querysets]
    known = [rows for rows in planned if rows is not None]
    estimate = sum(known) if len(known) == len(planned) else 0
    # a small table's estimate may be far off (one never analyzed is taken as 10 pages): only a large one decides
    if estimate >= EXACT_BELOW and not 0.8 * limit <= estimate <= 1.25 * limit:
        return estimate, True
    return sum(qs.count() for qs in querysets), False


def check_whole_registry(scope: ReadScope, collections: list[str], levels: int = 3) -> int:
    """Refuse a whole-registry answer (`GET /?inline`, the exports) that would hold more than
    REGISTRY_MAX_INLINE_ENTITIES entities, naming the paged way to read it: such an answer takes minutes to write and
    hundreds of megabytes in the worker that writes it (docs/performance.md, "A registry of a million versions").
    `collections`: the URLs of the group collections, which the problem names (in its `alternatives` too). Returns
    the count (or the estimate)."""
    limit = settings.REGISTRY_MAX_INLINE_ENTITIES
    count, estimated = count_entities(scope, levels)
    if count > limit:
        first = collections[0]
        raise Problem(
            "too-many-entities",
            f"the answer would hold {'about ' if estimated else ''}{count} entities, more than {limit} "
            f"(REGISTRY_MAX_INLINE_ENTITIES); page through the group collections instead: GET {first}?limit=100 (and "
            "each other group collection) and the next pages its Link header names (rel=next), each group with "
            f"GET {first}/{{id}}?inline; or, on the server, manage.py export_registry (no limit)",
            members={"alternatives": [f"{url}?limit=100" for url in collections]},
        )
    return count


def groups_queryset(gt: GroupType):
    """Groups of one type with `<plural>_count` for each resource type."""
    qs = Group.objects.filter(group_type=gt.plural).order_by("gid")
    for rt in gt.resources:
        qs = qs.annotate(
            **{f"count_{rt.plural}": _count_subquery(Resource, group=OuterRef("pk"), resource_type=rt.plural)}
        )
    return qs


def _resources_prefetch(rplural: str, inline: bool) -> Prefetch:
    versions_qs = Version.objects.all() if inline else Version.objects.defer("content")
    qs = (  # (no count of each resource's versions: they are all read)
        Resource.objects.filter(resource_type=rplural)
        .order_by("rid")
        .prefetch_related(Prefetch("versions", queryset=versions_qs, to_attr="all_versions"))
    )
    return Prefetch("resources", queryset=qs, to_attr=f"inline_{rplural}")


def inline_lookups(gt: GroupType, types: dict[str, bool] | None = None) -> list[Prefetch]:
    """The resources of `types` (resource type plural -> whether its versions' documents are read) with all their
    versions; by default every type's, documents included."""
    if types is None:
        types = {rt.plural: True for rt in gt.resources}
    return [_resources_prefetch(plural, documents) for plural, documents in types.items()]


def _attnames(model, *, documents: bool = True) -> list[str]:
    return [f.attname for f in model._meta.concrete_fields if documents or f.attname != "content"]


def _instances(model, names: list[str], rows, db: str, parent: str, parents: dict) -> Iterator:
    """Instances of `model` holding `rows` (the values of `names`, in that order), each with its `parent` (the
    foreign key's name) cached from `parents` (by its id). What `Model.from_db` makes (its fields in `__dict__`, a
    field left out deferred, `_state` not adding, of `db`), without `__init__`: a setattr per field and the init
    signals were about half of the time of rendering a whole registry (docs/performance.md, "Whole-registry rows
    without models"). `tests/registry/store/test_inline_rows.py` compares them with the ORM's."""
    new, key = model.__new__, f"{parent}_id"
    for row in rows:
        obj = new(model)
        values = obj.__dict__
        values.update(zip(names, row, strict=True))
        state = obj._state = ModelState()
        state.adding, state.db, state.fields_cache = False, db, {parent: parents[values[key]]}
        yield obj


def load_inline(groups: list[Group], gt: GroupType, types: dict[str, bool] | None = None) -> None:
    """The resources of `types` (resource type plural -> whether its versions' documents are read; by default
    every type's, documents included) of the groups already read, each group's in `inline_<plural>` by id, each
    with all its versions in `all_versions` (in the order of `Version.Meta.ordering`): two queries, their rows read
    as values (`_instances`), not through the ORM's prefetch (what `inline_lookups` prefetches, the same
    instances)."""
    if types is None:
        types = {rt.plural: True for rt in gt.resources}
    for group in groups:
        for plural in types:
            setattr(group, f"inline_{plural}", [])
    if not groups or not types:
        return
    db = groups[0]._state.db or "default"
    by_pk = {group.pk: group for group in groups}
    names = _attnames(Resource)
    resource_rows = Resource.objects.filter(group_id__in=list(by_pk), resource_type__in=list(types))
    resources: dict[int, Resource] = {}
    versions: dict[int, list[Version]] = {}
    for resource in _instances(Resource, names, resource_rows.order_by("rid").values_list(*names), db, "group", by_pk):
        getattr(by_pk[resource.group_id], f"inline_{resource.resource_type}").append(resource)
        resource.all_versions = versions[resource.pk] = []
        resources[resource.pk] = resource
    for documents in (True, False):
        ids = [pk for pk, r in resources.items() if types[r.resource_type] is documents]
        if ids:
            fields = _attnames(Version, documents=documents)
            version_rows = Version.objects.filter(resource_id__in=ids).values_list(*fields)
            for version in _instances(Version, fields, version_rows, db, "resource", resources):
                versions[version.resource_id].append(version)


def inlined_entities(groups: list[Group], gt: GroupType, types: dict[str, bool] | None = None) -> int:
    """The groups, their resources (of `types`) and those resources' versions: what `load_inline` would read, counted
    in SQL without reading it."""
    plurals = list(types) if types is not None else [rt.plural for rt in gt.resources]
    resources = Resource.objects.filter(group__in=groups, resource_type__in=plurals)
    versions = Version.objects.filter(resource__group__in=groups, resource__resource_type__in=plurals)
    return len(groups) + resources.count() + versions.count()


def group_page(gt: GroupType, filter_values: list[str], page: PageRequest, inline: bool, scope: ReadScope = EVERYTHING):
    """A page of the groups of a type that `scope` reads (by id, paged by key), and how many there are in all."""
    qs = filtering.apply(scope.filter(groups_queryset(gt)), filtering.parse(filter_values), id_column="gid")
    return page.rows(qs, ("gid",), prefetch=tuple(inline_lookups(gt)) if inline else ()), qs.count()


def iter_groups(
    gt: GroupType, inline: bool, chunk_size: int = 50, ids: list[str] | None = None, scope: ReadScope = EVERYTHING
):
    """Every group of a type (or those of `ids`) that `scope` reads, in id order, fetched in chunks (bounded memory
    for streaming)."""
    qs = scope.filter(groups_queryset(gt) if ids is None else groups_queryset(gt).filter(gid__in=ids))
    if not inline:
        return qs.iterator(chunk_size=chunk_size)
    return _with_inline_chunks(qs.iterator(chunk_size=chunk_size), gt, chunk_size)


def _with_inline_chunks(groups: Iterator[Group], gt: GroupType, chunk_size: int) -> Iterator[Group]:
    """The groups, `chunk_size` at a time loaded with their resources and versions (`load_inline`)."""
    while chunk := list(islice(groups, chunk_size)):
        load_inline(chunk, gt)
        yield from chunk


def get_group(gt: GroupType, gid: str, inline: bool = False, types: dict[str, bool] | None = None) -> Group:
    """The group; `inline`: with the resources of `types` and their versions (`load_inline`)."""
    group = groups_queryset(gt).filter(gid=gid).first()
    if group is None:
        raise not_found(f"/{gt.plural}/{gid}")
    if inline:
        load_inline([group], gt, types)
    return group


def resources_queryset(group: Group, rplural: str, inline: bool, *, prefetch: bool = True):
    """The group's resources of one type by id, each with its latest version (its document only `inline`) and its
    `versions_count`; `inline` and `prefetch`, with all its versions (`all_versions`)."""
    qs = (
        Resource.objects.filter(group=group, resource_type=rplural)
        .order_by("rid")
        .select_related("latest")
        .annotate(versions_count=_count_subquery(Version, resource=OuterRef("pk")))
    )
    if inline and prefetch:
        qs = qs.prefetch_related(_all_versions())
    elif not inline:
        qs = qs.defer("latest__content")
    return qs


def _all_versions() -> Prefetch:
    return Prefetch("versions", queryset=Version.objects.all(), to_attr="all_versions")


def resources_with_versions(
    group: Group, rplural: str, *, with_content: bool, ids: list[str] | None = None
) -> list[ResourceWithVersions]:
    """The group's resources of one type (or those of `ids`) in id order, each with all its versions
    (`all_versions`), their documents only `with_content`."""
    versions = Version.objects.all() if with_content else Version.objects.defer("content")
    qs = (
        Resource.objects.filter(group=group, resource_type=rplural)
        .order_by("rid")
        .prefetch_related(Prefetch("versions", queryset=versions, to_attr="all_versions"))
    )
    return list(qs if ids is None else qs.filter(rid__in=ids))


def resource_counts(group: Group, rplurals: list[str]) -> dict[str, int]:
    """How many resources of each type the group holds."""
    return {r: Resource.objects.filter(group=group, resource_type=r).count() for r in rplurals}


def resource_page(group: Group, rplural: str, filter_values: list[str], page: PageRequest, inline: bool):
    """A page of the group's resources of one type (by id, paged by key), and how many there are in all."""
    qs = filtering.apply(
        resources_queryset(group, rplural, inline, prefetch=False),
        filtering.parse(filter_values),
        id_column="rid",
        prefixes=("latest__", ""),
    )
    return page.rows(qs, ("rid",), prefetch=(_all_versions(),) if inline else ()), qs.count()


def get_resource(group: Group, rplural: str, rid: str, inline: bool = False) -> Resource:
    resource = resources_queryset(group, rplural, inline).filter(rid=rid).first()
    if resource is None:
        raise not_found(f"{group.path}/{rplural}/{rid}")
    resource.group = group
    return resource


def version_page(
    resource: Resource, filter_values: list[str], page: PageRequest, inline: bool, *, ancestors: bool = False
) -> tuple[list[Version], int]:
    """A page of the resource's versions in the order they were created (`attributes.version_order`, paged by key on
    the index of that order), and how many `?filter` keeps in all. `ancestors`: each with the id of the version before
    it in the order of the latest version (`ancestor`, None for the first), read from that order's index."""
    qs = Version.objects.filter(resource=resource)
    if not inline:
        qs = qs.defer("content")
    qs = filtering.apply(qs, filtering.parse(filter_values), id_column="vid")
    shown = qs.annotate(ancestor=RawSQL(_previous_version_sql(connection.vendor), ())) if ancestors else qs
    return page.rows(shown, VERSION_ORDER), qs.count()


# `attributes.version_order` as the columns of the index of that order (migration 0019)
VERSION_ORDER = ("created_on", "pk")


def _previous_version_sql(vendor: str) -> str:
    """The id of the version before the row's in the order of the latest version (`attributes.version_sort_key`; as
    `compiled_reads.history_columns` reads it for one version)."""
    table, qn = Version._meta.db_table, connection.ops.quote_name
    x_length, x_vid = version_order_sql(vendor, f"x.{qn('vid')}")
    v_length, v_vid = version_order_sql(vendor, f"{qn(table)}.{qn('vid')}")
    return (
        f"SELECT x.{qn('vid')} FROM {qn(table)} x WHERE x.{qn('resource_id')} = {qn(table)}.{qn('resource_id')} AND "
        f"({x_length}, {x_vid}) < ({v_length}, {v_vid}) ORDER BY {x_length} DESC, {x_vid} DESC LIMIT 1"
    )


def default_versions(resources: list[Resource], *, with_content: bool) -> dict[int, tuple[Version, str]]:
    """The default version of each of `resources` (the `latest` they were read with: `resources_queryset`), with its
    1.0 `ancestorid` (the id of the version before it, `version_page`'s `ancestors`; its own for the first) and, where
    `with_content`, its document, by the resource's primary key: one query by primary key, whatever the resources'
    versions (issue 40), that reads no more than those columns."""
    latest = {r.latest_id: r.latest for r in resources if r.latest is not None}
    qs = Version.objects.filter(pk__in=list(latest)).annotate(
        ancestor=RawSQL(_previous_version_sql(connection.vendor), ())
    )
    out = {}
    for pk, ancestor, *content in qs.values_list("pk", "ancestor", *(["content"] if with_content else [])):
        version = latest[pk]
        if content:  # (the page's `latest` was read without it)
            version.content = content[0]
        out[version.resource_id] = (version, ancestor or version.vid)
    return out


def get_version(resource: Resource, vid: str) -> Version:
    version = Version.objects.filter(resource=resource, vid=vid).first()
    if version is None:
        raise not_found(f"{resource.path}/versions/{vid}")
    return version


def get_document_version(gt: GroupType, gid: str, rplural: str, rid: str, vid: str | None = None):
    """(resource, version) for a document GET in one query: the latest version, or version `vid`.
    A miss costs extra queries only to name what is missing in the 404."""
    found = compiled_reads.document_row(gt.plural, gid, rplural, rid, vid)
    if found is not None and found[1] is not None:
        return found
    group = get_group(gt, gid)
    resource = get_resource(group, rplural, rid)
    if vid is not None:
        return resource, get_version(resource, vid)
    if resource.latest is None:
        raise Problem(
            "not-found", "{subject} has no version, so no document (only ?meta reads it)", subject=resource.path
        )
    return resource, resource.latest


def entity_attributes(path: str) -> dict | None:
    """The attributes of the resource (its latest version) at an API path such as
    `/definitionGroups/g/definitions/d`, or None when there is none. For validators that follow references."""
    parts = [p for p in path.split("/") if p]
    if len(parts) != 4:
        return None
    resource = (
        Resource.objects.select_related("latest")
        .filter(group__group_type=parts[0], group__gid=parts[1], resource_type=parts[2], rid=parts[3])
        .first()
    )
    return merged_attributes(resource, resource.latest) if resource is not None else None


def reference_resolves(reference, base_urls: list[str] | tuple[str, ...] = ()) -> bool:
    """Whether a reference names an entity that exists: True for one that points elsewhere (another registry's URL:
    not this registry's to check), else whether the group, resource or version it names is stored."""
    path = resolve(reference, base_urls)
    if path is None:
        return True
    parts = [p for p in path.split("/") if p]
    rows: QuerySet[Group] | QuerySet[Resource] | QuerySet[Version]
    rows = Group.objects.filter(group_type=parts[0], gid=parts[1])
    if len(parts) >= 4:
        rows = Resource.objects.filter(
            group__group_type=parts[0], group__gid=parts[1], resource_type=parts[2], rid=parts[3]
        )
    if len(parts) >= 6:
        rows = Version.objects.filter(resource__in=rows, vid=parts[5])
    return rows.exists()


def referenced_by(path: str, base_urls: list[str] | tuple[str, ...] = ()) -> dict[str, dict[str, str]]:
    """`GET PATH?referencedby` (docs/api-contract.md section 14): the entities outside `path` that point at it or
    into it (a reference to a schema version counts for the schema and its group), as
    `{referrer path: {"attribute": NAME, "reference": AS_WRITTEN}}`. Every reference in the registry is read
    per call (registry/domain/references.py: fine at the demo registry's size)."""
    return referrers([path], base_urls)
