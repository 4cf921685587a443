"""`?filter=ATTR=VALUE` (or `!=`, `<>`) on collections: repeatable, AND-combined, `*` wildcards, attribute paths in
dot notation (`config.protocol`, `owners['team.payments']`), `null` for an absent attribute.

Matching is case-insensitive. Common attributes map to columns; every other attribute is looked up in
the JSON extension attributes (`config.protocol`, `tags.owner`). For resources, attributes are those of
the latest version, falling back to the resource-level ones.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from functools import reduce

from django.db.models import F, Q, TextField
from django.db.models.fields.json import KeyTextTransform, KeyTransform
from django.db.models.functions import Cast, Lower

from ..domain.errors import Problem

NAME = r"[A-Za-z0-9_$][A-Za-z0-9_$-]*"
QUOTED = r"""\['([^']*)'\]|\["([^"]*)"\]"""  # a key holding any other character: `owners['team.payments']`
SEGMENT = re.compile(rf"(?:^|\.)([A-Za-z0-9_$-]+)|{QUOTED}")
PATH = re.compile(rf"(?:{NAME}|{QUOTED.replace('(', '(?:')})(?:\.[A-Za-z0-9_$-]+|{QUOTED.replace('(', '(?:')})*")
COLUMNS = {"name", "description", "docs", "epoch", "createdBy", "modifiedBy"}
COLUMN_NAMES = {"createdBy": "created_by", "modifiedBy": "modified_by"}


@dataclass(frozen=True)
class Filter:
    """One expression: the attribute's keys (dot notation), `!=` or `=`, the value (`null`: absent)."""

    keys: tuple[str, ...]
    negate: bool
    value: str


def keys_of(path: str) -> tuple[str, ...]:
    """The keys of a dot-notation path (1.0 core/spec.md "xRegistry Dot Notation"): `config.protocol`,
    `owners['team.payments']`, `owners["Registry admins"]`. Written by hand: no library parses this subset."""
    return tuple(m.group(1) or m.group(2) or m.group(3) or "" for m in SEGMENT.finditer(path))


def parse(values: list[str]) -> list[Filter]:
    """`ATTR=VALUE` or `ATTR!=VALUE` (`<>` too), ATTR in dot notation; 400 naming a malformed expression."""
    out = []
    for raw in values:
        path = PATH.match(raw)
        rest = raw[path.end() :] if path else ""
        op = next((op for op in ("=", "!=", "<>") if rest.startswith(op)), None)
        if path is None or op is None:
            raise Problem(
                "bad-request",
                f"filter {raw!r} must be ATTRIBUTE=VALUE or ATTRIBUTE!=VALUE (ATTRIBUTE in dot notation: "
                "config.protocol, owners['team.payments'])",
            )
        out.append(Filter(keys_of(path.group(0)), op != "=", rest[len(op) :]))
    return out


def _regex(value: str) -> str:
    return "^" + ".*".join(re.escape(part) for part in value.split("*")) + "$"


def _match(expr_name: str, value: str) -> Q:
    if "*" in value:
        return Q(**{f"{expr_name}__iregex": _regex(value)})
    return Q(**{f"{expr_name}__iexact": value})


def apply(queryset, filters: list[Filter], *, id_column: str, prefixes: tuple[str, ...] = ("",)):
    """Filter a queryset of groups (prefixes ("",)), resources (("latest__", "")) or versions. `=null` keeps the
    entities without the attribute, `!=null` those with it; `!=VALUE` those without that value (absent included)."""
    for index, expression in enumerate(filters):
        keys, value = expression.keys, expression.value
        aliases = []
        if keys == ("id",) and "*" not in value and value != "null" and value.isascii():
            # an id looked up as the unique indexes hold it, `LOWER(id)` (`selectors.exists_ignoring_case`): one
            # entry, where `__iexact` (`UPPER()` or `LIKE`) tested every entry of the collection
            queryset = queryset.alias(**{f"_f{index}": Lower(id_column)})
            lookup = Q(**{f"_f{index}": value.lower()})
            queryset = queryset.exclude(lookup) if expression.negate else queryset.filter(lookup)
            continue
        if keys == ("id",):
            aliases = [id_column]
        else:
            for prefix in prefixes:
                alias = f"_f{index}_{len(prefix)}"
                if len(keys) == 1 and keys[0] in COLUMNS:
                    column = prefix + COLUMN_NAMES.get(keys[0], keys[0])
                    if not prefix and not any(f.name == column for f in queryset.model._meta.fields):
                        continue  # resources have no epoch of their own: only their latest version's
                    queryset = queryset.alias(**{alias: Cast(F(column), TextField())})
                else:
                    base = "tags" if keys[0] == "tags" and len(keys) > 1 else "extensions"
                    path = keys[1:] if base == "tags" else keys
                    # KT("latest__extensions__x") would read `latest` as the JSON column: nest transforms
                    # on F() so that the JSON column is reached through the relation
                    expr: F | KeyTransform = F(f"{prefix}{base}")
                    for key in path[:-1]:
                        expr = KeyTransform(key, expr)
                    queryset = queryset.alias(**{alias: Cast(KeyTextTransform(path[-1], expr), TextField())})
                aliases.append(alias)
        if not aliases:  # an attribute no entity of this kind has: absent everywhere
            if expression.negate != (value == "null"):
                queryset = queryset.none()
            continue
        absent = [Q(**{f"{alias}__isnull": True}) for alias in aliases]
        if value == "null":  # `=null`: absent (from every column it could be in); `!=null`: present
            condition = reduce(operator.and_, absent)
            queryset = queryset.exclude(condition) if expression.negate else queryset.filter(condition)
        elif expression.negate:  # no column holds the value (SQL's NOT of a NULL is NULL: absent said outright)
            queryset = queryset.filter(
                reduce(operator.and_, [a | ~_match(alias, value) for a, alias in zip(absent, aliases, strict=True)])
            )
        else:
            queryset = queryset.filter(reduce(operator.or_, [_match(alias, value) for alias in aliases]))
    return queryset
