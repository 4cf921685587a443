"""HTTP metadata (spec: the "HTTP" message format; its text, not the 0.5-wip schema's `requestHeaders`).

- `headers`: an array of `{name, value}` objects (HTTP allows a header more than once). `name` is an HTTP
  field name (RFC 9110 token); the object may also carry the declaration members (`required`, `description`,
  `type`, `specurl`); `value` is a string without a control character (RFC 9110 field value; tab allowed).
- `query`: a map of parameter name -> string value.
- `path`: an RFC 6570 level 1 URI template.
- `method`: an HTTP method (RFC 9110 token); `status`: a status code string, "100" to "599". The two are
  mutually exclusive (a message is either a request or a response).
String values MAY contain level 1 placeholders. The text's example writes plain strings (`"method": "POST"`);
`query`, `path`, `method` and `status` also accept a property declaration (`{"value": "POST"}`), the shape of
every other format and of the 0.5-wip schema.
"""

import re

from ..http_fields import CONTROL, TOKEN, header_list_errors
from .declarations import check_declaration, key, literal_parts, placeholders_error, show, template_error, unknown_keys

KNOWN = ("headers", "query", "path", "method", "status")
STATUS = re.compile(r"^[1-5][0-9][0-9]$")


def _string(path: str, value, kind: str) -> list[str]:
    """A plain string value of `kind`: path (a template), method, status, or a header/query string."""
    if not isinstance(value, str):
        return [f"{path} must be a string"]
    if kind == "path":
        error = template_error(value)
        return [f"{path}: {show(value)} is not an RFC 6570 level 1 template: {error}"] if error else []
    error = placeholders_error(value)
    if error:
        return [f"{path}: {show(value)}: {error}"]
    if CONTROL.search(value):
        return [f"{path} must not contain CR, LF, NUL or another control character"]
    if "{" in value and not literal_parts(value):
        return []  # only placeholders: any method or status fits
    if kind == "method" and not TOKEN.fullmatch(literal_parts(value)):
        return [f"{path}: {show(value)} is not an HTTP method (RFC 9110 token)"]
    if kind == "status" and "{" not in value and not STATUS.fullmatch(value):
        return [f'{path}: {show(value)} is not an HTTP status code (a string "100" to "599")']
    return []


def _string_or_declaration(path: str, item, kind: str) -> list[str]:
    if not isinstance(item, dict | str):
        return [f"{path} must be a string or a property declaration"]
    if isinstance(item, str):
        return _string(path, item, kind)
    errors = check_declaration(path, item, "uritemplate" if kind == "path" else "string", fixed=True)
    if isinstance(item.get("value"), str) and not errors:
        errors += _string(f"{path}.value", item["value"], kind)
    return errors


def _header_declaration(header: dict, where: str) -> list[str]:
    return check_declaration(where, header, "string", extra_keys=("name",))


def _headers(headers) -> list[str]:
    return header_list_errors(headers, "metadata.headers", item_errors=_header_declaration)


def validate(metadata: dict) -> list[str]:
    errors = unknown_keys(metadata, KNOWN, "an HTTP message property")
    if "headers" in metadata:
        errors += _headers(metadata["headers"])
    if "query" in metadata:
        query = metadata["query"]
        if not isinstance(query, dict):
            errors.append("metadata.query must be an object (a map of parameter name -> string)")
        else:
            for name, value in query.items():
                path = f"metadata.query.{key(name)}"
                if not isinstance(name, str) or not name:
                    errors.append(f"{path}: query parameter names must be non-empty strings")
                else:
                    errors += _string_or_declaration(path, value, "query")
    for name in ("path", "method", "status"):
        if name in metadata:
            errors += _string_or_declaration(f"metadata.{name}", metadata[name], name)
    if "method" in metadata and "status" in metadata:
        errors.append("metadata.method and metadata.status are mutually exclusive (a request or a response)")
    return errors
