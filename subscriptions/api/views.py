"""Views of `/subscriptions`, `/subscriptions/{id}`, `/subscriptions/{id}/revalidate` and
`/subscriptions/{id}/redeliver`: thin, the rules live in subscriptions.services."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema

from registry.domain.errors import Problem
from registry.http.openapi import problem_responses
from registry.http.requests import body_bytes, check_flags, loads_strict
from registry.http.views import RegistryView, json_response
from registry.services import WriteContext
from registry.store.paging import PageRequest, link_header

from .. import selectors, services
from ..masking import shown_settings, shown_sink
from ..models import Subscription

SUBSCRIPTION_MEDIA_TYPES = ("application/json", "application/cloudevents-subscription+json")
PERMISSIONS = {
    "POST": "subscriptions.add_subscription",
    "PUT": ("subscriptions.add_subscription", "subscriptions.change_subscription"),
    "DELETE": "subscriptions.delete_subscription",
}
ERRORS = problem_responses(400, 401, 403, 404, 413, 415)
# sinks and their settings are an operator's business: reads need a signed-in user with the view permission,
# whatever REGISTRY_PUBLIC_READ says of the registry's own entities
READ_PERMISSIONS = "subscriptions.view_subscription"


def subscription_json(request, subscription: Subscription) -> dict:
    out = {
        "id": subscription.id,
        "protocol": subscription.protocol,
        "protocolsettings": shown_settings(subscription.protocolsettings),
        "sink": shown_sink(subscription.sink),
    }
    if subscription.filters:
        out["filters"] = subscription.filters
    if subscription.config:
        out["config"] = subscription.config
    out["status"] = subscription.status
    if subscription.status_reason:
        out["statusReason"] = subscription.status_reason
    out["self"] = request.build_absolute_uri(f"/subscriptions/{subscription.id}")
    return out


def subscription_body(request) -> dict:
    content_type = request.META.get("CONTENT_TYPE", "").split(";")[0].strip().lower()
    if content_type and content_type not in SUBSCRIPTION_MEDIA_TYPES:
        raise Problem(
            "unsupported-media-type",
            f"a subscription is JSON ({', '.join(SUBSCRIPTION_MEDIA_TYPES)}), not {content_type}",
        )
    raw = body_bytes(request)
    if not raw.strip():
        raise Problem("bad-request", "the body must be a subscription object")
    data = loads_strict(raw)
    if not isinstance(data, dict):
        raise Problem("bad-request", "the body must be a JSON object")
    return data


def _context(request) -> WriteContext:
    """The acting user of a write through the Subscriptions API (the audit trail's door "subscriptions")."""
    return WriteContext.from_request(request, door="subscriptions")


class SubscriptionCollectionView(RegistryView):
    write_permissions = PERMISSIONS
    read_permissions = READ_PERMISSIONS

    @extend_schema(
        summary="List subscriptions",
        tags=["subscriptions"],
        parameters=[OpenApiParameter("limit", OpenApiTypes.INT)],
        responses={
            (200, "application/json"): OpenApiResponse(
                {"type": "array", "items": {"type": "object"}}, "array of subscriptions"
            ),
            **ERRORS,
        },
    )
    def get(self, request):
        check_flags(request, {"limit", "page"})
        page = PageRequest.from_params(request.GET)
        subscriptions, total = selectors.subscription_page(page, request.user)
        link = link_header(request, page, total)
        return json_response(
            [subscription_json(request, s) for s in subscriptions], headers={"Link": link} if link else None
        )

    @extend_schema(
        summary="Create a subscription (the server assigns the id)",
        tags=["subscriptions"],
        request={m: OpenApiTypes.OBJECT for m in SUBSCRIPTION_MEDIA_TYPES},
        responses={(201, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, "realized subscription"), **ERRORS},
    )
    def post(self, request):
        check_flags(request, set())
        subscription = services.create_subscription(data=subscription_body(request), ctx=_context(request))
        subscription.refresh_from_db()  # the status after the handshake, when it ran at once (no worker queue)
        data = subscription_json(request, subscription)
        return json_response(data, status=201, headers={"Location": data["self"]})

    @extend_schema(exclude=True)
    def options(self, request, *args, **kwargs):
        return super().options(request, *args, **kwargs)


class SubscriptionView(RegistryView):
    write_permissions = PERMISSIONS
    read_permissions = READ_PERMISSIONS

    @extend_schema(
        summary="Get a subscription",
        tags=["subscriptions"],
        responses={(200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, "subscription"), **ERRORS},
    )
    def get(self, request, sid):
        check_flags(request, set())
        return json_response(subscription_json(request, selectors.get_subscription(sid, request.user)))

    @extend_schema(
        summary="Replace a subscription, or create it with this id",
        tags=["subscriptions"],
        request={m: OpenApiTypes.OBJECT for m in SUBSCRIPTION_MEDIA_TYPES},
        responses={
            (200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, "updated"),
            (201, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, "created"),
            **ERRORS,
        },
    )
    def put(self, request, sid):
        check_flags(request, set())
        subscription, created = services.put_subscription(
            sid=sid, data=subscription_body(request), ctx=_context(request)
        )
        subscription.refresh_from_db()  # the status after the handshake, when it ran at once (no worker queue)
        data = subscription_json(request, subscription)
        return json_response(
            data, status=201 if created else 200, headers={"Location": data["self"]} if created else None
        )

    @extend_schema(
        summary="Delete a subscription",
        tags=["subscriptions"],
        responses={
            (200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, "the deleted subscription"),
            **ERRORS,
        },
    )
    def delete(self, request, sid):
        check_flags(request, set())
        return json_response(subscription_json(request, services.delete_subscription(sid=sid, ctx=_context(request))))

    @extend_schema(exclude=True)
    def options(self, request, *args, **kwargs):
        return super().options(request, *args, **kwargs)


class RevalidateView(RegistryView):
    """`POST /subscriptions/{id}/revalidate`: the webhook handshake again (HTTP), or the sink checked again."""

    write_permissions = {"POST": "subscriptions.change_subscription"}

    @extend_schema(
        summary="Validate a subscription again (the webhook handshake for HTTP, the sink check for the others)",
        tags=["subscriptions"],
        request=None,
        responses={(200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, "the subscription"), **ERRORS},
    )
    def post(self, request, sid):
        check_flags(request, set())
        subscription = services.revalidate_subscription(sid=sid, ctx=_context(request))
        subscription.refresh_from_db()  # the handshake ran after the commit when no worker queue is configured
        return json_response(subscription_json(request, subscription))


class RedeliverView(RegistryView):
    """`POST /subscriptions/{id}/redeliver`: put the subscription's dead letters back in the queue."""

    write_permissions = {"POST": "subscriptions.change_subscription"}

    @extend_schema(
        summary="Redeliver a subscription's dead letters",
        tags=["subscriptions"],
        request=None,
        responses={(200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, "how many"), **ERRORS},
    )
    def post(self, request, sid):
        check_flags(request, set())
        return json_response({"redelivered": services.redeliver_subscription(sid=sid, ctx=_context(request))})
