"""The resource-level `meta` attributes of xRegistry 1.0: the sticky default version and the compatibility, and the
resource-level attributes apps register (registry/domain/extension_attributes.py: the Confluent API's `confluentmode`).

Stored on the resource (its `extensions`: `defaultversionid`, `defaultversionsticky`, `compatibility`, ...), shown
by the 1.0 binding in the `meta` entity and by the 0.5 binding as extension attributes of the resource.
`readonly` is the server's (a resource synced from elsewhere is read-only); `xref` is not offered.
"""

from __future__ import annotations

from django.db import transaction

from ..domain import extension_attributes
from ..domain.attributes import Attributes
from ..domain.errors import Problem
from ..domain.model import COMPATIBILITY_LEVELS, ResourceType, effective_compatibility
from ..models import Resource, Version
from ..store import audit
from .address import EntityAddress
from .context import WriteContext
from .epochs import check_epoch
from .events import emit_updated
from .resources import get_group, guard, lock_resource, resolve_types
from .versions import refresh_latest


@transaction.atomic
def set_resource_meta(
    *,
    ctx: WriteContext,
    address: EntityAddress,
    meta: Attributes,
    expected_epoch: int | None = None,
    replace: bool = False,
    announced: bool = False,
) -> None:
    """Set `defaultversionid`/`defaultversionsticky`/`compatibility` of a resource (PUT or PATCH of `meta`), and the
    resource-level attributes apps register (a value None removes one; `replace` removes those not given).

    `announced`: the caller's write already emitted this resource's `updated` event in this transaction (it
    created the resource), so the change of its meta is part of that change, not a second event.

    A `defaultversionid` makes the default sticky (the spec: setting it pins it); sticky false lets the latest
    version (the greatest id) be the default again. `expected_epoch` is the resource's own epoch (the 1.0 `meta` entity's), which
    grows by one with each change of these attributes: checked under the resource's row lock, so of concurrent
    writers with the same precondition exactly one wins."""
    address.need("resource")
    _gt, rt = resolve_types(address.group_type, address.rtype)
    group = get_group(address.group_type, address.gid)
    resource = lock_resource(group, address.rtype, address.rid)
    guard(ctx, group, resource)
    ctx.authorize("resource", "update", resource.path)
    check_epoch(f"{resource.path}/meta", resource, expected_epoch)
    if meta.get("xref"):
        raise Problem("bad-request", "{subject}: xref is not offered by this server", subject=resource.path)
    if meta.get("readonly") not in (None, False, bool(resource.origin)):
        raise Problem("invalid-attribute", "{subject}: readonly is set by the server", subject=resource.path)
    registered = extension_attributes.meta_names(address.rtype)
    errors = extension_attributes.errors_of(address.group_type, address.rtype, meta)
    if errors:
        raise Problem("invalid-attribute", "{subject}: " + "; ".join(errors), subject=resource.path, errors=errors)
    before = audit.state(resource, resource.path)
    extensions = dict(resource.extensions)
    if replace:
        for key in ("defaultversionid", "defaultversionsticky", "compatibility", *registered):
            extensions.pop(key, None)
    for key in registered:
        if meta.get(key) is not None:
            extensions[key] = meta[key]
        elif key in meta:
            extensions.pop(key, None)
    vid = meta.get("defaultversionid")
    sticky = meta.get("defaultversionsticky")
    if sticky is not None and not isinstance(sticky, bool):
        raise Problem("invalid-attribute", "{subject}: defaultversionsticky must be a boolean", subject=resource.path)
    if vid is not None:
        if not isinstance(vid, str) or not Version.objects.filter(resource=resource, vid=vid).exists():
            raise Problem(
                "invalid-attribute", f"{{subject}}: defaultversionid {vid!r} names no version", subject=resource.path
            )
        if sticky is None and (replace or "defaultversionsticky" not in extensions):
            sticky = True
    if sticky:
        extensions["defaultversionsticky"] = True
        extensions["defaultversionid"] = (
            vid or extensions.get("defaultversionid") or (resource.latest.vid if resource.latest else None)
        )
    elif sticky is False:
        extensions.pop("defaultversionsticky", None)
        extensions.pop("defaultversionid", None)
    level = meta.get("compatibility")
    if level is not None:
        if level not in COMPATIBILITY_LEVELS:
            raise Problem(
                "invalid-attribute",
                f"{{subject}}: compatibility must be one of {', '.join(COMPATIBILITY_LEVELS)}, not {level!r}",
                subject=resource.path,
            )
        _refuse_unoffered(rt, resource, level)
        inherited = effective_compatibility(group.extensions.get("compatibility"))
        if level == inherited:  # reads show the effective level: the same level sent back keeps inheriting it
            extensions.pop("compatibility", None)
        else:
            extensions["compatibility"] = level
    if extensions != resource.extensions:
        resource.extensions = extensions
        resource.epoch += 1
        resource.modified_by = ctx.user
        resource.modified_on = ctx.now
        resource.save(update_fields=["extensions", "epoch", "modified_by", "modified_on"])
        refresh_latest(resource)  # a sticky default is the version both bindings serve as the resource's
        if not announced:
            emit_updated(
                ctx,
                resource.path,
                resource.modified_on,
                epochs=(resource.epoch - 1, resource.epoch),
                changes=audit.changes(before, audit.state(resource, resource.path)),
            )


def _refuse_unoffered(rt: ResourceType, resource: Resource, level: str) -> None:
    """A level is one the resource's format offers (CONTRACT 18): 400 naming `compatibility` for a type without
    compatibility rules (messages, endpoints) or a format that offers none (XSD, a format this server does not
    compare); `none` (no level) is always accepted."""
    if level == "none":
        return
    if rt.compatibility_levels is None:
        raise Problem(
            "invalid-attribute",
            f"{{subject}}: compatibility {level!r}: a {rt.singular} has no compatibility level",
            subject=resource.path,
        )
    latest = resource.latest.extensions if resource.latest is not None else {}
    fmt = latest.get("format") or resource.extensions.get("format")
    if level not in rt.compatibility_levels(fmt):
        raise Problem(
            "invalid-attribute",
            f"{{subject}}: compatibility {level!r}: the format {fmt!r} offers no compatibility level",
            subject=resource.path,
        )
