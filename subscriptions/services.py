"""Writes of subscriptions: create, replace, revalidate (the handshake again), delete, disable, redeliver dead
letters; every door (the Subscriptions API, the admin's forms and actions) writes through here with the acting user
(a `WriteContext`; none: the system itself, trusted).

Validation (protocol, sink, settings, filters, sink address) happens here, for the API and the admin alike.

Who may change a subscription: the user who created it, the user who last set its sink, and registry admins; anyone
else is refused with 403 and nothing is written (the doors also ask the model permission). Setting the sink (a new
protocol, sink or protocol settings: where deliveries go) records the acting user in `sink_set_by`, whose rights then
filter the deliveries (subscriptions/relay.py): an admin who re-points a subscription makes it theirs, and a change of
filters alone keeps the deliveries to what the sink's owner may read. Every accepted change writes its audit row
(`/subscriptions/ID`, registry/store/audit.py) in its transaction, with what it changed, its secrets masked as reads mask
them (`audit_changes`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, TypedDict, cast

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from registry.access import permissions
from registry.domain.attributes import Attributes, unstorable
from registry.domain.errors import Problem
from registry.services import WriteContext
from registry.store import audit

from .delivery import policy
from .masking import CREDENTIALS, audited_settings, shown_sink, with_masked_values_kept
from .models import Delivery, Subscription
from .readable import check_readable
from .statuses import set_status
from .validators.filters import validate_filters
from .validators.protocols import canonical_protocol, validate_protocol, with_defaults
from .validators.sinks import check_sink

if TYPE_CHECKING:
    from django.contrib.auth.models import User

WRITABLE = ("protocol", "protocolsettings", "sink", "filters", "config")
IGNORED = ("id", "status", "self", "statusReason", "createdOn", "modifiedOn")
# what the audit trail compares (attribute -> field), and how it shows the values that may hold secrets
AUDITED = {
    **{name: name for name in WRITABLE},
    "status": "status",
    "sinkSetBy": "sink_set_by",
    "max_attempts": "max_attempts",
    "ttl_seconds": "ttl_seconds",
}
AUDIT_SHOWN: dict[str, audit.Shown] = {"sink": shown_sink, "protocolsettings": audited_settings}


def audit_state(subscription: Subscription) -> Attributes:
    """A subscription's attributes as the audit trail compares them (registry/store/audit.py `state`)."""
    return {
        name: value
        for name, field in AUDITED.items()
        if (value := getattr(subscription, field)) not in (None, "", {}, [])
    }


def audit_changes(before: Attributes | None, after: Attributes | None) -> Attributes:
    """What changed between two `audit_state`s, the sink and the protocol settings shown as reads show them (their
    secrets masked: subscriptions/masking.py), every other value by the audit trail's own rule."""
    return audit.changes(before, after, shown=AUDIT_SHOWN)


class Fields(TypedDict):
    """A subscription body's writable attributes, validated (the columns they are stored in)."""

    protocol: str
    sink: str
    protocolsettings: Attributes
    filters: list[object]
    config: Attributes


def _validated(data: Attributes) -> Fields:
    if not isinstance(data, dict):
        raise Problem("bad-request", "a subscription must be a JSON object")
    errors = [f"{k} is not an attribute of a subscription" for k in data if k not in WRITABLE + IGNORED]
    problem = unstorable(data)
    if problem:
        raise Problem("invalid-attribute", problem)
    errors += validate_protocol(data)
    errors += validate_filters(data.get("filters"))
    if data.get("config") is not None and not isinstance(data["config"], dict):
        errors.append("config must be an object")
    if not errors:
        reason = check_sink(canonical_protocol(data["protocol"]), data["sink"], settings.REGISTRY_ALLOW_PRIVATE_SINKS)
        if reason:
            errors.append(f"sink: {reason}")
    if errors:
        raise Problem("invalid-attribute", "; ".join(errors), errors=errors)
    # the checks above passed: a protocol's name, a sink, objects or nothing, and a list of filters or nothing
    protocol, settings_given = cast(str, data["protocol"]), cast(Attributes, data.get("protocolsettings") or {})
    return {
        "protocol": protocol,
        "sink": cast(str, data["sink"]),
        "protocolsettings": with_defaults(protocol, settings_given),
        "filters": cast(list[object], data.get("filters") or []),
        "config": cast(Attributes, data.get("config") or {}),
    }


def _initial_status(protocol: str) -> str:
    if canonical_protocol(protocol) == "HTTP" and settings.REGISTRY_WEBHOOK_HANDSHAKE:
        return Subscription.Status.PENDING
    return Subscription.Status.ACTIVE


def _after_commit_validate(subscription: Subscription) -> None:
    if subscription.status == Subscription.Status.PENDING:
        # here: the tasks load Celery, which a process needs only once it queues a task (start-up of commands)
        from .tasks import validate_webhook

        transaction.on_commit(lambda: validate_webhook.delay(subscription.id))


def path_of(sid: str) -> str:
    """A subscription's path, as the audit trail names it."""
    return f"/subscriptions/{sid}"


def may_change(actor: object, subscription: Subscription) -> bool:
    """Whether `actor` (None: the system) may change, revalidate, disable, delete or redeliver `subscription`."""
    if actor is None or permissions.is_registry_admin(actor):
        return True
    pk = getattr(actor, "pk", None)
    if not getattr(actor, "is_active", False) or not pk:
        return False
    # the users themselves (by id), not their names: a user made again under a deleted one's name is someone else
    return pk in {subscription.created_by_user_id, subscription.sink_set_by_user_id} - {None}


def refusal(sid: str) -> Problem:
    """The 403 of a change refused by `may_change`."""
    return Problem(
        "forbidden",
        f"{path_of(sid)}: only the user who created this subscription, the user who last set its sink, or a registry "
        "admin may change it",
    )


def check_may_change(ctx: WriteContext, subscription: Subscription) -> None:
    """403 unless the context's user may change `subscription` (see `may_change`)."""
    if not may_change(ctx.actor, subscription):
        raise refusal(subscription.pk)


def _context(ctx: WriteContext | None) -> WriteContext:
    return ctx if ctx is not None else WriteContext(door="system")


def _user(ctx: WriteContext) -> User | None:
    """The signed-in user a write is made for (None: the system)."""
    return cast("User", ctx.actor) if getattr(ctx.actor, "pk", None) else None  # (a user with an id: a stored one)


@transaction.atomic
def create_subscription(
    *, data: Attributes, ctx: WriteContext | None = None, limits: Attributes | None = None
) -> Subscription:
    """POST /subscriptions: the id in the body is ignored; the server assigns one. `limits`: the admin's
    `max_attempts` / `ttl_seconds` overrides (not attributes of the Subscriptions API)."""
    ctx = _context(ctx)
    if isinstance(data, dict):
        data = with_masked_values_kept(data, None, None)  # *** with nothing stored to keep is refused
    fields = _validated(data)
    check_readable(fields["filters"], ctx.actor)
    subscription = Subscription.objects.create(
        **fields,
        **_limits(limits),
        status=_initial_status(fields["protocol"]),
        created_by=ctx.user,
        sink_set_by=ctx.user,
        created_by_user=_user(ctx),
        sink_set_by_user=_user(ctx),
    )
    audit.record_now(ctx, path_of(subscription.pk), "create", audit_changes(None, audit_state(subscription)))
    _after_commit_validate(subscription)
    return subscription


def _limits(limits: Attributes | None) -> Attributes:
    return {key: (limits or {}).get(key) for key in ("max_attempts", "ttl_seconds")} if limits is not None else {}


def with_kept_credentials(given: Attributes, stored: Attributes) -> Attributes:
    """Settings given by a form that never showed the stored credentials, plus those credentials."""
    merged = dict(given)
    for key, value in (stored or {}).items():
        if key.lower() in CREDENTIALS and key not in merged:
            merged[key] = value
    headers, given_headers = (stored or {}).get("headers"), merged.get("headers")
    if isinstance(headers, dict) and isinstance(given_headers, dict):
        merged["headers"] = {**{k: v for k, v in headers.items() if k.lower() in CREDENTIALS}, **given_headers}
    return merged


@transaction.atomic
def put_subscription(
    *,
    sid: str,
    data: Attributes,
    ctx: WriteContext | None = None,
    seen_modified_on: str | None = None,
    keep_credentials: bool = False,
    limits: Attributes | None = None,
) -> tuple[Subscription, bool]:
    """PUT /subscriptions/{id}: replace, or create with that id. A changed sink or protocol is validated again.
    The admin's form adds: `seen_modified_on`, the version it showed (a subscription changed since is a conflict);
    `keep_credentials`, since it never shows the stored ones; `limits` (see `create_subscription`). Only its creator,
    the user who last set its sink, or a registry admin replaces an existing subscription (403 otherwise)."""
    ctx = _context(ctx)
    if not sid or len(sid) > 128 or "/" in sid:
        raise Problem("invalid-id", "a subscription id is 1 to 128 characters without '/'")
    if "id" in data and data["id"] != sid:
        raise Problem("invalid-attribute", f"id {data['id']!r} does not match the URL's id {sid!r}")
    subscription = Subscription.objects.select_for_update().filter(pk=sid).first()
    if subscription is not None:
        check_may_change(ctx, subscription)
    if subscription is not None and seen_modified_on and seen_modified_on != subscription.modified_on.isoformat():
        raise Problem("epoch-mismatch", f"/subscriptions/{sid} changed at {subscription.modified_on:%H:%M:%S}")
    given_settings = data.get("protocolsettings")
    if subscription is not None and keep_credentials and isinstance(given_settings, dict):
        data = {**data, "protocolsettings": with_kept_credentials(given_settings, subscription.protocolsettings)}
    # a client (or the admin form) sends back what it was shown, secrets masked: those stand for the stored ones
    data = with_masked_values_kept(
        data,
        subscription.sink if subscription is not None else None,
        subscription.protocolsettings if subscription is not None else None,
    )
    fields = _validated(data)
    check_readable(fields["filters"], ctx.actor)
    if subscription is None:
        subscription = Subscription.objects.create(
            id=sid,
            **fields,
            **_limits(limits),
            status=_initial_status(fields["protocol"]),
            created_by=ctx.user,
            sink_set_by=ctx.user,
            created_by_user=_user(ctx),
            sink_set_by_user=_user(ctx),
        )
        audit.record_now(ctx, path_of(sid), "create", audit_changes(None, audit_state(subscription)))
        _after_commit_validate(subscription)
        return subscription, True
    # a changed sink or protocol is validated again, and so is a subscription whose validation failed: a PUT of
    # the same body is how a client asks for the handshake once more after fixing its sink
    revalidate = (subscription.sink, subscription.protocol) != (fields["sink"], fields["protocol"]) or (
        subscription.status == Subscription.Status.FAILED
    )
    # where deliveries go (the sink, and the settings that name a topic, an address, a header): whoever sets it
    # receives what the subscription matches, so the deliveries follow their rights from now on
    destination = ("protocol", "sink", "protocolsettings")
    before = audit_state(subscription)
    if any(getattr(subscription, key) != value for key, value in fields.items() if key in destination):
        subscription.sink_set_by, subscription.sink_set_by_user = ctx.user, _user(ctx)
    for key, value in [*fields.items(), *_limits(limits).items()]:
        setattr(subscription, key, value)
    if revalidate:
        subscription.status = _initial_status(fields["protocol"])
        subscription.status_reason = ""
    subscription.save()
    audit.record_now(ctx, path_of(sid), "update", audit_changes(before, audit_state(subscription)))
    if revalidate:
        _after_commit_validate(subscription)
    return subscription, False


@transaction.atomic
def revalidate_subscription(*, sid: str, ctx: WriteContext | None = None) -> Subscription:
    """`POST /subscriptions/{id}/revalidate` and the admin's "Enable": validate the subscription again, whatever
    its status (failed, disabled, active). An HTTP subscription runs the webhook handshake again (pending until
    it answers; queued after the commit, at once without workers); one of another protocol, or with the handshake
    off, has its sink checked now (active, or failed with the reason). Returns the subscription as it is after
    the commit's work."""
    ctx = _context(ctx)
    subscription = Subscription.objects.select_for_update().filter(pk=sid).first()
    if subscription is None:
        raise Problem("not-found", f"/subscriptions/{sid} does not exist")
    check_may_change(ctx, subscription)
    before = audit_state(subscription)
    status = _initial_status(subscription.protocol)
    reason: str | None = ""
    if status == Subscription.Status.ACTIVE:
        reason = check_sink(
            canonical_protocol(subscription.protocol), subscription.sink, settings.REGISTRY_ALLOW_PRIVATE_SINKS
        )
        status = Subscription.Status.FAILED if reason else Subscription.Status.ACTIVE
    subscription.status, subscription.status_reason = status, reason or ""
    subscription.save(update_fields=["status", "status_reason", "modified_on"])
    audit.record_now(ctx, path_of(sid), "update", audit_changes(before, audit_state(subscription)))
    _after_commit_validate(subscription)
    return subscription


@transaction.atomic
def disable_subscription(*, sid: str, ctx: WriteContext | None = None, reason: str = "") -> Subscription:
    """The admin's "Disable": nothing more is delivered to it until it is enabled (revalidated) again."""
    ctx = _context(ctx)
    subscription = Subscription.objects.select_for_update().filter(pk=sid).first()
    if subscription is None:
        raise Problem("not-found", f"/subscriptions/{sid} does not exist")
    check_may_change(ctx, subscription)
    before = audit_state(subscription)
    set_status(subscription, Subscription.Status.DISABLED, reason)
    audit.record_now(ctx, path_of(sid), "update", audit_changes(before, audit_state(subscription)))
    return subscription


@transaction.atomic
def delete_subscription(*, sid: str, ctx: WriteContext | None = None) -> Subscription:
    ctx = _context(ctx)
    subscription = Subscription.objects.select_for_update().filter(pk=sid).first()
    if subscription is None:
        raise Problem("not-found", f"/subscriptions/{sid} does not exist")
    check_may_change(ctx, subscription)
    gone = audit_changes(audit_state(subscription), None)  # what was there
    subscription.delete()
    subscription.id = sid
    audit.record_now(ctx, path_of(sid), "delete", gone)
    return subscription


@transaction.atomic
def redeliver_subscription(*, sid: str, ctx: WriteContext | None = None) -> int:
    """`POST /subscriptions/{id}/redeliver`: the subscription's dead letters back in the queue (see `redeliver`)."""
    ctx = _context(ctx)
    subscription = Subscription.objects.select_for_update().filter(pk=sid).first()
    if subscription is None:
        raise Problem("not-found", f"/subscriptions/{sid} does not exist")
    check_may_change(ctx, subscription)
    dead = subscription.deliveries.filter(status=Delivery.Status.DEAD).values_list("pk", flat=True)
    return redeliver(delivery_ids=list(dead), ctx=ctx)


@transaction.atomic
def redeliver(*, delivery_ids: Iterable[int], ctx: WriteContext | None = None) -> int:
    """Put dead deliveries (only those: others are still being tried) back in the queue with a fresh attempt
    budget and deadline, dispatched after the commit; returns how many. 403 (nothing queued) when one of them is of
    a subscription the context's user may not change."""
    ctx = _context(ctx)
    now = timezone.now()
    dead = list(
        Delivery.objects.filter(pk__in=list(delivery_ids), status=Delivery.Status.DEAD).select_related("subscription")
    )
    subscriptions = {delivery.subscription_id: delivery.subscription for delivery in dead}
    for subscription in subscriptions.values():
        check_may_change(ctx, subscription)
    ids = [delivery.pk for delivery in dead]
    for delivery in dead:
        delivery.status, delivery.attempts, delivery.next_attempt_at = Delivery.Status.PENDING, 0, now
        delivery.leased_until = None
        delivery.deadline = now + policy.ttl(delivery.subscription)
        delivery.save(update_fields=["status", "attempts", "next_attempt_at", "leased_until", "deadline"])
    for sid in sorted(subscriptions):
        audit.record_now(ctx, path_of(sid), "update", {})  # its dead letters queued again: no attribute changed
    if ids:
        # here: the tasks load Celery, which a process needs only once it queues a task (start-up of commands)
        from .tasks import dispatch

        transaction.on_commit(lambda: dispatch(ids))
    return len(ids)
