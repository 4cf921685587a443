"""Paging of collections: `?limit=N` and an opaque continuation token, announced in a `Link` header.

The registry's collections (groups, resources, versions) are paged by key (a seek): the token carries the sort key of
the last entry of the page before, and the next page is the entries after it in the collection's order (`rows`:
`WHERE key > last ORDER BY key LIMIT n + 1`, on an index), so a deep page costs what the first does, and an entry
added or deleted between pages neither repeats nor hides another. Collections sorted outside the database (1.0's
`?sort`) and the other lists (the audit trail, subscriptions) are paged by offset, their token an encoded offset.

Tokens are encoded so that clients do not build them themselves. The offset spelling is also what this server issued
for the registry's collections before they were paged by key: those still read it (the page at that offset, its
next token by key) for one release, so that a client paging across the upgrade loses no page.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import BooleanField, Q, QuerySet, prefetch_related_objects
from django.db.models.expressions import RawSQL

from ..domain.errors import Problem


@dataclass
class PageRequest:
    limit: int
    offset: int = 0  # an offset token's (this server's earlier spelling, or a collection paged by offset)
    after: list | None = None  # a key token's: the sort key of the last entry of the page before
    # set by `rows`: the next page's key token (None: no entry follows); unset, the next token is an offset
    following: str | None = None
    by_key: bool = False
    token: str = ""  # as given (named when it is refused)

    @classmethod
    def from_params(cls, params) -> PageRequest:
        default, maximum = settings.REGISTRY_PAGE_SIZE, settings.REGISTRY_MAX_PAGE_SIZE
        raw = params.get("limit")
        if raw in (None, ""):
            limit = default
        else:
            if not raw.isdigit() or int(raw) < 1:
                raise Problem("bad-request", f"limit must be a positive integer, not {raw!r}")
            limit = min(int(raw), maximum)
        token = params.get("page")
        if not token:
            return cls(limit=limit)
        found = decode_token(token)
        if isinstance(found, list):
            return cls(limit=limit, after=found, token=token)
        return cls(limit=limit, offset=found, token=token)

    def rows(self, queryset: QuerySet, key: tuple[str, ...], prefetch: tuple = ()) -> list:
        """The page's entries of `queryset`, ordered by `key` (fields whose values together are unique: the last a
        unique one), with the next page's token kept in `following`. Read by key after a key token (what an index on
        the key's columns, after the filter's, serves); after an offset token, at that offset. `prefetch`: lookups
        loaded for the page's entries only (not for the one read to know whether more follow)."""
        queryset = queryset.order_by(*key)
        if self.after is not None:
            if len(self.after) != len(key):
                raise bad_token(self.token)
            values = [_value(queryset, f, v, self.token) for f, v in zip(key, self.after, strict=True)]
            queryset = queryset.filter(after_key(queryset, key, values))
        found = list(queryset[self.offset : self.offset + self.limit + 1])
        page = found[: self.limit]
        self.by_key = True
        self.following = (
            encode_key([_token_value(getattr(page[-1], f)) for f in key]) if len(found) > len(page) else None
        )
        if prefetch:
            prefetch_related_objects(page, *prefetch)
        return page


def after_key(queryset: QuerySet, key: tuple[str, ...], values: list) -> Q | RawSQL:
    """The entries after `values` in the order of `key`: `key > value`, or for a key of several columns the row
    comparison `(a, b) > (x, y)`, which an index on (the filter's columns, a, b) serves as the start of its range on
    both databases (`a >= x AND (a > x OR b > y)` would read every entry that shares `x` first: all of an import's
    versions can share one time). Written as SQL: the ORM has no public row comparison."""
    if len(key) == 1:
        return Q(**{f"{key[0]}__gt": values[0]})
    meta, qn = queryset.model._meta, connection.ops.quote_name
    fields = [meta.pk if name == "pk" else meta.get_field(name) for name in key]
    columns = ", ".join(f"{qn(meta.db_table)}.{qn(field.column)}" for field in fields)
    params = [field.get_db_prep_value(value, connection) for field, value in zip(fields, values, strict=True)]
    return RawSQL(f"({columns}) > ({', '.join(['%s'] * len(params))})", params, output_field=BooleanField())


def _value(queryset: QuerySet, field: str, value: Any, token: str) -> Any:
    """A key token's value as its field holds it: a time from its ISO form, an integer, a text the database takes
    (no NUL, no lone surrogate); anything else is a token this server did not issue for this collection."""
    meta = queryset.model._meta
    internal = (meta.pk if field == "pk" else meta.get_field(field)).get_internal_type()
    try:
        if internal == "DateTimeField":
            parsed = datetime.fromisoformat(value)
            if parsed.tzinfo is None:
                raise ValueError
            return parsed.astimezone(UTC)  # (out of range as UTC: OverflowError)
        if internal in ("AutoField", "BigAutoField"):
            if type(value) is not int or not -(2**63) < value < 2**63:
                raise ValueError
            return value
        if not isinstance(value, str) or "\x00" in value:
            raise ValueError
        value.encode()
        return value
    except (TypeError, ValueError, OverflowError):
        raise bad_token(token) from None


def _token_value(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


def encode_token(offset: int) -> str:
    return base64.urlsafe_b64encode(f"o{offset}".encode()).decode().rstrip("=")


def encode_key(values: list) -> str:
    return base64.urlsafe_b64encode(("k" + json.dumps(values, separators=(",", ":"))).encode()).decode().rstrip("=")


def decode_token(token: str) -> int | list:
    """An offset token's offset, or a key token's values."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        if raw.startswith("o") and raw[1:].isascii() and raw[1:].isdigit() and int(raw[1:]) < 2**62:
            return int(raw[1:])
        if raw.startswith("k"):
            values = json.loads(raw[1:])
            if isinstance(values, list) and values:
                return values
        raise ValueError
    except ValueError:
        raise bad_token(token) from None


def bad_token(token: str) -> Problem:
    return Problem("bad-request", f"page {token!r} is not a continuation token this server issued")


def link_header(request, page: PageRequest, total: int) -> str | None:
    """`<next URL>;rel=next;count=TOTAL` when more entries follow, else None."""
    if page.by_key:
        token = page.following
    else:
        next_offset = page.offset + page.limit
        token = encode_token(next_offset) if next_offset < total else None
    if token is None:
        return None
    params = request.GET.copy()
    params["page"] = token
    params["limit"] = str(page.limit)
    url = request.build_absolute_uri(request.path) + "?" + params.urlencode(safe="*=,")
    return f"<{url}>;rel=next;count={total}"
