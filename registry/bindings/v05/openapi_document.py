"""Rules applied to the whole OpenAPI document after drf-spectacular built it (a postprocessing hook).

What holds for every operation is said once here instead of in each view's description, so that the document
says what the server does (issue 11, checked by schemathesis with all its checks):

- ids in paths follow the id rule (RFC 3986 segment characters, at most 128, not `.` or `..`);
- query parameters carry their real bounds (`epoch` an unsigned integer, `limit` at least 1, `filter`
  ATTRIBUTE=VALUE, `uri` required);
- every operation may answer 414 and 431 (gunicorn's limits on the request line and headers);
- group bodies are described from the registry model: common attributes, extension attribute names, and the
  attributes a group type's app declares (`GroupType.body_schema`); definition documents are JSON objects.
"""

from __future__ import annotations

from ...domain.attributes import COMMON, DOCS_PATTERN, ID_MAX_LENGTH, ID_PATTERN, SERVER_OWNED, TAG_KEY_PATTERN
from ...domain.model import registry_model

# the server's own patterns (registry.domain.attributes), which are also valid ECMAScript patterns
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

QUERY_SCHEMAS = {
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


def group_body_schema(group_type, *, with_id: bool = True, seed: bool = True) -> dict:
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


# (path, method) -> group type plural, for operations outside the core binding that take a group body
GROUP_BODY_OPERATIONS: dict[tuple[str, str], str] = {}


def register_group_body(path: str, method: str, group_plural: str) -> None:
    """An app's binding declares that an operation takes a group body of this type (without the id)."""
    GROUP_BODY_OPERATIONS[(path, method)] = group_plural


def document_schema() -> dict:
    """A registry document (`POST /`): the top-level attributes and a map of id to group for each type."""
    properties = {
        "$schema": {"type": "string"},
        "specversion": {"type": "string"},
        **{k: v for k, v in common_properties().items() if k != "epoch"},
        "id": {"description": "the exporting registry's id; not imported"},
    }
    for gt in registry_model.group_types:
        properties[gt.plural] = {
            "type": "object",
            "propertyNames": dict(ID_SCHEMA),
            "additionalProperties": group_body_schema(gt, with_id=False, seed=False),
        }
    return {"type": "object", "properties": properties, "additionalProperties": False}


def _group_operations() -> dict:
    """(path, method) -> (the group type whose body that operation takes, whether the body holds the id)."""
    out = {}
    for gt in registry_model.group_types:
        out[(f"/{gt.plural}", "post")] = (gt, True)
        out[(f"/{gt.plural}/{{gid}}", "put")] = (gt, False)
    for key, plural in GROUP_BODY_OPERATIONS.items():
        out[key] = (registry_model[plural], False)
    return out


def _document_operations() -> set:
    """Operations whose body is a definition document (JSON object): resource types with shared attributes."""
    out = set()
    for gt in registry_model.group_types:
        for rt in gt.resources:
            if rt.shared_attributes:
                base = f"/{gt.plural}/{{gid}}/{rt.plural}"
                out |= {
                    (base, "post"),
                    (base + "/{rid}", "put"),
                    (base + "/{rid}", "post"),
                    (base + "/{rid}/versions/{vid}", "put"),
                }
    return out


def _set_json_body(operation: dict, schema: dict) -> None:
    content = operation.get("requestBody", {}).get("content", {})
    for media_type in list(content):
        if "json" in media_type:
            content[media_type] = {"schema": schema}


def postprocess(result, generator, request, public):
    group_operations = _group_operations()
    document_operations = _document_operations()
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            parameters = []
            for parameter in operation.get("parameters", []):
                name, where = parameter.get("name"), parameter.get("in")
                if where == "path" and name in PATH_IDS:
                    parameter["schema"] = dict(PATH_ID_SCHEMA)
                if where == "query" and name in QUERY_SCHEMAS and not path.startswith("/confluent/"):  # Confluent's own
                    parameter["schema"] = dict(QUERY_SCHEMAS[name])
                    if name == "uri":
                        parameter["required"] = True
                parameters.append(parameter)
            operation["parameters"] = parameters
            body = operation.get("requestBody")
            if body and method != "delete" and all("json" in media for media in body.get("content", {})):
                body["required"] = True  # an empty JSON body is refused (400); a document may be empty
            for response in operation["responses"].values():
                for media in response.get("content", {}).values():
                    if media.get("schema") == {"type": "string", "format": "binary"}:
                        media["schema"] = {}  # a document in its own media type, or JSON metadata (?meta)
            for status, description in GATEWAY_PROBLEMS.items():
                operation["responses"].setdefault(
                    status,
                    {"description": description, "content": {"application/problem+json": {"schema": PROBLEM_REF}}},
                )
            if (path, method) in group_operations:
                group_type, with_id = group_operations[(path, method)]
                _set_json_body(operation, group_body_schema(group_type, with_id=with_id))
            if (path, method) in document_operations and "requestBody" in operation:
                operation["requestBody"]["content"] = {"application/json": {"schema": {"type": "object"}}}
            if (path, method) == ("/", "post"):
                _set_json_body(operation, document_schema())
    return result
