"""The Confluent API's operations in the registry's OpenAPI document (`/api/schema/`, `/api/docs/`): their paths,
methods, query parameters, bodies and answers, the errors as Confluent's `{"error_code", "message"}` document with its
media type. The descriptions are attached to the views here (drf-spectacular's `extend_schema`), so the views keep to
what they do (confluent.api.urls imports this module); `base.ConfluentAutoSchema` adds what holds for every operation.
Only what the server enforces is stated as a constraint: a schema's text, a rule set or a KMS's properties are valid by
rules OpenAPI cannot state, refused with Confluent's 422 codes naming the rule."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers

from catalog.validators.compatibility import LEVELS

from ..models import MAX_SCHEMA_ID
from ..schema_types import TYPES
from ..selectors import MODES
from . import associations, dek, schemas, settings, subjects
from .binding import MEDIA_TYPE

TAGS = ["confluent"]

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


def ok(schema, description: str, status: int = 200) -> dict:
    return {(status, MEDIA_TYPE): OpenApiResponse(schema, description)}


NO_CONTENT = {204: OpenApiResponse(description="done (no body)")}


def _query(name: str, kind, description: str, **more) -> OpenApiParameter:
    return OpenApiParameter(name, kind, OpenApiParameter.QUERY, description=description, **more)


def _or_empty(schema: dict) -> dict:
    return {"anyOf": [schema, {"const": ""}]}  # an empty value is the parameter's default, as if absent


def _flag(name: str, description: str) -> OpenApiParameter:
    return _query(name, _or_empty({"type": "boolean"}), f"{description} (true or false, any case)")


DELETED = _flag("deleted", "soft-deleted ones too")
DELETED_ONLY = _flag("deleted_only", "soft-deleted ones alone")
PERMANENT = _flag("permanent", "delete for good (after a soft delete)")
NORMALIZE = _flag("normalize", "accepted; the registry compares canonical forms anyway")
FORMAT = _query("format", OpenApiTypes.STR, "`serialized`: a PROTOBUF schema as its base64 FileDescriptorProto")
PAGE = [
    _query("offset", _or_empty({"type": "integer"}), "the first item given (from 0)"),
    _query("limit", _or_empty({"type": "integer"}), "at most this many items (-1: all)"),
]
ALGORITHM = _query("algorithm", OpenApiTypes.STR, "the DEK's algorithm (AES256_GCM by default)")
CONTEXT = _query("context", OpenApiTypes.STR, "the context the KEK serves")

NAMES = {"type": "array", "items": {"type": "string"}}
NUMBERS = {"type": "array", "items": {"type": "integer"}}
NUMBER = {"type": "integer", "minimum": 1, "maximum": MAX_SCHEMA_ID}
LATEST_OR_NUMBER = {"anyOf": [{"const": -1}, NUMBER]}  # -1: the latest
REFERENCE = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "subject": {"type": "string", "minLength": 1},
        "version": LATEST_OR_NUMBER,
    },
    "required": ["name", "subject", "version"],
}
STORED = {  # what a version's answers show of it as stored (AVRO's schemaType left out, as Confluent does)
    "schemaType": {"type": "string", "enum": list(TYPES)},
    "references": {"type": "array", "items": REFERENCE},
    "metadata": {"type": "object"},
    "ruleSet": {"type": "object"},
}
SUBJECT_VERSION = {
    "type": "object",
    "properties": {
        "subject": {"type": "string"},
        "version": {"type": "integer"},
        "id": {"type": "integer"},
        "guid": {"type": "string"},
        "schema": {"type": "string"},
        "deleted": {"type": "boolean"},
        **STORED,
    },
    "required": ["subject", "version", "id", "schema"],
}
REGISTERED = {
    "type": "object",
    "properties": {"id": {"type": "integer"}, "version": {"type": "integer"}, "guid": {"type": "string"}, **STORED},
    "required": ["id"],
}
SCHEMA = {
    "type": "object",
    "properties": {"id": {"type": "integer"}, "guid": {"type": "string"}, "schema": {"type": "string"}, **STORED},
    "required": ["schema"],
}
REGISTRATION = {
    "type": "object",
    "properties": {
        "schema": {"type": "string", "pattern": r"\S", "description": "the schema's text"},
        "schemaType": {"enum": [*TYPES, None], "description": "any letter case; AVRO when absent"},
        "references": {"type": ["array", "null"], "items": REFERENCE},
        "metadata": {"type": ["object", "null"]},
        "ruleSet": {"type": ["object", "null"]},
        "id": {"anyOf": [LATEST_OR_NUMBER, {"type": "null"}], "description": "IMPORT mode: the schema id to keep"},
        "version": {"anyOf": [LATEST_OR_NUMBER, {"type": "null"}], "description": "IMPORT mode: the number to keep"},
    },
    "required": ["schema"],
}
CONFIG = {
    "type": "object",
    "properties": {
        "compatibilityLevel": {"type": "string"},
        "compatibility": {"type": "string", "description": "the level, as the clients send it"},
        "compatibilityGroup": {"type": "string"},
        "defaultMetadata": {"type": "object"},
        "overrideMetadata": {"type": "object"},
        "defaultRuleSet": {"type": "object"},
        "overrideRuleSet": {"type": "object"},
        "normalize": {"type": "boolean"},
        "validateFields": {"type": "boolean"},
    },
}
LEVEL = {"enum": [*(level.upper() for level in LEVELS), None], "description": "any letter case; null removes it"}
CONFIG_BODY = {
    "type": "object",
    "description": "members present set their setting (null removes it); members absent are kept",
    "properties": {
        "compatibilityLevel": LEVEL,
        "compatibility": LEVEL,
        "compatibilityGroup": {"type": ["string", "null"], "minLength": 1},
        "defaultMetadata": {"type": ["object", "null"]},
        "overrideMetadata": {"type": ["object", "null"]},
        "defaultRuleSet": {"type": ["object", "null"]},
        "overrideRuleSet": {"type": ["object", "null"]},
        "normalize": {"type": ["boolean", "null"]},
        "validateFields": {"type": ["boolean", "null"]},
    },
}
MODE = {"type": "object", "properties": {"mode": {"type": "string", "enum": list(MODES)}}, "required": ["mode"]}
MODE_BODY = {
    "type": "object",
    "properties": {"mode": {"enum": list(MODES), "description": "any letter case"}},
    "required": ["mode"],
}
COMPATIBILITY = {
    "type": "object",
    "properties": {"is_compatible": {"type": "boolean"}, "messages": NAMES},
    "required": ["is_compatible"],
}
SUBJECT_VERSION_PAIRS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"subject": {"type": "string"}, "version": {"type": "integer"}},
        "required": ["subject", "version"],
    },
}
ASSOCIATION = {
    "type": "object",
    "properties": {
        "subject": {"type": "string"},
        "guid": {"type": "string"},
        "resourceName": {"type": "string"},
        "resourceNamespace": {"type": "string"},
        "resourceId": {"type": "string"},
        "resourceType": {"type": "string"},
        "associationType": {"type": "string"},
        "lifecycle": {"type": "string", "enum": ["STRONG", "WEAK"]},
        "frozen": {"type": "boolean"},
    },
}
ASSOCIATIONS_BODY = {
    "type": "object",
    "description": "a topic (resourceName, resourceNamespace, resourceId, resourceType) and its associations",
    "properties": {
        "resourceName": {"type": "string"},
        "resourceNamespace": {"type": "string"},
        "resourceId": {"type": "string"},
        "resourceType": {"type": "string"},
        "associations": {"type": "array", "items": {"type": "object"}},
    },
}
ASSOCIATION_FILTERS = [
    _query("resourceType", OpenApiTypes.STR, "the resource type (topic by default)"),
    _query("associationType", {"type": "array", "items": {"type": "string"}}, "these association types alone"),
    _query("lifecycle", {"enum": ["STRONG", "WEAK", ""]}, "STRONG or WEAK ones alone (empty: either)"),
    *PAGE,
]
DRY_RUN = _flag("dryRun", "refused when true (42212: not served)")
KEK = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "kmsType": {"type": "string"},
        "kmsKeyId": {"type": "string"},
        "kmsProps": {"type": "object"},
        "doc": {"type": ["string", "null"]},
        "shared": {"type": "boolean"},
        "ts": {"type": "integer"},
        "deleted": {"type": "boolean"},
    },
    "required": ["name", "kmsType", "kmsKeyId", "shared", "deleted"],
}
KEK_BODY = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "kmsType": {"type": "string"},
        "kmsKeyId": {"type": "string"},
        "kmsProps": {"type": ["object", "null"]},
        "doc": {"type": ["string", "null"]},
        "shared": {"type": ["boolean", "null"]},
    },
    "required": ["name", "kmsType", "kmsKeyId"],
}
KEK_CHANGES = {
    "type": "object",
    "description": "the members sent are changed, the others kept",
    "properties": {
        "kmsProps": {"type": ["object", "null"]},
        "doc": {"type": ["string", "null"]},
        "shared": {"type": ["boolean", "null"]},
    },
}
DEK = {
    "type": "object",
    "properties": {
        "kekName": {"type": "string"},
        "subject": {"type": "string"},
        "version": {"type": "integer"},
        "algorithm": {"type": "string"},
        "encryptedKeyMaterial": {"type": ["string", "null"]},
        "keyMaterial": {"type": "string", "description": "a shared KEK's DEK, to the callers who may read it"},
        "ts": {"type": "integer"},
        "deleted": {"type": "boolean"},
    },
    "required": ["kekName", "subject", "version", "algorithm"],
}
DEK_BODY = {
    "type": "object",
    "properties": {
        "subject": {"type": "string", "description": "POST .../deks only: the DEK's subject"},
        "version": {"type": ["integer", "null"]},
        "algorithm": {"type": ["string", "null"]},
        "encryptedKeyMaterial": {"type": ["string", "null"]},
    },
}


def describe(view, method: str, summary: str, *, body=None, parameters=(), responses: dict, **more) -> None:
    """Attach the description of one operation to a view's method (shared by every route of the view)."""
    request = {"application/json": body} if body is not None else None
    schema = extend_schema(
        summary=summary, request=request, parameters=list(parameters), responses=responses, tags=TAGS, **more
    )
    setattr(view, method, schema(getattr(view, method)))


# subjects
describe(
    subjects.SubjectsView,
    "get",
    "List subjects",
    parameters=[_query("subjectPrefix", OpenApiTypes.STR, "those starting so"), DELETED, DELETED_ONLY, *PAGE],
    responses={**ok(NAMES, "subject names"), **errors(*READ_ERRORS)},
)
describe(
    subjects.SubjectVersionsView,
    "get",
    "List a subject's version numbers",
    parameters=[DELETED, DELETED_ONLY, *PAGE],
    responses={**ok(NUMBERS, "version numbers"), **errors(*READ_ERRORS)},
)
describe(
    subjects.SubjectVersionsView,
    "post",
    "Register a schema under a subject (the same content again answers the same id and version)",
    parameters=[NORMALIZE],
    body=REGISTRATION,
    responses={**ok(REGISTERED, "its schema id and version"), **errors(*WRITE_ERRORS)},
)
LOOKUP = {**ok(SUBJECT_VERSION, "the subject's version with this schema"), **errors(*READ_ERRORS, 413, 415)}
DELETED_VERSIONS = {**ok(NUMBERS, "the versions deleted"), **errors(*WRITE_ERRORS)}
for view, named in (
    (subjects.SubjectView, "a subject"),
    (subjects.SubjectMetadataView, "the subject named `S/metadata`"),
):
    parameters = [DELETED, NORMALIZE, FORMAT]
    describe(view, "post", f"Look a schema up in {named}", parameters=parameters, body=REGISTRATION, responses=LOOKUP)
    describe(
        view,
        "delete",
        f"Delete {named} (soft, or permanent after a soft delete)",
        parameters=[PERMANENT],
        responses=DELETED_VERSIONS,
    )
describe(
    subjects.SubjectMetadataView,
    "get",
    "The newest version of a subject whose metadata has these properties",
    parameters=[
        _query("key", {"type": "array", "items": {"type": "string"}}, "a property's name (paired with value)"),
        _query("value", {"type": "array", "items": {"type": "string"}}, "a property's value"),
        DELETED,
        FORMAT,
    ],
    responses={**ok(SUBJECT_VERSION, "the version"), **errors(*READ_ERRORS)},
)
describe(
    subjects.VersionView,
    "get",
    "A subject's version (`latest` or -1: the newest live one)",
    parameters=[DELETED, FORMAT],
    responses={**ok(SUBJECT_VERSION, "the version"), **errors(*READ_ERRORS)},
)
describe(
    subjects.VersionView,
    "delete",
    "Delete a subject's version (soft, or permanent after a soft delete)",
    parameters=[PERMANENT],
    responses={**ok({"type": "integer"}, "the version number deleted"), **errors(*WRITE_ERRORS)},
)
describe(
    subjects.VersionSchemaView,
    "get",
    "A subject version's schema text alone",
    parameters=[DELETED, FORMAT],
    responses={**ok(OpenApiTypes.ANY, "the schema, as registered"), **errors(*READ_ERRORS)},
)
describe(
    subjects.ReferencedByView,
    "get",
    "The ids of the schemas that reference a subject's version",
    parameters=PAGE,
    responses={**ok(NUMBERS, "schema ids"), **errors(*READ_ERRORS)},
)
describe(
    subjects.ContextsView,
    "get",
    "List contexts",
    parameters=PAGE,
    responses={**ok(NAMES, "context names"), **errors(*READ_ERRORS)},
)

# schemas by id
describe(
    schemas.SchemaByIdView,
    "get",
    "The schema of an id",
    parameters=[FORMAT, _query("subject", OpenApiTypes.STR, "accepted (ids are global here)")],
    responses={**ok(SCHEMA, "the schema"), **errors(*READ_ERRORS)},
)
describe(
    schemas.SchemaByGuidView,
    "get",
    "The schema of a GUID, with its id",
    parameters=[FORMAT],
    responses={**ok(SCHEMA, "the schema"), **errors(*READ_ERRORS)},
)
describe(
    schemas.SchemaTextByIdView,
    "get",
    "The schema text of an id alone",
    parameters=[FORMAT],
    responses={**ok(OpenApiTypes.ANY, "the schema, as registered"), **errors(*READ_ERRORS)},
)
of_id = [DELETED, _query("subject", OpenApiTypes.STR, "this subject's alone"), *PAGE]
describe(
    schemas.SchemaSubjectsView,
    "get",
    "The subjects with a version of this schema id",
    parameters=of_id,
    responses={**ok(NAMES, "subject names"), **errors(*READ_ERRORS)},
)
describe(
    schemas.SchemaVersionsView,
    "get",
    "The subject versions of this schema id",
    parameters=of_id,
    responses={**ok(SUBJECT_VERSION_PAIRS, "(subject, version) pairs"), **errors(*READ_ERRORS)},
)
describe(
    schemas.SchemaTypesView,
    "get",
    "The schema types served",
    responses={**ok(NAMES, "AVRO, JSON, PROTOBUF"), **errors(*READ_ERRORS)},
)

# config, mode, compatibility
describe(
    settings.ConfigView,
    "get",
    "The config (global, a context's `:.ctx:` or a subject's own)",
    parameters=[_flag("defaultToGlobal", "a subject's: the config that applies to it")],
    responses={**ok(CONFIG, "the config"), **errors(*READ_ERRORS)},
)
describe(
    settings.ConfigView,
    "put",
    "Set members of the config",
    body=CONFIG_BODY,
    responses={**ok(CONFIG, "the scope's own config after the write"), **errors(*WRITE_ERRORS)},
)
describe(
    settings.ConfigView,
    "delete",
    "Remove the config of the scope",
    responses={**ok(CONFIG, "the config it had"), **errors(*WRITE_ERRORS)},
)
describe(
    settings.ModeView,
    "get",
    "The mode (global, a context's or a subject's)",
    parameters=[_flag("defaultToGlobal", "a subject's: the mode that applies to it")],
    responses={**ok(MODE, "the mode"), **errors(*READ_ERRORS)},
)
describe(
    settings.ModeView,
    "put",
    "Set the mode",
    parameters=[_flag("force", "IMPORT on a subject that has versions")],
    body=MODE_BODY,
    responses={**ok(MODE, "the mode set"), **errors(*WRITE_ERRORS)},
)
describe(
    settings.ModeView,
    "delete",
    "Remove a subject's or a context's own mode",
    responses={**ok(MODE, "the mode it had"), **errors(*WRITE_ERRORS)},
)
describe(
    settings.CompatibilityView,
    "post",
    "Whether a schema could be registered (against one version, or those the level covers)",
    parameters=[_flag("verbose", "with the checker's reasons"), NORMALIZE],
    body=REGISTRATION,
    responses={**ok(COMPATIBILITY, "the answer"), **errors(*READ_ERRORS, 413, 415, 429, 503)},
)

# associations
describe(
    associations.AssociationsView,
    "post",
    "Create a topic's associations",
    parameters=[DRY_RUN],
    body=ASSOCIATIONS_BODY,
    responses={**ok({"type": "object"}, "the topic and its associations"), **errors(*WRITE_ERRORS)},
)
found = {**ok({"type": "array", "items": ASSOCIATION}, "associations"), **errors(*READ_ERRORS)}
describe(
    associations.ByResourceNameView,
    "get",
    "A topic's associations by its name and cluster (`-`: any)",
    parameters=ASSOCIATION_FILTERS,
    responses=found,
    operation_id="get_confluent_associations_resources_by_name",
)
describe(
    associations.ByResourceIdView,
    "get",
    "A topic's associations by its id",
    parameters=ASSOCIATION_FILTERS,
    responses=found,
)
describe(
    associations.ByResourceIdView,
    "put",
    "Create or update a topic's associations",
    parameters=[DRY_RUN],
    body=ASSOCIATIONS_BODY,
    responses={**ok({"type": "object"}, "the topic and its associations"), **errors(*WRITE_ERRORS)},
)
describe(
    associations.ByResourceIdView,
    "delete",
    "Delete a topic's associations",
    parameters=[
        DRY_RUN,
        _flag("cascadeLifecycle", "the subjects of STRONG ones with them"),
        *ASSOCIATION_FILTERS[:2],
    ],
    responses={**NO_CONTENT, **errors(*WRITE_ERRORS)},
)
describe(
    associations.BySubjectView,
    "get",
    "A subject's associations",
    parameters=ASSOCIATION_FILTERS,
    responses=found,
)

# the DEK registry
describe(
    dek.KeksView,
    "get",
    "List KEK names",
    parameters=[
        _query("subjectPrefix", {"type": "array", "items": {"type": "string"}}, "with a DEK of such a subject"),
        DELETED,
        *PAGE,
    ],
    responses={**ok(NAMES, "KEK names"), **errors(*READ_ERRORS)},
)
describe(
    dek.KeksView,
    "post",
    "Create a KEK",
    parameters=[CONTEXT, _flag("testSharing", "accepted: a shared KEK's KMS is always tried")],
    body=KEK_BODY,
    responses={**ok(KEK, "the KEK"), **errors(*WRITE_ERRORS)},
)
describe(
    dek.KekView,
    "get",
    "A KEK",
    parameters=[DELETED, CONTEXT],
    responses={**ok(KEK, "the KEK"), **errors(*READ_ERRORS)},
)
describe(
    dek.KekView,
    "put",
    "Change a KEK's kmsProps, doc or shared",
    parameters=[CONTEXT, _flag("testSharing", "accepted")],
    body=KEK_CHANGES,
    responses={**ok(KEK, "the KEK"), **errors(*WRITE_ERRORS)},
)
describe(
    dek.KekView,
    "delete",
    "Delete a KEK",
    parameters=[PERMANENT],
    responses={**NO_CONTENT, **errors(*WRITE_ERRORS)},
)
describe(dek.KekUndeleteView, "post", "Undelete a KEK", responses={**NO_CONTENT, **errors(*WRITE_ERRORS)})
describe(
    dek.KekTestView,
    "post",
    "Whether the registry reaches a shared KEK's KMS",
    responses={**ok(KEK, "the KEK"), **errors(*WRITE_ERRORS)},
)
describe(
    dek.DeksView,
    "get",
    "The subjects of a KEK's DEKs",
    parameters=[DELETED, *PAGE],
    responses={**ok(NAMES, "subjects"), **errors(*READ_ERRORS)},
)
describe(
    dek.DeksView,
    "post",
    "Create a DEK (its subject in the body)",
    body=DEK_BODY,
    responses={**ok(DEK, "the DEK"), **errors(*WRITE_ERRORS)},
)
describe(
    dek.DekView,
    "get",
    "A subject's DEK (version 1)",
    parameters=[ALGORITHM, DELETED],
    responses={**ok(DEK, "the DEK"), **errors(*READ_ERRORS)},
)
describe(
    dek.DekView,
    "post",
    "Create a subject's DEK",
    parameters=[_flag("rewrap", "refused when true (not served)")],
    body=DEK_BODY,
    responses={**ok(DEK, "the DEK"), **errors(*WRITE_ERRORS)},
)
describe(
    dek.DekView,
    "delete",
    "Delete every version of a subject's DEK",
    parameters=[ALGORITHM, PERMANENT],
    responses={**NO_CONTENT, **errors(*WRITE_ERRORS)},
)
describe(
    dek.DekUndeleteView,
    "post",
    "Undelete every version of a subject's DEK",
    parameters=[ALGORITHM],
    responses={**NO_CONTENT, **errors(*WRITE_ERRORS)},
)
describe(
    dek.DekVersionsView,
    "get",
    "The versions of a subject's DEK",
    parameters=[ALGORITHM, DELETED, *PAGE],
    responses={**ok(NUMBERS, "versions"), **errors(*READ_ERRORS)},
)
describe(
    dek.DekVersionView,
    "get",
    "A version of a subject's DEK (`latest` or -1: the newest)",
    parameters=[ALGORITHM, DELETED],
    responses={**ok(DEK, "the DEK"), **errors(*READ_ERRORS)},
)
describe(
    dek.DekVersionView,
    "delete",
    "Delete a version of a subject's DEK",
    parameters=[ALGORITHM, PERMANENT],
    responses={**NO_CONTENT, **errors(*WRITE_ERRORS)},
)
describe(
    dek.DekVersionUndeleteView,
    "post",
    "Undelete a version of a subject's DEK",
    parameters=[ALGORITHM],
    responses={**NO_CONTENT, **errors(*WRITE_ERRORS)},
)
