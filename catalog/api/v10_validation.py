"""The 1.0 binding's doors to message validation (docs/api-contract.md section 12):
`POST /registry/messagegroups/G/messages/M/validate` and `POST /registry/messagegroups/G/validate`. The check is the
catalog's (`catalog.message_checks`, shared with the 0.5 binding's doors in `catalog/api/validation.py`); here only
the 1.0 words: the verdict names the definition by its 1.0 xid, a schema reference in a note is a 1.0 path, the
errors are the 1.0 binding's. `urlpatterns` is mounted below the binding's path, before its generated routes."""

from __future__ import annotations

from django.urls import path

from catalog import message_checks
from catalog.api.validation import CheckSchema, ReadPermission, described, message_of, verdict_response
from registry.access.throttles import AnonymousRateThrottle
from registry.bindings.v10.base import XRegistryView
from registry.bindings.v10.mapping import reference_to_v10


class MessageValidateView(XRegistryView):
    """The 1.0 binding's door to the same check: the definition is the message `rid` of message group `gid`
    (one store: the same ids), the verdict names it by its 1.0 xid."""

    permission_classes = [ReadPermission]
    throttle_classes, throttle_scope = [AnonymousRateThrottle], "checks"  # issue 24
    schema = CheckSchema()
    group_plural, resource_plural = "definitionGroups", "definitions"  # (1.0's messagegroups, messages)
    post_reads = True  # a check reads the group (registry.http.permissions)

    @described(
        "post_registry_messagegroups_messages_validate",
        "Check a message against this message definition (xRegistry 1.0 binding)",
        v1=True,
    )
    def post(self, request, gid, rid):
        doc = message_checks.definition_document(gid, rid)
        return verdict_response(
            request, f"/messagegroups/{gid}/messages/{rid}", doc, message_of(request), reference=reference_to_v10
        )


class MessageGroupValidateView(XRegistryView):
    """`POST /registry/messagegroups/G/validate`: the definition picked by the message's CloudEvents type."""

    permission_classes = [ReadPermission]
    throttle_classes, throttle_scope = [AnonymousRateThrottle], "checks"  # issue 24
    schema = CheckSchema()
    group_plural = "definitionGroups"  # (1.0's messagegroups)
    post_reads = True  # a check reads the group (registry.http.permissions)

    @described(
        "post_registry_messagegroups_validate",
        "Check a CloudEvent against the message definition of its type (xRegistry 1.0 binding)",
        by_type=True,
        v1=True,
    )
    def post(self, request, gid):
        message = message_of(request)
        rid, doc = message_checks.definition_for_type(gid, message_checks.event_type(message))
        return verdict_response(
            request, f"/messagegroups/{gid}/messages/{rid}", doc, message, reference=reference_to_v10
        )


urlpatterns = [
    path("messagegroups/<str:gid>/validate", MessageGroupValidateView.as_view(), name="xr10-messagegroups-validate"),
    path(
        "messagegroups/<str:gid>/messages/<str:rid>/validate",
        MessageValidateView.as_view(),
        name="xr10-messagegroups-messages-validate",
    ),
]
