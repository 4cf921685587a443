"""HTTP metadata: `headers` (array of {name, value}), `query` (map), `path` (URI template), `method` or
`status` (mutually exclusive), per the spec's "HTTP" format (its text, not the 0.5-wip schema's names)."""
import re

from ..uritemplate import level1_error

TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
KEYS = {"headers", "query", "path", "method", "status"}


def _template(path: str, value) -> list[str]:
    if not isinstance(value, str):
        return [f"{path} must be a string"]
    error = level1_error(value)
    return [f"{path}: {value!r} is not an RFC 6570 level 1 template: {error}"] if error else []


def validate(metadata) -> list[str]:
    if not isinstance(metadata, dict):
        return ["metadata must be an object"]
    errors = [f"metadata.{k} is not an HTTP message property (known: {', '.join(sorted(KEYS))})"
              for k in metadata if k not in KEYS]
    headers = metadata.get("headers")
    if headers is not None:
        if not isinstance(headers, list):
            errors.append("metadata.headers must be an array of {name, value} objects")
        else:
            for index, header in enumerate(headers):
                path = f"metadata.headers[{index}]"
                if not isinstance(header, dict):
                    errors.append(f"{path} must be an object with name and value")
                    continue
                name = header.get("name")
                if not isinstance(name, str) or not TOKEN.match(name):
                    errors.append(f"{path}.name must be a valid HTTP header name")
                if "value" in header:
                    errors += _template(f"{path}.value", header["value"])
                extra = set(header) - {"name", "value", "required", "description"}
                if extra:
                    errors.append(f"{path}: unknown members {', '.join(sorted(extra))}")
    query = metadata.get("query")
    if query is not None:
        if not isinstance(query, dict):
            errors.append("metadata.query must be a map of string to string")
        else:
            for key, value in query.items():
                errors += _template(f"metadata.query.{key}", value)
    if "path" in metadata:
        errors += _template("metadata.path", metadata["path"])
    if "method" in metadata and "status" in metadata:
        errors.append("metadata.method and metadata.status are mutually exclusive")
    method = metadata.get("method")
    if method is not None and (not isinstance(method, str) or not TOKEN.match(method)):
        errors.append("metadata.method must be a valid HTTP method name")
    status = metadata.get("status")
    if status is not None:
        text = str(status) if isinstance(status, int | str) and not isinstance(status, bool) else ""
        if not (text.isdigit() and 100 <= int(text) <= 599):
            errors.append("metadata.status must be an HTTP status code (100-599)")
    return errors
