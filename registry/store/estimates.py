"""Row counts that stay cheap at any size (issue 40): on PostgreSQL the planner's estimate of a query's rows
(EXPLAIN: no row is read) when that estimate is large, a count of at most EXACT_BELOW + 1 rows below it. A `COUNT(*)`
reads every row it counts, and its cost grows with the registry (figures in docs/performance.md, "A registry of a
million versions"). Elsewhere (SQLite) every count is exact.

- `planned_rows(queryset)`: the estimate, or None on other databases.
- `estimated_count(queryset)`: the count (`Counted`: its rows, whether it is an estimate or a lower bound).
"""

from __future__ import annotations

import json
from typing import NamedTuple

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


class Counted(NamedTuple):
    """A count as `estimated_count` found it: `rows`, and whether that is the planner's estimate (`estimated`) or
    only a lower bound (`more`: there are more rows than that)."""

    rows: int
    estimated: bool
    more: bool = False

    def shown(self) -> str:
        """As a page writes it: "12", "about 1,000,000", "more than 10,000"."""
        if self.more:
            return f"more than {self.rows:,}"
        return f"about {self.rows:,}" if self.estimated else str(self.rows)


def estimated_count(queryset, exact_below: int | None = None) -> Counted:
    """How many rows `queryset` holds: the planner's estimate when it is `exact_below` (default EXACT_BELOW) or more,
    else a count of at most `exact_below` + 1 rows, exact up to `exact_below`. The planner guesses the share of rows
    a condition it has no statistics for keeps (a JSON attribute's value, a text search), so a small estimate may
    stand for a large list, which a count of every row would read whole. On other databases every count is exact."""
    bound = EXACT_BELOW if exact_below is None else exact_below
    planned = planned_rows(queryset)
    if planned is None:
        return Counted(queryset.count(), False)
    if planned >= bound:
        return Counted(planned, True)
    counted = queryset.order_by()[: bound + 1].count()
    if counted > bound:
        return Counted(bound, True, more=True)
    return Counted(counted, False)
