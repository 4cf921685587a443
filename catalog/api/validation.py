"""Message validation (docs/api-contract.md section 12): `POST /definitionGroups/G/definitions/D/validate` and
`POST /definitionGroups/G/validate`, and what the xRegistry 1.0 binding's doors to the same check
(`catalog/api/v10_validation.py`) share with them. Thin views over `catalog.message_checks`: they read the body
(size limit, strict JSON, an object), find the definition and answer the verdict. Nothing is written; a POST here needs only
the permission a read needs.
"""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import BasePermission

from catalog import message_checks
from catalog.message_report import as_written
from registry.access.throttles import AnonymousRateThrottle
from registry.http.openapi import RegistryAutoSchema, problem_responses
from registry.http.permissions import read_scope
from registry.http.requests import check_flags, json_body
from registry.http.views import RegistryView, json_response

TAGS = ["message validation"]


class ReadPermission(BasePermission):
    """A check writes nothing: whoever may read the registry may ask for one."""

    message = "reading this registry needs authentication"

    def has_permission(self, request, view):
        return settings.REGISTRY_PUBLIC_READ or bool(request.user and request.user.is_authenticated)


class CheckSchema(RegistryAutoSchema):
    """A check is a read: with public reads, authentication is optional for it as for a GET."""

    def get_auth(self):
        auths = super().get_auth()
        if settings.REGISTRY_PUBLIC_READ and {} not in auths:
            auths.append({})
        return auths


VERDICT = inline_serializer(
    "MessageVerdict",
    fields={
        "valid": serializers.BooleanField(),
        "errors": serializers.ListField(
            child=inline_serializer(
                "MessageError",
                fields={
                    "path": serializers.CharField(
                        help_text="where: metadata.source, metadata.headers.action, data.orderId"
                    ),
                    "reason": serializers.CharField(),
                    "unchecked": serializers.BooleanField(
                        required=False,
                        help_text="true when this is a check that could not run (never a pass; issue 24)",
                    ),
                    "rule": inline_serializer(
                        "RefusingRule",
                        required=False,
                        help_text="the data contract's rule that refused the message (the `confluentruleset` of "
                        "the schema version the definition names): its name, type, kind, mode, expression and the "
                        "side (producer, consumer) whose client refuses it",
                        fields={
                            "name": serializers.CharField(),
                            "type": serializers.CharField(),
                            "kind": serializers.CharField(),
                            "mode": serializers.CharField(),
                            "expr": serializers.CharField(required=False),
                            "side": serializers.ChoiceField(choices=["producer", "consumer"]),
                        },
                    ),
                },
            )
        ),
        "definition": serializers.CharField(help_text="the path of the definition checked against"),
        "notes": serializers.ListField(
            child=serializers.CharField(),
            required=False,
            help_text="what was not checked and why (e.g. a schema outside this registry)",
        ),
    },
)
MESSAGE = {
    "application/cloudevents+json": OpenApiTypes.OBJECT,
    "application/json": OpenApiTypes.OBJECT,
}
MESSAGE_DESCRIPTION = (
    "The body is a concrete message. `application/cloudevents+json`: a structured CloudEvent (the event object). "
    '`application/json`: an envelope `{"headers": {...}, "body": ...}`: a binary-mode CloudEvent (`ce-*` '
    "headers, `content-type`), or for HTTP, AMQP, MQTT, Kafka and NATS definitions that protocol's properties "
    "named as in the definition's metadata (`topic-name`, `qos`; `topic`, `key`, `headers`; `properties`; "
    "`method`, `path`, `query`, `headers`; `subject`) next to `body`. Checked: every declared metadata attribute "
    "(required, type, literal value or template), and the data against the definition's JSON Schema or Avro "
    "schema, inline or in this registry; for a schema version of this registry with a data contract "
    "(`confluentruleset`), its CEL and CEL_FIELD rules as Confluent's serializers run them (an error names the "
    "refusing rule). Nothing is written; read permission suffices."
)
EXAMPLE = OpenApiExample(
    "structured CloudEvent",
    request_only=True,
    media_type="application/cloudevents+json",
    value={
        "specversion": "1.0",
        "type": "com.example.order.created",
        "id": "1",
        "source": "/contoso/orders",
        "data": {"orderId": "o-1"},
    },
)


def verdict_response(request, definition: str, doc: dict, message, *, reference=as_written) -> object:
    """The verdict on `message` against `doc`, the definition at path `definition`; `reference`: the binding's form
    of the definition's `schemaurl`, which a note may quote (its errors quote the message and the schema as they
    are: a JSON Schema's own `#/definitions/x` is no registry path)."""
    base_url = request.build_absolute_uri("/").rstrip("/")
    verdict = message_checks.check_message(doc, message, base_url, read_scope(request), reference)
    body = {"valid": verdict["valid"], "errors": verdict["errors"], "definition": definition}
    if "notes" in verdict:
        body["notes"] = verdict["notes"]
    return json_response(body)


def message_of(request):
    value = json_body(request, what="message")
    return message_checks.parse_message(request.META.get("CONTENT_TYPE", ""), value)


BY_TYPE = (
    "The definition is the one of this group whose declared CloudEvents `type` value is the message's "
    "`type` (a literal value first, then a template); 404 naming the type when none is. "
)
IN_10 = (
    " The verdict's `definition` is the message's xid (`/messagegroups/G/messages/M`); errors are those of "
    "the 1.0 binding."
)


def described(operation_id: str, summary: str, *, by_type: bool = False, v1: bool = False):
    """The OpenAPI description of one of the four check routes (by definition or by type, in either binding)."""
    return extend_schema(
        tags=TAGS,
        operation_id=operation_id,
        summary=summary,
        description=(BY_TYPE if by_type else "") + MESSAGE_DESCRIPTION + (IN_10 if v1 else ""),
        request=MESSAGE,
        examples=[EXAMPLE],
        responses={
            200: OpenApiResponse(
                VERDICT,
                description="the verdict, with the definition picked"
                if by_type
                else "the verdict (valid or not, each error with its path)",
            ),
            **problem_responses(400, 401, 403, 404, 413, 415, 429, 503),
        },
    )


class DefinitionValidateView(RegistryView):
    permission_classes = [ReadPermission]
    group_plural, post_reads = "definitionGroups", True  # a check reads the group (registry.http.permissions)
    throttle_classes, throttle_scope = [AnonymousRateThrottle], "checks"  # issue 24
    schema = CheckSchema()

    @described("post_definitionGroups_definitions_validate", "Check a message against this definition")
    def post(self, request, gid, did):
        check_flags(request, set())
        doc = message_checks.definition_document(gid, did)
        return verdict_response(request, f"/definitionGroups/{gid}/definitions/{did}", doc, message_of(request))


class GroupValidateView(RegistryView):
    permission_classes = [ReadPermission]
    group_plural, post_reads = "definitionGroups", True  # a check reads the group (registry.http.permissions)
    throttle_classes, throttle_scope = [AnonymousRateThrottle], "checks"  # issue 24
    schema = CheckSchema()

    @described("post_definitionGroups_validate", "Check a CloudEvent against the definition of its type", by_type=True)
    def post(self, request, gid):
        check_flags(request, set())
        message = message_of(request)
        did, doc = message_checks.definition_for_type(gid, message_checks.event_type(message))
        return verdict_response(request, f"/definitionGroups/{gid}/definitions/{did}", doc, message)
