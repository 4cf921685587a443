"""The catalog lists' filters: "By format" from the formats actually stored (spellings of one format grouped),
and owner and tag filters on a resource's latest version."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Q

from registry.admin import OwnerFilter, TagFilter

from .validators.format_names import format_family_key, format_family_label

SAMPLE = 2_000  # rows read for a filter's choices


class FormatFilter(admin.SimpleListFilter):
    """ "By format": the formats actually stored, one entry per format whatever its spelling
    (`JSONSchema/Draft-07`, `JsonSchema/draft-07`, ...), counted. A schema's format is held by the schema or by
    its versions, so `fields` names every place a format of the listed objects may be stored."""

    title = "format"
    parameter_name = "format"  # choices: the formats of the newest SAMPLE entries
    fields: tuple[str, ...] = ("latest__extensions__format", "extensions__format")

    def _spellings(self, request, model_admin) -> dict[str, set[str]]:
        """The formats of the newest SAMPLE entries (all of them in a smaller list): a DISTINCT over every row read
        the whole table at each page view (issue 40)."""
        found: dict[str, set[str]] = {}
        newest = model_admin.get_queryset(request).order_by("-pk")[:SAMPLE]
        for row in newest.values_list(*self.fields):
            for value in row:
                if isinstance(value, str) and value:
                    found.setdefault(format_family_key(value), set()).add(value)
        return found

    def lookups(self, request, model_admin):
        self.spellings = self._spellings(request, model_admin)
        choices = []
        for key, spellings in self.spellings.items():
            label = format_family_label(min(spellings))
            if len(spellings) > 1:
                label += f" ({len(spellings)} spellings)"
            choices.append((key, label))
        return sorted(choices, key=lambda choice: choice[1].lower())

    def queryset(self, request, queryset):
        if not self.value():
            return queryset
        spellings = getattr(self, "spellings", {}).get(self.value(), {self.value()})
        match = Q()
        for name in self.fields:
            match |= Q(**{f"{name}__in": sorted(spellings)})
        return queryset.filter(match)


class VersionFormatFilter(FormatFilter):
    fields = ("extensions__format", "resource__extensions__format")


class GroupFormatFilter(FormatFilter):
    fields = ("extensions__format",)


class ResourceOwnerFilter(OwnerFilter):
    field = "latest__tags"


class ResourceTagFilter(TagFilter):
    field = "latest__tags"
