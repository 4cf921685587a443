"""The hot read of the registry, a document GET by path, as SQL built once per process.

A document GET (`GET /GROUPs/g/RESOURCEs/r[/versions/v]`) is one indexed lookup, but building that query through
the ORM (filters over two joins, `select_related`, compilation) cost about 1.4 ms of the 2.3 ms the whole
request took (cProfile, issue 14): three times `GET /`. Here the statement is written once per database vendor
from the models' own metadata (tables, columns, quoting), and the rows become model instances through
Django's own converters and `Model.from_db`, exactly as a queryset would build them. The ORM has no way to
keep a compiled query for re-use with new parameters, so this small builder is written by hand.

The answers are the same objects `selectors.get_document_version` returned from the ORM: a Resource with
`.group` and `.latest` loaded, or a Version with `.resource` and `.resource.group` loaded.
"""

from __future__ import annotations

from functools import cache

from django.db import connections, router

from .models import Group, Resource, Version


def _fields(model):
    return model._meta.concrete_fields


@cache
def _statement(vendor: str, by_version: bool, history: bool = False) -> str:
    connection = connections[router.db_for_read(Resource)]
    qn = connection.ops.quote_name

    def columns(model, alias):
        return ", ".join(f"{alias}.{qn(f.column)}" for f in _fields(model))

    resource, group, version = (qn(m._meta.db_table) for m in (Resource, Group, Version))
    rfk_group = qn(Resource._meta.get_field("group").column)
    rfk_latest = qn(Resource._meta.get_field("latest").column)
    vfk_resource = qn(Version._meta.get_field("resource").column)
    where = f"g.{qn('group_type')} = %s AND g.{qn('gid')} = %s AND r.{qn('resource_type')} = %s AND r.{qn('rid')} = %s"
    extra = ""
    if history:  # the resource's version count and the id of the version created before this one
        created, pk, vid = qn("created_on"), qn("id"), qn("vid")
        extra = (
            f", (SELECT COUNT(*) FROM {version} x WHERE x.{vfk_resource} = r.{pk}), "
            f"(SELECT x.{vid} FROM {version} x WHERE x.{vfk_resource} = r.{pk} AND (x.{created} < v.{created} "
            f"OR (x.{created} = v.{created} AND x.{pk} < v.{pk})) ORDER BY x.{created} DESC, x.{pk} DESC LIMIT 1)"
        )
    if by_version:
        return (
            f"SELECT {columns(Resource, 'r')}, {columns(Group, 'g')}, {columns(Version, 'v')}{extra} "
            f"FROM {version} v INNER JOIN {resource} r ON v.{vfk_resource} = r.{qn('id')} "
            f"INNER JOIN {group} g ON r.{rfk_group} = g.{qn('id')} "
            f"WHERE {where} AND v.{qn('vid')} = %s"
        )
    return (
        f"SELECT {columns(Resource, 'r')}, {columns(Group, 'g')}, {columns(Version, 'v')}{extra} "
        f"FROM {resource} r INNER JOIN {group} g ON r.{rfk_group} = g.{qn('id')} "
        f"LEFT OUTER JOIN {version} v ON r.{rfk_latest} = v.{qn('id')} "
        f"WHERE {where}"
    )


@cache
def _converters(vendor: str, model) -> list[tuple]:
    """Per field, its column expression and the converters a queryset would apply (backend's, then the field's)."""
    connection = connections[router.db_for_read(model)]
    out = []
    for field in _fields(model):
        expression = field.get_col(model._meta.db_table)
        out.append((expression, [*connection.ops.get_db_converters(expression), *field.get_db_converters(connection)]))
    return out


def _instance(model, db: str, values: tuple, connection):
    fields = _fields(model)
    if values[0] is None:  # the LEFT JOIN found no row
        return None
    converted = []
    for (expression, converters), value in zip(_converters(connection.vendor, model), values, strict=True):
        for convert in converters:
            value = convert(value, expression, connection)
        converted.append(value)
    return model.from_db(db, [f.attname for f in fields], converted)


def document_row(
    group_type: str, gid: str, resource_type: str, rid: str, vid: str | None = None, *, history: bool = False
):
    """(resource, version) at the path, with the resource's group loaded; None when the path matches nothing.

    Without `vid` the version is the resource's latest (None for a resource without versions). With `history`,
    the same one query also answers the resource's version count and the id of the version created before
    this one (None for the first): (resource, version, count, previous id)."""
    db = router.db_for_read(Resource)
    connection = connections[db]
    params = [group_type, gid, resource_type, rid] + ([vid] if vid is not None else [])
    with connection.cursor() as cursor:
        cursor.execute(_statement(connection.vendor, vid is not None, history), params)
        row = cursor.fetchone()
    if row is None:
        return None
    n_resource, n_group, n_version = len(_fields(Resource)), len(_fields(Group)), len(_fields(Version))
    resource = _instance(Resource, db, row[:n_resource], connection)
    group = _instance(Group, db, row[n_resource : n_resource + n_group], connection)
    version = _instance(Version, db, row[n_resource + n_group : n_resource + n_group + n_version], connection)
    resource.group = group
    if version is not None:
        version.resource = resource
    if vid is None:
        resource.latest = version
    if history:
        return resource, version, row[-2], row[-1]
    return resource, version
