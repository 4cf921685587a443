"""The read check's one query (public reads off, docs/teams.md): a group's owners and the caller's team names
together, as SQL written once per process, so that a read below a group costs one indexed look-up more than a public
read, whether the group has owners or not.

Built through the ORM, the same query (a UNION of the group's `owners` key and the user's groups) cost several times
the look-up to compile; the ORM keeps no compiled query for re-use with new parameters, so this statement
is written by hand from the models' metadata (tables, columns, quoting), as registry/compiled_reads.py does for the
document GET. SQLite and PostgreSQL only (the databases this project runs on); another vendor gets None, and the
caller uses the ORM.
"""

from __future__ import annotations

import json
from functools import cache

from django.contrib.auth import get_user_model
from django.db import connections, router
from django.db.models import Field

from ..models import Group

OWNERS_KEY = {
    "postgresql": "({column} -> 'owners')::text",
    "sqlite": "json_extract({column}, '$.\"owners\"')",
}


@cache
def _statement(vendor: str, teams: bool) -> str | None:
    if vendor not in OWNERS_KEY:
        return None
    qn = connections[router.db_for_read(Group)].ops.quote_name
    owners = OWNERS_KEY[vendor].format(column=qn("extensions"))
    sql = f"SELECT 'o', {owners} FROM {qn(Group._meta.db_table)} WHERE {qn('group_type')} = %s AND {qn('gid')} = %s"
    if teams:
        field = get_user_model()._meta.get_field("groups")
        through_model, team_model = field.remote_field.through, field.related_model
        # narrowing: both are model classes once the apps are loaded (a string only before)
        assert through_model is not None and not isinstance(team_model, str)
        through, team = through_model._meta, team_model._meta
        user_field = through.get_field(field.m2m_field_name())
        team_field = through.get_field(field.m2m_reverse_field_name())
        assert isinstance(user_field, Field) and isinstance(team_field, Field) and team.pk is not None
        user_column, team_column = user_field.column, team_field.column
        sql += (
            f" UNION ALL SELECT 't', t.{qn('name')} FROM {qn(team.db_table)} t INNER JOIN {qn(through.db_table)} m "
            f"ON m.{qn(team_column)} = t.{qn(team.pk.column)} WHERE m.{qn(user_column)} = %s"
        )
    return sql


def owners_and_teams(group_type: str, gid: str, user_pk=None) -> tuple[dict | None, frozenset[str] | None] | None:
    """(the group's owners, None when there is no such group; the names of the teams of the user `user_pk`, None when
    not asked), or None when this database has no statement here."""
    connection = connections[router.db_for_read(Group)]
    sql = _statement(connection.vendor, user_pk is not None)
    if sql is None:
        return None
    params = [group_type, gid] + ([user_pk] if user_pk is not None else [])
    owners, teams = None, set()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        for kind, value in cursor.fetchall():
            if kind == "t":
                teams.add(value)
                continue
            try:
                decoded = json.loads(value) if value else None
            except ValueError:
                decoded = None
            owners = decoded if isinstance(decoded, dict) else {}
    return owners, (frozenset(teams) if user_pk is not None else None)
