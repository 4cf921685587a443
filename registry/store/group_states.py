"""The state of each group as one short value, which changes with every committed change of the group, of one of its
resources or of one of their versions: whole-registry answers keep each group's rendered part until its state
changes (registry/http/rendered_groups.py), so the first read after a write renders only the groups it changed.

On PostgreSQL a group's state is its row's `xmin` with the count of its (resource, version) pairs and the sum of a
64-bit hash of each pair's ids and `xmin`s. `xmin` is the id of the transaction that wrote that version of the row
(each UPDATE writes a new one), so a committed change of any column, a row added and a row deleted all change the
state, whatever order transactions commit in; one query for every group of a type reads only row headers and ids
(no documents; far cheaper than an ordered digest of the same rows). Two different sets give the
same count and sum by chance about once in 2^64; two committed states of one row could carry the same `xmin` only
after 4 billion transactions, when the counter wraps around. On SQLite (in process, no network) the state is a
digest of every column of the group's rows, read as they are stored.
"""

from __future__ import annotations

import hashlib

from django.db import connections, router

from ..domain.model import GroupType
from ..models import Group, Resource, Version


def _tables(qn) -> tuple[str, str, str, str, str]:
    return (
        qn(Group._meta.db_table),
        qn(Resource._meta.db_table),
        qn(Version._meta.db_table),
        qn(Resource._meta.get_field("group").column),
        qn(Version._meta.get_field("resource").column),
    )


def _postgresql(connection, gt: GroupType) -> dict[str, str]:
    qn = connection.ops.quote_name
    group, resource, version, rfk_group, vfk_resource = _tables(qn)
    pk = qn("id")
    row = f"r.{pk} || '.' || r.xmin::text || '.' || COALESCE(v.{pk} || '.' || v.xmin::text, '')"
    statement = (
        f"SELECT g.{qn('gid')}, g.xmin::text, a.n, a.h FROM {group} g LEFT JOIN ("
        f"SELECT r.{rfk_group} AS owner, COUNT(*) AS n, SUM(hashtextextended({row}, 0)::numeric) AS h "
        f"FROM {resource} r INNER JOIN {group} o ON r.{rfk_group} = o.{pk} "
        f"LEFT JOIN {version} v ON v.{vfk_resource} = r.{pk} "
        f"WHERE o.{qn('group_type')} = %s GROUP BY r.{rfk_group}) a ON a.owner = g.{pk} "
        f"WHERE g.{qn('group_type')} = %s ORDER BY g.{qn('gid')}"
    )
    with connection.cursor() as cursor:
        cursor.execute(statement, [gt.plural, gt.plural])
        return {gid: f"{own}/{count or 0}/{digest or 0}" for gid, own, count, digest in cursor.fetchall()}


def _whole_rows(connection, gt: GroupType) -> dict[str, str]:
    qn = connection.ops.quote_name
    group, resource, version, rfk_group, vfk_resource = _tables(qn)
    pk = qn("id")
    digests: dict[int, hashlib.blake2b] = {}
    gids: dict[int, str] = {}
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {group} g WHERE g.{qn('group_type')} = %s ORDER BY g.{qn('gid')}", [gt.plural])
        names = [c[0] for c in cursor.description]
        for row in cursor.fetchall():
            values = dict(zip(names, row, strict=True))
            gids[values["id"]] = values["gid"]
            digests[values["id"]] = hashlib.blake2b(repr(row).encode(), digest_size=16)
        for table, owner in (
            (f"{resource} r", f"r.{rfk_group}"),
            (f"{version} v INNER JOIN {resource} r ON v.{vfk_resource} = r.{pk}", f"r.{rfk_group}"),
        ):
            alias = table.split()[1]
            cursor.execute(
                f"SELECT {owner}, {alias}.* FROM {table} INNER JOIN {group} g ON {owner} = g.{pk} "
                f"WHERE g.{qn('group_type')} = %s ORDER BY {alias}.{pk}",
                [gt.plural],
            )
            for row in cursor.fetchall():
                digest = digests.get(row[0])
                if digest is not None:
                    digest.update(b"\x00")
                    digest.update(repr(row).encode())
    return {gid: digests[pk_].hexdigest() for pk_, gid in gids.items()}


def group_states(gt: GroupType) -> dict[str, str]:
    """Every group of `gt`, in the order `selectors.iter_groups` gives them (by id, in the database's collation), with
    its state."""
    connection = connections[router.db_for_read(Group)]
    if connection.vendor == "postgresql":
        return _postgresql(connection, gt)
    return _whole_rows(connection, gt)
