"""The delete rule of docs/api-contract.md section 14: an entity that entities outside the same request still
reference is not deleted (409 naming them) unless the request says `force`."""

from __future__ import annotations

from django.conf import settings

from ..domain import references
from ..domain.errors import Problem
from .context import WriteContext


def base_urls(base_url: str) -> list[str]:
    """The registry's own URLs: the request's and the configured one (references written through either)."""
    configured = getattr(settings, "REGISTRY_BASE_URL", "")
    return [u for u in dict.fromkeys([base_url, configured]) if u]


# `force` of a delete that the caller checked already (a bulk delete, for the whole set): no second check
CHECKED = "checked"
KINDS = {3: "group", 5: "resource", 7: "version"}


def check_unreferenced(ctx: WriteContext, paths: list[str], force: bool | str = False) -> None:
    """409 when an entity outside `paths` (and outside what lies beneath them) references one of them. Forcing a
    delete past such references is the operation "force" of registry.access.permissions (a group owner's, in a group with
    owners)."""
    if force == CHECKED or not paths or (force and ctx.actor is None):
        return
    found = references.referrers(paths, base_urls(ctx.base_url))
    if found and force:
        for path in paths:
            ctx.authorize(KINDS.get(path.count("/") + 1, "version"), "force", path)
        return
    if found:
        what = "{subject} is" if len(paths) == 1 else f"{len(paths)} entities are"
        listed = sorted(found)
        more = f" and {len(listed) - 10} more" if len(listed) > 10 else ""
        raise Problem(
            "conflict",
            f"{what} still referenced by {{paths}}{more}; delete those first, delete them together, or add ?force=true",
            subject=paths[0] if len(paths) == 1 else None,
            paths=listed[:10],
            members={"referencedby": found},
        )
