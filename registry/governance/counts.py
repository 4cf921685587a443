"""The governance UI's counts at any size (issue 40): a changelist's paginator and the dashboard's counts per type
use `registry.store.estimates` (the planner's estimate on PostgreSQL when it is large, else an exact count), never a
`COUNT(*)` of a large table.

- `EstimatedCountPaginator`: Django's paginator with that count; the last pages of an estimated list may be empty
  or missing (Django's changelist shows an empty page, never an error).
- `shown_count(queryset)`: the count as the dashboard writes it ("about 1,000,000" when estimated).
"""

from __future__ import annotations

from django.core.paginator import Paginator
from django.utils.functional import cached_property

from registry.store.estimates import estimated_count


def shown_count(queryset) -> str:
    count, estimated = estimated_count(queryset)
    return f"about {count:,}" if estimated else str(count)


class EstimatedCountPaginator(Paginator):
    @cached_property
    def count(self) -> int:
        return estimated_count(self.object_list)[0]
