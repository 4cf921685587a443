"""The hot read of the registry, a document GET by path, as SQL built once per process.

A document GET (`GET /GROUPs/g/RESOURCEs/r[/versions/v]`) is one indexed lookup, but building that query through
the ORM (filters over two joins, `select_related`, compilation) cost about 1.4 ms of the 2.3 ms the whole
request took (cProfile, issue 14): three times `GET /`. Here the statement is written once per database vendor
from the models' own metadata (tables, columns, quoting), and the rows become model instances through
Django's own converters and `Model.from_db`, exactly as a queryset would build them. The ORM has no way to
keep a compiled query for re-use with new parameters, so this small builder is written by hand.

The answers are the same objects `selectors.get_document_version` returned from the ORM: a Resource with
`.group` and `.latest` loaded, or a Version with `.resource` and `.resource.group` loaded. `document_key` answers
the same row as it comes from the database (no models built), with whether a caller's API token is valid, for the
fast path of document reads (registry/http/fast_reads.py), which only compares it.

On PostgreSQL with the connection pool, the statement is sent with server-side parameters, so that psycopg
prepares it on each pooled connection after a few uses: PostgreSQL then skips parsing and planning it (about 0.15
ms of its 0.2 ms). Without the pool (`DATABASE_POOL_SIZE=0`, e.g. behind PgBouncer in transaction mode, where a
prepared statement may not survive) it is sent as every other query is.
"""

from __future__ import annotations

import json
from functools import cache

from django.contrib.auth import get_user_model
from django.db import connections, router
from rest_framework.authtoken.models import Token

from .models import Group, Resource, Version


def _fields(model):
    return model._meta.concrete_fields


@cache
def _statement(vendor: str, by_version: bool, history: bool = False, caller: bool = False) -> str:
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
    if caller:  # whether the API token given as the first parameter is a key of an active user (NULL: no such key)
        user = get_user_model()
        extra += (
            f", (SELECT u.{qn(user._meta.get_field('is_active').column)} FROM {qn(Token._meta.db_table)} t "
            f"INNER JOIN {qn(user._meta.db_table)} u ON t.{qn(Token._meta.get_field('user').column)} = "
            f"u.{qn(user._meta.pk.column)} WHERE t.{qn(Token._meta.get_field('key').column)} = %s)"
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


def _cursor(connection):
    """A cursor of `connection` whose statements PostgreSQL may keep prepared (see the module's docstring)."""
    if connection.vendor != "postgresql" or not connection.settings_dict.get("OPTIONS", {}).get("pool"):
        return connection.cursor()
    from django.db.backends.postgresql.base import ServerBindingCursor

    connection.ensure_connection()
    raw = ServerBindingCursor(connection.connection)
    return connection.make_debug_cursor(raw) if connection.queries_logged else connection.make_cursor(raw)


def _fetch(statement: str, params: list):
    db = router.db_for_read(Resource)
    connection = connections[db]
    with _cursor(connection) as cursor:
        cursor.execute(statement, params)
        return db, connection, cursor.fetchone()


def document_key(
    group_type: str,
    gid: str,
    resource_type: str,
    rid: str,
    vid: str | None = None,
    *,
    history: bool = False,
    token: str | None = None,
) -> tuple[tuple, bool | None] | None:
    """The row `document_row` builds its answer from, as the database gives it (a tuple of plain values, the
    document's bytes among them), and whether `token` is the API token of an active user (None: no such token, or
    none given); None when the path matches nothing."""
    connection = connections[router.db_for_read(Resource)]
    params = [token, group_type, gid, resource_type, rid] + ([vid] if vid is not None else [])
    _db, _connection, row = _fetch(_statement(connection.vendor, vid is not None, history, caller=True), params)
    if row is None:
        return None
    return tuple(row[:-1]), row[-1]


def _column(model, name: str, offset: int) -> int:
    return offset + [f.name for f in _fields(model)].index(name)


def key_version_id(row: tuple) -> str | None:
    """The id of the version a `document_key` row holds (None: the resource has no version)."""
    return row[_column(Version, "vid", len(_fields(Resource)) + len(_fields(Group)))]


def key_sticky_default(row: tuple) -> str | None:
    """The version id a `document_key` row's resource names as its sticky default (None: the default is not
    sticky), read from its stored attributes as the 1.0 binding reads them."""
    extensions = row[_column(Resource, "extensions", 0)]
    if isinstance(extensions, str):  # JSON as text (PostgreSQL through Django's loader, SQLite)
        extensions = json.loads(extensions)
    if not isinstance(extensions, dict) or not extensions.get("defaultversionsticky"):
        return None
    return extensions.get("defaultversionid")


def document_row(
    group_type: str, gid: str, resource_type: str, rid: str, vid: str | None = None, *, history: bool = False
):
    """(resource, version) at the path, with the resource's group loaded; None when the path matches nothing.

    Without `vid` the version is the resource's latest (None for a resource without versions). With `history`,
    the same one query also answers the resource's version count and the id of the version created before
    this one (None for the first): (resource, version, count, previous id)."""
    vendor = connections[router.db_for_read(Resource)].vendor
    params = [group_type, gid, resource_type, rid] + ([vid] if vid is not None else [])
    db, connection, row = _fetch(_statement(vendor, vid is not None, history), params)
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
