"""Views of the checks before shipping a schema (docs/api-contract.md section 12): the compatibility dry run
(`POST /schemaGroups/G/schemas/S/compatibility`) and the diff of two versions
(`GET /schemaGroups/G/schemas/S/versions/V1/diff/V2`), and the dry run of a data contract's JSONata migration rule
on a sample message (`POST /schemaGroups/G/schemas/S/versions/V/migrate`). All only read: the logic is in
`catalog.checks` (and confluent.rule_checks)."""

from __future__ import annotations

from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers

from registry.access.throttles import AnonymousRateThrottle
from registry.bindings.v05.inputs import version_input
from registry.http.openapi import problem_responses
from registry.http.requests import check_flags, json_body
from registry.http.views import RegistryView, json_response

from .. import checks
from ..validators.compatibility import LEVELS

VERDICT = inline_serializer(
    "CompatibilityVerdict",
    fields={
        "compatible": serializers.BooleanField(),
        "level": serializers.ChoiceField(choices=list(LEVELS)),
        "against": serializers.ListField(child=serializers.CharField()),
        "incompatibilities": inline_serializer(
            "CompatibilityIssue",
            many=True,
            fields={
                "path": serializers.CharField(),
                "change": serializers.CharField(),
                "reason": serializers.CharField(),
                "version": serializers.CharField(allow_null=True, help_text="the first version it breaks"),
                "versions": serializers.ListField(
                    child=serializers.CharField(), help_text="every version it breaks, oldest first"
                ),
            },
        ),
    },
)
CHANGE = inline_serializer(
    "SchemaChange",
    fields={
        "path": serializers.CharField(),
        "change": serializers.CharField(),
        "old": serializers.JSONField(allow_null=True),
        "new": serializers.JSONField(allow_null=True),
        "backward": serializers.BooleanField(),
        "forward": serializers.BooleanField(),
    },
)


class SchemaCompatibilityView(RegistryView):
    """`POST /schemaGroups/G/schemas/S/compatibility`: the verdict on a candidate version, nothing written."""

    throttle_classes, throttle_scope = [AnonymousRateThrottle], "checks"  # issue 24
    read_only_check = True  # a POST that writes nothing: as public as a read (registry.http.permissions, OpenAPI)
    post_reads = True  # and it reads the group: with public reads off, a role there (registry.http.permissions)

    @extend_schema(
        summary="Check a candidate version's compatibility without writing it (dry run of POST .../schemas/S)",
        description="The body is the candidate document as a new version would be sent (its media type; metadata "
        "in Registry-* headers, e.g. Registry-format). 200 with the verdict at the schema's effective "
        "compatibility level; a candidate that is not a valid document of its format is 400, as a "
        "real POST would answer. Needs read permission only.",
        request={"*/*": OpenApiTypes.BINARY},
        responses={
            (200, "application/json"): OpenApiResponse(VERDICT, "the verdict"),
            **problem_responses(400, 401, 403, 404, 413, 429, 503),
        },
        tags=["checks"],
    )
    def post(self, request, gid, rid):
        check_flags(request, set())
        inp = version_input(request, self.rt)
        return json_response(checks.schema_compatibility(self.context(), gid, rid, inp))


class SchemaVersionDiffView(RegistryView):
    """`GET /schemaGroups/G/schemas/S/versions/V1/diff/V2`: the changes from V1 to V2."""

    throttle_classes, throttle_scope = [AnonymousRateThrottle], "checks"  # issue 24

    @extend_schema(
        summary="Changes between two versions of a schema",
        description="JSON Schema, Avro and Protobuf: a list of semantic changes, each marked compatible or not "
        "backward (a reader of V2 reads V1 data) and forward (a reader of V1 reads V2 data). Other "
        "formats: {format, line_diff}, a unified diff of the documents.",
        responses={
            (200, "application/json"): OpenApiResponse(
                OpenApiTypes.ANY, "a list of SchemaChange, or {format, line_diff}"
            ),
            **problem_responses(400, 401, 403, 404, 429, 503),
        },
        tags=["checks"],
    )
    def get(self, request, gid, rid, vid, other):
        check_flags(request, set())
        return json_response(checks.version_diff(gid, rid, vid, other))


class MigrationDryRunView(RegistryView):
    """`POST /schemaGroups/G/schemas/S/versions/V/migrate`: a JSONata migration rule on a sample message."""

    throttle_classes, throttle_scope = [AnonymousRateThrottle], "checks"  # issue 24
    read_only_check = True  # a POST that writes nothing: as public as a read (registry.http.permissions, OpenAPI)
    post_reads = True

    @extend_schema(
        summary="Dry-run a JSONata migration rule of this version's data contract on a sample message",
        description='The body: `{"message": ..., "mode": "UPGRADE"|"DOWNGRADE", "rule": NAME, '
        '"expr": JSONATA}`. The version\'s `migrationRules` (its `confluentruleset`) of type JSONATA for the '
        "mode run on the message as a consumer's deserializer runs them (`rule`: only that one; `expr`: an "
        "expression not stored yet). UPGRADE (the default) reads a message of an earlier major version as this "
        "version's, and the result is checked against this version's Avro or JSON Schema; DOWNGRADE the other "
        "way. A rule that fails is 400 naming it. Nothing is written; read permission suffices.",
        request=OpenApiTypes.OBJECT,
        responses={
            (200, "application/json"): OpenApiResponse(
                inline_serializer(
                    "MigrationDryRun",
                    fields={
                        "mode": serializers.ChoiceField(choices=["UPGRADE", "DOWNGRADE"]),
                        "rules": serializers.ListField(child=serializers.DictField(child=serializers.CharField())),
                        "message": serializers.JSONField(),
                        "valid": serializers.BooleanField(required=False),
                        "errors": serializers.ListField(child=serializers.DictField(), required=False),
                    },
                ),
                "the migrated message",
            ),
            **problem_responses(400, 401, 403, 404, 413, 415, 429, 503),
        },
        tags=["checks"],
    )
    def post(self, request, gid, rid, vid):
        check_flags(request, set())
        return json_response(checks.migration_dry_run(gid, rid, vid, json_body(request, what="dry run")))


def urlpatterns_for(group_plural: str = "schemaGroups", resource_plural: str = "schemas") -> list:
    kwargs = {"group_plural": group_plural, "resource_plural": resource_plural}
    base = f"{group_plural}/<str:gid>/{resource_plural}/<str:rid>"
    return [
        path(
            f"{base}/compatibility",
            SchemaCompatibilityView.as_view(**kwargs),
            name=f"{group_plural}-{resource_plural}-compatibility",
        ),
        path(
            f"{base}/versions/<str:vid>/migrate",
            MigrationDryRunView.as_view(**kwargs),
            name=f"{group_plural}-{resource_plural}-migrate",
        ),
        path(
            f"{base}/versions/<str:vid>/diff/<str:other>",
            SchemaVersionDiffView.as_view(**kwargs),
            name=f"{group_plural}-{resource_plural}-diff",
        ),
    ]
