"""`?filter=ATTR=VALUE` on collections: repeatable, AND-combined, `*` wildcards, dotted attribute paths.

Matching is case-insensitive. Common attributes map to columns; every other attribute is looked up in
the JSON extension attributes (`config.protocol`, `tags.owner`). For resources, attributes are those of
the latest version, falling back to the resource-level ones.
"""

from __future__ import annotations

import re

from django.db.models import F, Q, TextField
from django.db.models.fields.json import KeyTextTransform, KeyTransform
from django.db.models.functions import Cast

from .errors import Problem

ATTR_PATTERN = re.compile(r"^[A-Za-z0-9_$][A-Za-z0-9_.$-]*$")
COLUMNS = {"name", "description", "docs", "epoch", "createdBy", "modifiedBy"}
COLUMN_NAMES = {"createdBy": "created_by", "modifiedBy": "modified_by"}


def parse(values: list[str]) -> list[tuple[str, str]]:
    out = []
    for raw in values:
        attr, sep, value = raw.partition("=")
        if not sep or not ATTR_PATTERN.fullmatch(attr) or ".." in attr or attr.endswith("."):
            raise Problem("bad-request", f"filter {raw!r} must be ATTRIBUTE=VALUE (dotted attribute paths allowed)")
        out.append((attr, value))
    return out


def _regex(value: str) -> str:
    return "^" + ".*".join(re.escape(part) for part in value.split("*")) + "$"


def _match(expr_name: str, value: str) -> Q:
    if "*" in value:
        return Q(**{f"{expr_name}__iregex": _regex(value)})
    return Q(**{f"{expr_name}__iexact": value})


def apply(queryset, filters: list[tuple[str, str]], *, id_column: str, prefixes: tuple[str, ...] = ("",)):
    """Filter a queryset of groups (prefixes ("",)), resources (("latest__", "")) or versions."""
    for index, (attr, value) in enumerate(filters):
        alternatives = Q()
        if attr == "id":
            alternatives = _match(id_column, value)
        else:
            for prefix in prefixes:
                alias = f"_f{index}_{len(prefix)}"
                if attr in COLUMNS:
                    column = prefix + COLUMN_NAMES.get(attr, attr)
                    if not prefix and not any(f.name == column for f in queryset.model._meta.fields):
                        continue  # resources have no epoch of their own: only their latest version's
                    queryset = queryset.alias(**{alias: Cast(F(column), TextField())})
                else:
                    head, _, rest = attr.partition(".")
                    base = "tags" if head == "tags" and rest else "extensions"
                    parts = [rest] if base == "tags" else [head] + ([rest] if rest else [])
                    keys = [p for part in parts for p in part.split(".")]
                    # KT("latest__extensions__x") would read `latest` as the JSON column: nest transforms
                    # on F() so that the JSON column is reached through the relation
                    expr = F(f"{prefix}{base}")
                    for key in keys[:-1]:
                        expr = KeyTransform(key, expr)
                    queryset = queryset.alias(**{alias: Cast(KeyTextTransform(keys[-1], expr), TextField())})
                alternatives |= _match(alias, value)
        queryset = queryset.filter(alternatives)
    return queryset
