"""The Confluent API's operations in the registry's OpenAPI document (`/api/schema/`, `/api/docs/`), declared in the
kernel's vocabulary (registry/http/openapi.py), which builds the description from them: per view and method a
summary, the body and the answer's shape in Confluent's media type, the errors as Confluent's `{"error_code",
"message"}` document; an operation's query parameters are the flags its view declares for the method (`flags`, the
only ones `confluent.api.base.query` lets it read), as `MEANINGS` says what each means, so the description and what
the server reads cannot disagree. `declare()` attaches them to the views (confluent.api.urls calls it once);
`base.ConfluentAutoSchema` adds the path parameters. Only what the server enforces is stated as a constraint: a
schema's text, a rule set or a KMS's properties are valid by rules OpenAPI cannot state, refused with Confluent's 422
codes naming the rule."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers

from catalog.validators.compatibility import LEVELS
from registry.http.openapi import describe, operation

from ..models import MAX_SCHEMA_ID
from ..schema_types import TYPES
from ..selectors import MODES
from . import associations, dek, schemas, settings, subjects
from .binding import MEDIA_TYPE

ERROR = inline_serializer(
    "ConfluentError",
    fields={
        "error_code": serializers.IntegerField(help_text="Confluent's code: 40401 subject not found, 42201 ..."),
        "message": serializers.CharField(),
    },
)
ERROR_DESCRIPTIONS = {
    400: "a malformed body or query parameter",
    401: "authentication required (40101)",
    403: "permission denied (40301)",
    404: "no such subject, version, schema, KEK or DEK (40401, 40402, 40403, 40470, ...)",
    406: "an Accept header this API does not answer",
    409: "incompatible with an earlier version (409)",
    413: "body too large",
    415: "unsupported media type",
    422: "invalid schema, version, level, mode, subject or rule set (42201 ... 42210, 42271)",
    429: "too many requests (anonymous callers of the compatibility test: REGISTRY_THROTTLE_ANON_*)",
    503: "the store is busy, or the check ran past its budget (50002)",
}
READ_ERRORS = (400, 401, 403, 404, 406, 422)
WRITE_ERRORS = (*READ_ERRORS, 409, 413, 415, 503)


def errors(*codes: int) -> dict:
    return {(code, MEDIA_TYPE): OpenApiResponse(ERROR, ERROR_DESCRIPTIONS[code]) for code in codes}


# the query parameters' meanings -------------------------------------------------------------------------------------
def _query(name: str, kind, description: str) -> OpenApiParameter:
    return OpenApiParameter(name, kind, OpenApiParameter.QUERY, description=description)


def _or_empty(schema: dict) -> dict:
    return {"anyOf": [schema, {"const": ""}]}  # an empty value is the parameter's default, as if absent


def _boolean(name: str, description: str) -> OpenApiParameter:
    return _query(name, _or_empty({"type": "boolean"}), f"{description} (true or false, any case)")


STRINGS = {"type": "array", "items": {"type": "string"}}  # a repeated parameter, every value read
MEANINGS = {
    parameter.name: parameter
    for parameter in (
        _boolean("deleted", "soft-deleted ones too"),
        _boolean("deleted_only", "soft-deleted ones alone"),
        _boolean("permanent", "delete for good (after a soft delete)"),
        _boolean("normalize", "accepted; the registry compares canonical forms anyway"),
        _boolean("defaultToGlobal", "a subject's: the setting that applies to it"),
        _boolean("force", "IMPORT on a subject that has versions"),
        _boolean("verbose", "with the checker's reasons"),
        _boolean("dryRun", "refused when true (42212: not served)"),
        _boolean("cascadeLifecycle", "the subjects of STRONG ones with them"),
        _boolean("testSharing", "accepted: a shared KEK's KMS is always tried"),
        _boolean("rewrap", "refused when true (not served)"),
        _query("format", OpenApiTypes.STR, "`serialized`: a PROTOBUF schema as its base64 FileDescriptorProto"),
        _query("offset", _or_empty({"type": "integer"}), "the first item given (from 0)"),
        _query("limit", _or_empty({"type": "integer"}), "at most this many items (-1: all)"),
        _query("subjectPrefix", OpenApiTypes.STR, "those starting so"),
        _query("subject", OpenApiTypes.STR, "this subject's alone"),
        _query("key", STRINGS, "a property's name (paired with value)"),
        _query("value", STRINGS, "a property's value"),
        _query("resourceType", OpenApiTypes.STR, "the resource type (topic by default)"),
        _query("associationType", STRINGS, "these association types alone"),
        _query("lifecycle", {"enum": ["STRONG", "WEAK", ""]}, "STRONG or WEAK ones alone (empty: either)"),
        _query("algorithm", OpenApiTypes.STR, "the DEK's algorithm (AES256_GCM by default)"),
        _query("context", OpenApiTypes.STR, "the context the KEK serves"),
    )
}
# a flag some operation reads in its own way
ANY_SUBJECT = {"subject": _query("subject", OpenApiTypes.STR, "accepted (ids are global here)")}
KEK_SUBJECTS = {"subjectPrefix": _query("subjectPrefix", STRINGS, "with a DEK of such a subject")}


# the shapes of bodies and answers ------------------------------------------------------------------------------------
def obj(required: str = "", description: str | None = None, **members) -> dict:
    """A JSON object's schema: its members (a JSON schema, or a type's name or names), `required` naming those always
    there."""
    out: dict = {"type": "object"}
    if description:
        out["description"] = description
    out["properties"] = {name: {"type": m} if isinstance(m, str | list) else m for name, m in members.items()}
    if required:
        out["required"] = required.split()
    return out


def nullable(*types: str) -> list[str]:
    return [*types, "null"]


NAMES = {"type": "array", "items": {"type": "string"}}
NUMBERS = {"type": "array", "items": {"type": "integer"}}
NUMBER = {"type": "integer", "minimum": 1, "maximum": MAX_SCHEMA_ID}
LATEST_OR_NUMBER = {"anyOf": [{"const": -1}, NUMBER]}  # -1: the latest
REFERENCE = obj(
    "name subject version",
    name={"type": "string", "minLength": 1},
    subject={"type": "string", "minLength": 1},
    version=LATEST_OR_NUMBER,
)
# what a version's answers show of it as stored (AVRO's schemaType left out, as Confluent does)
STORED: dict[str, Any] = {
    "schemaType": {"type": "string", "enum": list(TYPES)},
    "references": {"type": "array", "items": REFERENCE},
    "metadata": "object",
    "ruleSet": "object",
}
SUBJECT_VERSION = obj(
    "subject version id schema",
    subject="string",
    version="integer",
    id="integer",
    guid="string",
    schema="string",
    deleted="boolean",
    **STORED,
)
REGISTERED = obj("id", id="integer", version="integer", guid="string", **STORED)
SCHEMA = obj("schema", id="integer", guid="string", schema="string", **STORED)
REGISTRATION = obj(
    "schema",
    schema={"type": "string", "pattern": r"\S", "description": "the schema's text"},
    schemaType={"enum": [*TYPES, None], "description": "any letter case; AVRO when absent"},
    references={"type": nullable("array"), "items": REFERENCE},
    metadata=nullable("object"),
    ruleSet=nullable("object"),
    id={"anyOf": [LATEST_OR_NUMBER, {"type": "null"}], "description": "IMPORT mode: the schema id to keep"},
    version={"anyOf": [LATEST_OR_NUMBER, {"type": "null"}], "description": "IMPORT mode: the number to keep"},
)
CONFIG = obj(
    compatibilityLevel="string",
    compatibility={"type": "string", "description": "the level, as the clients send it"},
    compatibilityGroup="string",
    defaultMetadata="object",
    overrideMetadata="object",
    defaultRuleSet="object",
    overrideRuleSet="object",
    normalize="boolean",
    validateFields="boolean",
)
LEVEL = {"enum": [*(level.upper() for level in LEVELS), None], "description": "any letter case; null removes it"}
CONFIG_BODY = obj(
    description="members present set their setting (null removes it); members absent are kept",
    compatibilityLevel=LEVEL,
    compatibility=LEVEL,
    compatibilityGroup={"type": nullable("string"), "minLength": 1},
    defaultMetadata=nullable("object"),
    overrideMetadata=nullable("object"),
    defaultRuleSet=nullable("object"),
    overrideRuleSet=nullable("object"),
    normalize=nullable("boolean"),
    validateFields=nullable("boolean"),
)
MODE = obj("mode", mode={"type": "string", "enum": list(MODES)})
MODE_BODY = obj("mode", mode={"enum": list(MODES), "description": "any letter case"})
COMPATIBILITY = obj("is_compatible", is_compatible="boolean", messages=NAMES)
SUBJECT_VERSION_PAIRS = {"type": "array", "items": obj("subject version", subject="string", version="integer")}
TOPIC: dict[str, Any] = {name: "string" for name in ("resourceName", "resourceNamespace", "resourceId", "resourceType")}
ASSOCIATION = obj(
    subject="string",
    guid="string",
    **TOPIC,
    associationType="string",
    lifecycle={"type": "string", "enum": ["STRONG", "WEAK"]},
    frozen="boolean",
)
ASSOCIATIONS_BODY = obj(
    description="a topic (resourceName, resourceNamespace, resourceId, resourceType) and its associations",
    **TOPIC,
    associations={"type": "array", "items": {"type": "object"}},
)
KEK = obj(
    "name kmsType kmsKeyId shared deleted",
    name="string",
    kmsType="string",
    kmsKeyId="string",
    kmsProps="object",
    doc=nullable("string"),
    shared="boolean",
    ts="integer",
    deleted="boolean",
)
KEK_CHANGES: dict[str, Any] = {"kmsProps": nullable("object"), "doc": nullable("string"), "shared": nullable("boolean")}
KEK_BODY = obj("name kmsType kmsKeyId", name="string", kmsType="string", kmsKeyId="string", **KEK_CHANGES)
DEK = obj(
    "kekName subject version algorithm",
    kekName="string",
    subject="string",
    version="integer",
    algorithm="string",
    encryptedKeyMaterial=nullable("string"),
    keyMaterial={"type": "string", "description": "a shared KEK's DEK, to the callers who may read it"},
    ts="integer",
    deleted="boolean",
)
DEK_BODY = obj(
    subject={"type": "string", "description": "POST .../deks only: the DEK's subject"},
    version=nullable("integer"),
    algorithm=nullable("string"),
    encryptedKeyMaterial=nullable("string"),
)


# the operations ------------------------------------------------------------------------------------------------------
def read(summary: str, shape, what: str, *, more=(), **options):
    """An operation answering 200 with `shape` (a JSON schema, OpenApiTypes.ANY for a schema's text as registered),
    or refusing with a read's errors and `more`."""
    errors_ = errors(*READ_ERRORS, *more)
    return operation(summary, ok=[(200, shape, what)], errors=errors_, tags=["confluent"], media=MEDIA_TYPE, **options)


def write(summary: str, shape=None, what: str = "", **options):
    """A write answering 200 with `shape`, or without one 204 with no body (and taking none: a delete, an
    undelete)."""
    if shape is None:
        ok, more = [(204, None, "done (no body)")], {"body": OpenApiTypes.NONE, **options}
        return operation(summary, ok=ok, errors=errors(*WRITE_ERRORS), tags=["confluent"], **more)
    return read(summary, shape, what, more=(409, 413, 415, 503), **options)


def body(shape) -> dict:
    return {"application/json": shape}


LOOKUP: dict[str, Any] = {"body": body(REGISTRATION), "more": (413, 415)}  # a POST that reads
FOUND_VERSION = (SUBJECT_VERSION, "the subject's version with this schema")
DELETED_VERSIONS = (NUMBERS, "the versions deleted")
FOUND = ({"type": "array", "items": ASSOCIATION}, "associations")
TOPIC_ANSWER = ({"type": "object"}, "the topic and its associations")
OPERATIONS = {
    subjects.SubjectsView: {"get": read("List subjects", NAMES, "subject names")},
    subjects.SubjectVersionsView: {
        "get": read("List a subject's version numbers", NUMBERS, "version numbers"),
        "post": write(
            "Register a schema under a subject (the same content again answers the same id and version)",
            REGISTERED,
            "its schema id and version",
            body=body(REGISTRATION),
        ),
    },
    subjects.SubjectView: {
        "post": read("Look a schema up in a subject", *FOUND_VERSION, **LOOKUP),
        "delete": write("Delete a subject (soft, or permanent after a soft delete)", *DELETED_VERSIONS),
    },
    subjects.SubjectMetadataView: {
        "get": read(
            "The newest version of a subject whose metadata has these properties", SUBJECT_VERSION, "the version"
        ),
        "post": read("Look a schema up in the subject named `S/metadata`", *FOUND_VERSION, **LOOKUP),
        "delete": write(
            "Delete the subject named `S/metadata` (soft, or permanent after a soft delete)", *DELETED_VERSIONS
        ),
    },
    subjects.VersionView: {
        "get": read("A subject's version (`latest` or -1: the newest live one)", SUBJECT_VERSION, "the version"),
        "delete": write(
            "Delete a subject's version (soft, or permanent after a soft delete)",
            {"type": "integer"},
            "the version number deleted",
        ),
    },
    subjects.VersionSchemaView: {
        "get": read("A subject version's schema text alone", OpenApiTypes.ANY, "the schema, as registered")
    },
    subjects.ReferencedByView: {
        "get": read("The ids of the schemas that reference a subject's version", NUMBERS, "schema ids")
    },
    subjects.ContextsView: {"get": read("List contexts", NAMES, "context names")},
    schemas.SchemaByIdView: {"get": read("The schema of an id", SCHEMA, "the schema", meanings=ANY_SUBJECT)},
    schemas.SchemaByGuidView: {"get": read("The schema of a GUID, with its id", SCHEMA, "the schema")},
    schemas.SchemaTextByIdView: {
        "get": read("The schema text of an id alone", OpenApiTypes.ANY, "the schema, as registered")
    },
    schemas.SchemaSubjectsView: {"get": read("The subjects with a version of this schema id", NAMES, "subject names")},
    schemas.SchemaVersionsView: {
        "get": read("The subject versions of this schema id", SUBJECT_VERSION_PAIRS, "(subject, version) pairs")
    },
    schemas.SchemaTypesView: {"get": read("The schema types served", NAMES, "AVRO, JSON, PROTOBUF")},
    settings.ConfigView: {
        "get": read("The config (global, a context's `:.ctx:` or a subject's own)", CONFIG, "the config"),
        "put": write(
            "Set members of the config", CONFIG, "the scope's own config after the write", body=body(CONFIG_BODY)
        ),
        "delete": write("Remove the config of the scope", CONFIG, "the config it had"),
    },
    settings.ModeView: {
        "get": read("The mode (global, a context's or a subject's)", MODE, "the mode"),
        "put": write("Set the mode", MODE, "the mode set", body=body(MODE_BODY)),
        "delete": write("Remove a subject's or a context's own mode", MODE, "the mode it had"),
    },
    settings.CompatibilityView: {
        "post": read(
            "Whether a schema could be registered (against one version, or those the level covers)",
            COMPATIBILITY,
            "the answer",
            body=body(REGISTRATION),
            more=(413, 415, 429, 503),
        )
    },
    associations.AssociationsView: {
        "post": write("Create a topic's associations", *TOPIC_ANSWER, body=body(ASSOCIATIONS_BODY))
    },
    associations.ByResourceNameView: {"get": read("A topic's associations by its name and cluster (`-`: any)", *FOUND)},
    associations.ByResourceIdView: {
        "get": read("A topic's associations by its id", *FOUND),
        "put": write("Create or update a topic's associations", *TOPIC_ANSWER, body=body(ASSOCIATIONS_BODY)),
        "delete": write("Delete a topic's associations"),
    },
    associations.BySubjectView: {"get": read("A subject's associations", *FOUND)},
    dek.KeksView: {
        "get": read("List KEK names", NAMES, "KEK names", meanings=KEK_SUBJECTS),
        "post": write("Create a KEK", KEK, "the KEK", body=body(KEK_BODY)),
    },
    dek.KekView: {
        "get": read("A KEK", KEK, "the KEK"),
        "put": write(
            "Change a KEK's kmsProps, doc or shared",
            KEK,
            "the KEK",
            body=body(obj(description="the members sent are changed, the others kept", **KEK_CHANGES)),
        ),
        "delete": write("Delete a KEK"),
    },
    dek.KekUndeleteView: {"post": write("Undelete a KEK")},
    dek.KekTestView: {
        "post": write("Whether the registry reaches a shared KEK's KMS", KEK, "the KEK", body=OpenApiTypes.NONE)
    },
    dek.DeksView: {
        "get": read("The subjects of a KEK's DEKs", NAMES, "subjects"),
        "post": write("Create a DEK (its subject in the body)", DEK, "the DEK", body=body(DEK_BODY)),
    },
    dek.DekView: {
        "get": read("A subject's DEK (version 1)", DEK, "the DEK"),
        "post": write("Create a subject's DEK", DEK, "the DEK", body=body(DEK_BODY)),
        "delete": write("Delete every version of a subject's DEK"),
    },
    dek.DekUndeleteView: {"post": write("Undelete every version of a subject's DEK")},
    dek.DekVersionsView: {"get": read("The versions of a subject's DEK", NUMBERS, "versions")},
    dek.DekVersionView: {
        "get": read("A version of a subject's DEK (`latest` or -1: the newest)", DEK, "the DEK"),
        "delete": write("Delete a version of a subject's DEK"),
    },
    dek.DekVersionUndeleteView: {"post": write("Undelete a version of a subject's DEK")},
}


def declare(root) -> None:
    """Attach the operations to the API's views (`root`: the API's root view, confluent.api.urls')."""
    root_ok = [(200, {"type": "object"}, "{}")]
    describe(
        root, {"get": operation("The API's root (an empty object)", ok=root_ok, tags=["confluent"], media=MEDIA_TYPE)}
    )
    for view, operations in OPERATIONS.items():
        describe(view, operations, MEANINGS)
    # two routes of one shape (a topic by name and cluster, or by id): the kernel's operation ids would be the same
    extend_schema(operation_id="get_confluent_associations_resources_by_name")(associations.ByResourceNameView.get)
