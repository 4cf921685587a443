"""Paging of collections: `?limit=N` and an opaque continuation token, announced in a `Link` header.

The token is an offset encoded so that clients do not build it themselves; entries are ordered by id.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

from django.conf import settings

from ..domain.errors import Problem


@dataclass
class PageRequest:
    limit: int
    offset: int

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
        offset = decode_token(params.get("page")) if params.get("page") else 0
        return cls(limit=limit, offset=offset)


def encode_token(offset: int) -> str:
    return base64.urlsafe_b64encode(f"o{offset}".encode()).decode().rstrip("=")


def decode_token(token: str) -> int:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        if not raw.startswith("o") or not raw[1:].isdigit():
            raise ValueError
        return int(raw[1:])
    except ValueError:
        raise Problem("bad-request", f"page {token!r} is not a continuation token this server issued")


def link_header(request, page: PageRequest, total: int) -> str | None:
    """`<next URL>;rel=next;count=TOTAL` when more entries follow, else None."""
    next_offset = page.offset + page.limit
    if next_offset >= total:
        return None
    params = request.GET.copy()
    params["page"] = encode_token(next_offset)
    params["limit"] = str(page.limit)
    url = request.build_absolute_uri(request.path) + "?" + params.urlencode(safe="*=,")
    return f"<{url}>;rel=next;count={total}"
