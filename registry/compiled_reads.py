"""The hot read of the registry, a document GET by path, as SQL built once per process; and the API token's lookup
every request with a token makes (`token_and_user`, registry/http/token_auth.py).

A document GET (`GET /GROUPs/g/RESOURCEs/r[/versions/v]`) is one indexed lookup, but building that query through
the ORM (filters over two joins, `select_related`, compilation) cost more than half of the whole request
(issue 14; docs/performance.md). Here the statement is written once per database vendor
from the models' own metadata (tables, columns, quoting), and the rows become model instances through
Django's own converters and `Model.from_db`, exactly as a queryset would build them. The ORM has no way to
keep a compiled query for re-use with new parameters, so this small builder is written by hand.

The answers are the same objects `selectors.get_document_version` returned from the ORM: a Resource with
`.group` and `.latest` loaded, or a Version with `.resource` and `.resource.group` loaded. Its parts (`from_where`,
`history_columns`, `caller_column`) also build the fast path's key of a document (registry/store/document_keys.py).

On PostgreSQL with the connection pool, the statement is sent with server-side parameters, so that psycopg
prepares it on each pooled connection after a few uses: PostgreSQL then skips parsing and planning it (most of
its work for this statement). Without the pool (`DATABASE_POOL_SIZE=0`, e.g. behind PgBouncer in transaction mode, where a
prepared statement may not survive) it is sent as every other query is.
"""

from __future__ import annotations

from functools import cache

from django.contrib.auth import get_user_model
from django.db import connections, router
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper
from rest_framework.authtoken.models import Token

from .domain.attributes import version_order_sql
from .models import Group, Resource, Version


def _qn():
    return connections[router.db_for_read(Resource)].ops.quote_name


@cache
def from_where(vendor: str, by_version: bool) -> str:
    """FROM and WHERE of a document read (`r`, `g`, `v`: the resource, its group, the version); its parameters are
    the group type, group id, resource type, resource id, and with `by_version` the version id."""
    qn = _qn()
    resource, group, version = (qn(m._meta.db_table) for m in (Resource, Group, Version))
    rfk_group = qn(Resource._meta.get_field("group").column)
    rfk_latest = qn(Resource._meta.get_field("latest").column)
    vfk_resource = qn(Version._meta.get_field("resource").column)
    where = f"g.{qn('group_type')} = %s AND g.{qn('gid')} = %s AND r.{qn('resource_type')} = %s AND r.{qn('rid')} = %s"
    if by_version:
        return (
            f"FROM {version} v INNER JOIN {resource} r ON v.{vfk_resource} = r.{qn('id')} "
            f"INNER JOIN {group} g ON r.{rfk_group} = g.{qn('id')} "
            f"WHERE {where} AND v.{qn('vid')} = %s"
        )
    return (
        f"FROM {resource} r INNER JOIN {group} g ON r.{rfk_group} = g.{qn('id')} "
        f"LEFT OUTER JOIN {version} v ON r.{rfk_latest} = v.{qn('id')} "
        f"WHERE {where}"
    )


@cache
def history_columns(vendor: str) -> str:
    """The resource's version count and the id of the version before this one in the order of the latest version
    (`attributes.version_sort_key`: its 1.0 `ancestorid`) (no parameters)."""
    qn = _qn()
    version, vfk_resource = qn(Version._meta.db_table), qn(Version._meta.get_field("resource").column)
    pk = qn("id")
    x_length, x_vid = version_order_sql(vendor, f"x.{qn('vid')}")
    v_length, v_vid = version_order_sql(vendor, f"v.{qn('vid')}")
    return (
        f"(SELECT COUNT(*) FROM {version} x WHERE x.{vfk_resource} = r.{pk}), "
        # a row comparison: the index of that order (registry/migrations/0016_version_resource_order.py) finds it
        f"(SELECT x.{qn('vid')} FROM {version} x WHERE x.{vfk_resource} = r.{pk} AND ({x_length}, {x_vid}) < "
        f"({v_length}, {v_vid}) ORDER BY {x_length} DESC, {x_vid} DESC LIMIT 1)"
    )


@cache
def _token_from_where(vendor: str) -> str:
    """FROM and WHERE of an API token (`t`) and its user (`u`) by the token's key, its parameter."""
    qn = _qn()
    user = get_user_model()
    return (
        f"FROM {qn(Token._meta.db_table)} t INNER JOIN {qn(user._meta.db_table)} u "
        f"ON t.{qn(Token._meta.get_field('user').column)} = u.{qn(user._meta.pk.column)} "
        f"WHERE t.{qn(Token._meta.get_field('key').column)} = %s"
    )


@cache
def caller_column(vendor: str) -> str:
    """Whether the API token given as its parameter is a key of an active user (NULL: no such key)."""
    return f"(SELECT u.{_qn()(get_user_model()._meta.get_field('is_active').column)} {_token_from_where(vendor)})"


@cache
def _all_columns(*aliased) -> str:
    """Every column of each (model, alias), in order."""
    qn = _qn()
    return ", ".join(f"{alias}.{qn(f.column)}" for model, alias in aliased for f in model._meta.concrete_fields)


@cache
def _statement(vendor: str, by_version: bool, history: bool = False, caller: bool = False) -> str:
    """Every column of the resource, its group and the version (then the history and caller columns)."""
    columns = _all_columns((Resource, "r"), (Group, "g"), (Version, "v"))
    extra = (f", {history_columns(vendor)}" if history else "") + (f", {caller_column(vendor)}" if caller else "")
    return f"SELECT {columns}{extra} {from_where(vendor, by_version)}"


@cache
def _converters(vendor: str, model) -> list[tuple]:
    """Per field, its column expression and the converters a queryset would apply (backend's, then the field's)."""
    connection = connections[router.db_for_read(model)]
    out = []
    for field in model._meta.concrete_fields:
        expression = field.get_col(model._meta.db_table)
        out.append((expression, [*connection.ops.get_db_converters(expression), *field.get_db_converters(connection)]))
    return out


def _instances(models, db: str, row: tuple, connection) -> list:
    """An instance of each model, in order, from its columns in `row` one after the other (None for a model whose
    columns are NULL: the LEFT JOIN found no row)."""
    out: list = []
    start = 0
    for model in models:
        fields = model._meta.concrete_fields
        values, start = row[start : start + len(fields)], start + len(fields)
        if values[0] is None:
            out.append(None)
            continue
        converted = []
        for (expression, converters), value in zip(_converters(connection.vendor, model), values, strict=True):
            for convert in converters:
                value = convert(value, expression, connection)
            converted.append(value)
        out.append(model.from_db(db, [f.attname for f in fields], converted))
    return out


def row_of(model, where: str, params: list, *, lock: str = ""):
    """The instance of `model` whose row matches `where`, as a queryset builds it, or None; `lock`: a locking clause
    (`FOR UPDATE`, `FOR KEY SHARE`: left out where the database has none). Written out and prepared: the ORM's
    compilation of the statements every new version sends (its group's, its resource's lock, its latest version)
    cost as much as the statements."""
    return row_with(model, "", where, params, lock=lock)[0]


def row_with(model, more: str, where: str, params: list, *, lock: str = "") -> tuple:
    """`row_of`'s instance (None without a row), then the values of `more`: columns after the model's (of its row
    `t`, each with its comma before it), read by the same statement."""
    connection = connections[router.db_for_read(model)]
    if not connection.features.has_select_for_update:
        lock = ""
    sql = f"SELECT {_all_columns((model, 't'))}{more} FROM {_qn()(model._meta.db_table)} t WHERE {where} {lock}"
    db, connection, row = fetch_one(sql, params, model=model)
    if row is None:
        return (None,)
    return _instances([model], db, row, connection)[0], *row[len(model._meta.concrete_fields) :]


def prepared_cursor(connection):
    """A cursor of `connection` whose statements PostgreSQL may keep prepared (see the module's docstring)."""
    if connection.vendor != "postgresql" or not connection.settings_dict.get("OPTIONS", {}).get("pool"):
        return connection.cursor()
    # here: PostgreSQL's backend and psycopg load only where PostgreSQL is the database
    # (defined only when psycopg 3 is installed, which django-stubs does not model)
    from django.db.backends.postgresql.base import ServerBindingCursor  # type: ignore[attr-defined]

    connection.ensure_connection()
    raw = ServerBindingCursor(connection.connection)
    return (CursorDebugWrapper if connection.queries_logged else CursorWrapper)(raw, connection)


def fetch_one(statement: str, params: list, *, model=Resource):
    """(database alias, connection, first row) of a statement sent on the connection that reads `model`."""
    db = router.db_for_read(model)
    connection = connections[db]
    with prepared_cursor(connection) as cursor:
        cursor.execute(statement, params)
        return db, connection, cursor.fetchone()


def document_row(
    group_type: str, gid: str, resource_type: str, rid: str, vid: str | None = None, *, history: bool = False
):
    """(resource, version) at the path, with the resource's group loaded; None when the path matches nothing.

    Without `vid` the version is the resource's latest (None for a resource without versions). With `history`,
    the same one query also answers the resource's version count and the id of the version before this one
    in the order of the latest version (`history_columns`; None for the first): (resource, version, count, previous id)."""
    vendor = connections[router.db_for_read(Resource)].vendor
    params = [group_type, gid, resource_type, rid] + ([vid] if vid is not None else [])
    db, connection, row = fetch_one(_statement(vendor, vid is not None, history), params)
    if row is None:
        return None
    resource, group, version = _instances((Resource, Group, Version), db, row, connection)
    resource.group = group
    if version is not None:
        version.resource = resource
    if vid is None:
        resource.latest = version
    return (resource, version, row[-2], row[-1]) if history else (resource, version)


@cache
def _token_statement(vendor: str) -> str:
    return f"SELECT {_all_columns((Token, 't'), (get_user_model(), 'u'))} {_token_from_where(vendor)}"


def token_and_user(key: str):
    """(token, user) of the API token `key`, the token's `user` loaded, as `Token.objects.select_related("user")`
    gives them; None when there is no such token."""
    db, connection, row = fetch_one(_token_statement(connections[router.db_for_read(Token)].vendor), [key], model=Token)
    if row is None:
        return None
    token, user = _instances((Token, get_user_model()), db, row, connection)
    token.user = user
    return token, user
