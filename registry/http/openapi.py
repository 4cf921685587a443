"""The OpenAPI description of every binding (drf-spectacular at `/api/schema/`), generated from the bindings'
declarations.

A binding declares what each of its views' methods does (`operation`: a summary, its body, its answers, its errors
in the binding's words) and attaches the table to its views with `describe`, with its table of what each query flag
means: an operation's query parameters are the flags its view declares for the method (`RegistryView.flags`, the
flags the kernel checks), so that the description and the check cannot disagree; bodies the whole-document rules
describe from the model it declares with `register_body`. The kernel owns the vocabulary (the problem document,
error answers, JSON and document answers), the AutoSchema of the kernel's views (operation ids from the path,
optional authentication on public reads), the security scheme of the kernel's HTTP Basic authentication, and the
rules that hold for the whole document, applied by `postprocess` after drf-spectacular built it (so that the
document says what the server does; issue 11, checked by schemathesis with all its checks):

- ids in paths follow the id rule (RFC 3986 segment characters, at most 128, not `.` or `..`);
- query parameters carry their real bounds (`epoch` an unsigned integer, `limit` at least 1, `filter`
  ATTRIBUTE=VALUE, `uri` required);
- every operation may answer 414 and 431 (gunicorn's limits on the request line and headers);
- the bodies registered with `register_body`: group bodies from the registry model (common attributes, extension
  attribute names, the attributes a group type's app declares in `GroupType.body_schema`), JSON objects.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from drf_spectacular.authentication import BasicScheme
from drf_spectacular.drainage import isolate_view_method
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers

from ..domain.attributes import COMMON, DOCS_PATTERN, ID_MAX_LENGTH, ID_PATTERN, SERVER_OWNED, TAG_KEY_PATTERN
from ..domain.model import GroupType, registry_model

PROBLEM = inline_serializer(
    "Problem",
    fields={
        "type": serializers.CharField(),
        "title": serializers.CharField(),
        "status": serializers.IntegerField(),
        "detail": serializers.CharField(),
        "instance": serializers.CharField(required=False),
        "errors": serializers.ListField(child=serializers.JSONField(), required=False),
        "referencedby": serializers.DictField(
            child=serializers.JSONField(),
            required=False,
            help_text="409 on a delete: the entities still referencing it",
        ),
        "subject": serializers.CharField(
            required=False, help_text="xRegistry 1.0 binding: the entity's xid or the request path the error is about"
        ),
        "args": serializers.DictField(
            child=serializers.CharField(),
            required=False,
            help_text="xRegistry 1.0 binding: the substitution values of the title",
        ),
    },
)
PROBLEM_DESCRIPTIONS = {
    400: "invalid request",
    401: "authentication required",
    403: "permission denied",
    404: "unknown entity",
    405: "method not allowed",
    409: "conflict (id, epoch, compatibility, still referenced)",
    413: "body too large",
    415: "unsupported media type",
    429: "too many requests (anonymous callers of the checks and the map: REGISTRY_THROTTLE_ANON_*)",
    503: "the check ran past its budget (REGISTRY_CHECK_SECONDS), or a service is unavailable",
}
OBJECT = OpenApiTypes.OBJECT  # a body or answer that is a JSON object
DOCUMENT = OpenApiTypes.BINARY  # a document in its own media type (`*/*`), or JSON metadata


def problem_responses(*codes: int, words: dict[int, str] | None = None) -> dict:
    """Answers of these error statuses, as `application/problem+json` documents (for extend_schema); `words`: a
    binding's own description of some of them."""
    words = {**PROBLEM_DESCRIPTIONS, **(words or {})}
    return {(code, "application/problem+json"): OpenApiResponse(PROBLEM, words[code]) for code in codes}


# the errors of a read and of a write, in the kernel's words: with public reads off (REGISTRY_PUBLIC_READ), a read
# below a group with owners refuses a caller with no role there (registry/http/permissions.check_group_read)
READ_ERRORS = problem_responses(400, 401, 403, 404, words={403: "no role in the group (public reads off)"})
WRITE_ERRORS = problem_responses(400, 401, 403, 404, 409, 413, 415)
# a read of many groups (the registry's root, a collection of groups) keeps to the groups the caller may read
# (registry/access/read_scope.py) rather than refusing: no 403
LISTING_ERRORS = problem_responses(400, 401, 404)


def flag(name: str, description: str, type_=OpenApiTypes.STR, **options) -> OpenApiParameter:
    """A query parameter (`many`, `enum`, `required` as drf-spectacular's)."""
    return OpenApiParameter(name, type_, OpenApiParameter.QUERY, description=description, **options)


# the flags the 0.5 and the older bindings take alike
EPOCH = flag("epoch", "the entity's current epoch; 409 when it differs", OpenApiTypes.INT)
FILTER = flag("filter", "ATTR=VALUE, '*' wildcards, dotted paths; repeatable (AND)", many=True)
LIMIT = flag("limit", "page size", OpenApiTypes.INT)


# a binding's table of what each query flag means: name -> its parameter, or None for a flag the description leaves
# out (paging's `page`, whose tokens come from Link headers only)
FlagMeanings = Mapping[str, OpenApiParameter | None]


def answers(*ok: tuple, errors: dict | None = None, media: str = "application/json") -> dict:
    """An operation's answers: each `(status, shape, description)` of `ok`, the shape OBJECT or a JSON schema (a
    JSON answer, of the binding's `media` type), DOCUMENT (a document in its own media type) or None (no body); then
    `errors`."""
    out: dict = {}
    for status, shape, description in ok:
        if shape is None:
            out[status] = OpenApiResponse(description=description)
        else:
            out[(status, "*/*" if shape is DOCUMENT else media)] = OpenApiResponse(shape, description)
    return {**out, **(errors or {})}


@dataclass(frozen=True)
class Operation:
    """One operation's description: its `answers(*ok, errors=errors)`, its `body` (a type, or {media type: type}),
    and its query parameters: `flags` when given, else those its view declares for the method (`describe`);
    `meanings`: this operation's own meaning of some flags (an import's `force`); `media`: the media type of its
    JSON answers (Confluent's own); `description`: its longer text (None: the method's docstring, drf-spectacular's
    default, for a method the binding writes; a method of the kernel's views says nothing of one binding)."""

    summary: str
    ok: tuple = ()
    errors: dict | None = None
    flags: tuple | None = None
    body: object = None
    tags: list | None = None
    meanings: dict = field(default_factory=dict)
    media: str = "application/json"
    description: str | None = None


def operation(summary: str, *, ok=(), flags=None, meanings=None, **fields) -> Operation:
    """An Operation: `ok` and `flags` any iterables, `fields` its other fields by name."""
    flags = None if flags is None else tuple(flags)
    return Operation(summary, tuple(ok), flags=flags, meanings=meanings or {}, **fields)


def declared_parameters(view_class, method: str, meanings: FlagMeanings) -> list:
    """The query parameters of a view's method: the flags it declares (`flags`), as the binding's table says what
    they mean; a declared flag the table does not know stops the start (it would go undescribed)."""
    declared = getattr(view_class, "flags", {}).get(method, frozenset())
    unknown = sorted(name for name in declared if name not in meanings)
    if unknown:
        raise ImproperlyConfigured(f"{view_class.__name__}.{method} declares flags no table describes: {unknown}")
    return [meanings[name] for name in sorted(declared) if meanings[name] is not None]


def describe(view_class, operations: dict, meanings: FlagMeanings | None = None):
    """Attach a binding's operations ({method: operation(...)}) to a view class, each operation's query parameters
    from the flags the view declares and the binding's `meanings`. Each is described on the class's own copy of the
    method (`own_method`), so that views sharing a method, of one binding or two, keep their own descriptions; a
    method the class does not route is refused (it would be described and not served)."""
    for method, op in operations.items():
        if method not in view_class.http_method_names or not hasattr(view_class, method):
            raise ImproperlyConfigured(f"{view_class.__name__} does not route {method.upper()}: nothing to describe")
        parameters = (
            list(op.flags)
            if op.flags is not None
            else declared_parameters(view_class, method, {**(meanings or {}), **op.meanings})
        )
        # drf-spectacular tells an absent request from None (no body)
        given = {"request": op.body, "tags": op.tags, "description": op.description}
        extend_schema(
            summary=op.summary,
            parameters=parameters,
            responses=answers(*op.ok, errors=op.errors, media=op.media),
            **{name: value for name, value in given.items() if value is not None},
        )(own_method(view_class, method))
    return view_class


def own_method(view_class, method: str):
    """The class's own copy of a method to describe (drf-spectacular's isolate_view_method wraps an inherited one).
    An inherited method's copy starts undescribed: drf-spectacular's copy keeps the description the base class's
    method was given, and a description added to it adds its query parameters to the base's (a version's view
    would list its resource view's flags too)."""
    inherited = method not in view_class.__dict__
    own = isolate_view_method(view_class, method)
    if inherited:
        getattr(own, "kwargs", {}).pop("schema", None)
    return own


class RegistryBasicScheme(BasicScheme):
    """`basicAuth`, as drf-spectacular describes DRF's own HTTP Basic, for registry/http/basic_auth.py's (DRF's, its
    verified credentials remembered): drf-spectacular matches DRF's class only, not its subclasses."""

    target_class = "registry.http.basic_auth.BasicAuthentication"


class RegistryAutoSchema(AutoSchema):
    """Operation ids from the path: `get_schemaGroups_schemas` for a collection, `..._item` for one entry;
    reads that anyone may make (REGISTRY_PUBLIC_READ, views without `read_permissions`) say that
    authentication is optional."""

    def get_auth(self):
        auths = super().get_auth()
        public = settings.REGISTRY_PUBLIC_READ and not getattr(self.view, "read_permissions", None)
        reads = ("GET", "HEAD") if not getattr(self.view, "read_only_check", False) else ("GET", "HEAD", "POST")
        if self.method in reads and public and {} not in auths:
            auths.append({})
        return auths

    def get_operation_id(self):
        segments = [s for s in self.path.strip("/").split("/") if s]
        names = [s for s in segments if not s.startswith("{")]
        item = bool(segments) and segments[-1].startswith("{")
        base = "_".join(names) or "root"
        return f"{self.method.lower()}_{base}{'_item' if item else ''}"


# the whole document's rules: the server's own patterns (registry.domain.attributes), which are also ECMAScript patterns
ID_SCHEMA = {
    "type": "string",
    "minLength": 1,
    "maxLength": ID_MAX_LENGTH,
    "not": {"enum": [".", ".."]},
    "pattern": ID_PATTERN.pattern,
}
FILTER_PATTERN = r"^[A-Za-z0-9_$][A-Za-z0-9_$-]*(?:\.[A-Za-z0-9_$-]+)*=[\s\S]*$"
PATH_IDS = {"gid", "rid", "vid", "sid"}
# in a path, `%XX` is decoded before the id is read: described without it (send `%` itself as %25)
PATH_ID_SCHEMA = {**ID_SCHEMA, "pattern": r"^[A-Za-z0-9\-._~!$&'()*+,;=@]+$"}
PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}
GATEWAY_PROBLEMS = {"414": "request line too long (the server's limit)", "431": "request headers too large"}
QUERY_SCHEMAS: dict[str, dict] = {
    "epoch": {"type": "integer", "minimum": 0, "maximum": 10**20 - 1},
    "limit": {"type": "integer", "minimum": 1},
    "filter": {"type": "array", "items": {"type": "string", "pattern": FILTER_PATTERN}},
    # a version URI (the server takes up to 4,096 characters; described up to 2,000 URI characters so that the
    # request line stays within gunicorn's limit, gunicorn.conf.py)
    "uri": {
        "type": "string",
        "minLength": 1,
        "maxLength": 2000,
        "pattern": r"^[A-Za-z][A-Za-z0-9+.\-]*:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+$",
    },
}


def common_properties() -> dict:
    """The common attributes every entity body may hold (docs/api-contract.md section 2)."""
    return {
        "id": {**ID_SCHEMA, "type": ["string", "null"]},  # none or null: the server assigns one
        "name": {"type": ["string", "null"], "minLength": 1},  # null removes an attribute
        "description": {"type": ["string", "null"]},
        "docs": {"type": ["string", "null"], "pattern": DOCS_PATTERN.pattern},
        "tags": {
            "type": ["object", "null"],
            "propertyNames": {"pattern": TAG_KEY_PATTERN.pattern},
            "additionalProperties": {"type": "string"},
        },
        "epoch": {"description": "ignored on create; on update it must equal the current epoch (409)"},
    }


def _any_case(name: str) -> str:
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else c for c in name)


def extension_name_pattern(taken) -> str:
    """Names of extension attributes: ATTRIBUTE_NAME, and none of `taken` in any letter case (a name that
    differs from an attribute only by case is refused; the attribute's own name is described apart)."""
    excluded = "|".join(_any_case(name) for name in sorted(set(taken)))
    return rf"^(?!(?:{excluded})$)[A-Za-z_][A-Za-z0-9_]{{0,62}}$"


def group_body_schema(group_type: GroupType, *, with_id: bool = True, seed: bool = True) -> dict:
    """A group's body: common attributes, the type's own (declared by its app) and extensions. Without the id
    when the URL or the document's map key gives it. `seed`: written through a binding that follows the seed, where
    the type's `seed_required` attributes are REQUIRED and not null (a document import: `seed=False`)."""
    declared = group_type.body_schema or {}
    properties = {**common_properties(), **declared.get("properties", {})}
    required = list(declared.get("required", []))
    if seed:
        for name in declared.get("seed_required", []):
            properties[name] = {**properties[name], "type": "string"}
            required.append(name)
    if not with_id:
        properties.pop("id")
    taken = [
        *COMMON,
        *SERVER_OWNED,
        *declared.get("properties", {}),
        *group_type.resources_by_plural,
        "type",
        *(f"{plural}Url" for plural in group_type.resources_by_plural),
    ]
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "patternProperties": {extension_name_pattern(taken): {}},
        "additionalProperties": False,
    }


# (path, method) -> (the JSON schema of the operation's body, whether the body is JSON only): from the bindings
BODIES: dict[tuple[str, str], tuple[Callable[[], dict], bool]] = {}


def register_body(path: str, method: str, schema: Callable[[], dict], *, json_only: bool = False) -> None:
    """A binding declares the JSON schema of an operation's body (built when the document is: from the model as it
    is then); `json_only`: the body is that JSON and nothing else (a definition document), not one media type of
    several."""
    BODIES[(path, method)] = (schema, json_only)


def register_group_body(path: str, method: str, group_plural: str, *, with_id: bool = False) -> None:
    """A binding declares that an operation takes a group body of this type (the id in it, or from the URL)."""
    register_body(path, method, lambda: group_body_schema(registry_model[group_plural], with_id=with_id))


def postprocess(result, generator, request, public):
    """drf-spectacular's postprocessing hook (SPECTACULAR_SETTINGS): the whole document's rules of this module's
    docstring."""
    for path, operations in result.get("paths", {}).items():
        for method, op in operations.items():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            for parameter in op.get("parameters", []):
                name, where = parameter.get("name"), parameter.get("in")
                if where == "path" and name in PATH_IDS:
                    parameter["schema"] = dict(PATH_ID_SCHEMA)
                if where == "query" and name in QUERY_SCHEMAS and not path.startswith("/confluent/"):  # Confluent's own
                    parameter["schema"] = dict(QUERY_SCHEMAS[name])
                    if name == "uri":
                        parameter["required"] = True
            op["parameters"] = op.get("parameters", [])
            body = op.get("requestBody")
            if body and method != "delete" and all("json" in media for media in body.get("content", {})):
                body["required"] = True  # an empty JSON body is refused (400); a document may be empty
            for response in op["responses"].values():
                for media in response.get("content", {}).values():
                    if media.get("schema") == {"type": "string", "format": "binary"}:
                        media["schema"] = {}  # a document in its own media type, or JSON metadata (?meta)
            for status, description in GATEWAY_PROBLEMS.items():
                op["responses"].setdefault(
                    status,
                    {"description": description, "content": {"application/problem+json": {"schema": PROBLEM_REF}}},
                )
            if (path, method) in BODIES and "requestBody" in op:
                schema, json_only = BODIES[(path, method)]
                content = op["requestBody"]["content"]
                media_types = ["application/json"] if json_only else [media for media in content if "json" in media]
                if json_only:
                    content.clear()
                for media in media_types:
                    content[media] = {"schema": schema()}
    return result
