"""Row counts that stay cheap at any size (issue 40): on PostgreSQL the planner's estimate of a query's rows
(EXPLAIN: no row is read) when that estimate is large, an exact count below it. A `COUNT(*)` reads every row it
counts, and its cost grows with the registry (figures in docs/performance.md, "A registry of a million versions").
Elsewhere (SQLite) every count is exact.

- `planned_rows(queryset)`: the estimate, or None on other databases.
- `estimated_count(queryset)`: (count, whether it is an estimate).
"""

from __future__ import annotations

import json

from django.db import connections

EXACT_BELOW = 10_000  # an estimate under this is counted exactly (a few milliseconds at most)


def planned_rows(queryset) -> int | None:
    """PostgreSQL's estimate of the rows `queryset` returns (EXPLAIN, without running it), or None elsewhere."""
    connection = connections[queryset.db]
    if connection.vendor != "postgresql":
        return None
    sql, params = queryset.order_by().values("pk").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        plan = cursor.fetchone()[0]
    if isinstance(plan, str):
        plan = json.loads(plan)
    return int(plan[0]["Plan"]["Plan Rows"])


def estimated_count(queryset) -> tuple[int, bool]:
    """How many rows `queryset` holds: the planner's estimate when it is EXACT_BELOW or more, else an exact count.
    The second value says which."""
    planned = planned_rows(queryset)
    if planned is not None and planned >= EXACT_BELOW:
        return planned, True
    return queryset.count(), False
