"""The governance UI's counts at any size (issue 40): a changelist's paginator and the dashboard's counts per type
use `registry.store.estimates` (the planner's estimate on PostgreSQL when it is large, else an exact count), never a
`COUNT(*)` of a large table.

- `EstimatedCountPaginator`: Django's paginator with that count; the last pages of an estimated list may be empty
  or missing (Django's changelist shows an empty page, never an error). Its pages reach the first DEEPEST_ROW rows
  (the list says so, "search or filter to reach the others"): a page at an offset of a million rows reads them all.
  A page past the first is read by its primary keys first, so that the rows skipped skip the list's joins too.
- `shown_count(queryset)`: the count as the dashboard writes it ("about 1,000,000" when estimated, "more than
  10,000" for a list whose estimate was wrong).
- `EstimatedCounts`: a ModelAdmin mixin for the lists of tables that grow (the registry's entities, the outbox,
  deliveries): that paginator, no second count of the unfiltered table (`show_full_result_count`), and no facets
  (Django's "Show counts" counts each filter's choices over the whole list: one scan of the table per choice).
- `NewestValuesFilter`: a list filter offering a field's values among the newest rows, where Django's filter of a
  field's values reads every row of the table (a DISTINCT) at each view of the list.
"""

from __future__ import annotations

from math import ceil
from typing import ClassVar

from django.contrib import admin
from django.core.paginator import Page, Paginator
from django.db.models import QuerySet
from django.utils.functional import cached_property

from registry.store.estimates import Counted, estimated_count

DEEPEST_ROW = 10_000  # the rows a changelist's pages reach (docs/performance.md: the cost of a deep OFFSET)


def shown_count(queryset) -> str:
    return estimated_count(queryset).shown()


class EstimatedCountPaginator(Paginator):
    """The count from `estimated_count`; the pages end at DEEPEST_ROW (a page further is out of range, as one past
    the end is): an OFFSET reads every row it skips, so the last page of a million versions read them all."""

    @cached_property
    def counted(self) -> Counted:
        return estimated_count(self.object_list)

    @cached_property
    def count(self) -> int:
        return self.counted.rows

    def page(self, number):
        """A page past the first is found by its rows' primary keys, then read: the rows its OFFSET skips are read
        without the list's joins and per-row subqueries (each schema's count of versions)."""
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        top = bottom + self.per_page
        if top + self.orphans >= self.count:
            top = self.count
        rows = self.object_list
        if bottom == 0 or not isinstance(rows, QuerySet):
            return Page(rows[bottom:top], number, self)
        pks = list(rows.values_list("pk", flat=True)[bottom:top])
        found = {row.pk: row for row in rows.order_by().filter(pk__in=pks)}
        return Page([found[pk] for pk in pks if pk in found], number, self)

    @cached_property
    def num_pages(self) -> int:
        return min(self.all_pages, max(DEEPEST_ROW // self.per_page, 1))

    @property
    def all_pages(self) -> int:
        """The pages of the whole list (Django's `num_pages`)."""
        if self.count == 0 and not self.allow_empty_first_page:
            return 0
        return ceil(max(1, self.count - self.orphans) / self.per_page)

    @property
    def capped(self) -> bool:
        return self.all_pages > self.num_pages

    @property
    def reach(self) -> int:
        """The rows the pages list."""
        return self.num_pages * self.per_page


class EstimatedCounts:
    """ModelAdmin attributes for the list of a table that grows (see the module docstring)."""

    paginator: ClassVar[type] = EstimatedCountPaginator
    show_full_result_count = False
    show_facets = admin.ShowFacets.NEVER


class NewestValuesFilter(admin.SimpleListFilter):
    """The distinct values of `field` among the newest `sample` rows of the list (every value of a smaller table),
    in their order; a value is compared as it is written in the URL."""

    field = ""
    sample = 2_000

    def lookups(self, request, model_admin):
        newest = model_admin.get_queryset(request).order_by("-pk").values_list(self.field, flat=True)
        values = {value for value in newest[: self.sample] if value is not None and value != ""}
        return [(str(value), str(value)) for value in sorted(values, key=str)]

    def queryset(self, request, queryset):
        return queryset.filter(**{self.field: self.value()}) if self.value() else queryset
