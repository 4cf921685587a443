"""Schema documents per format: JSON Schema is meta-validated (draft-07, 2019-09, 2020-12), Avro parsed
with fastavro, Protobuf 2/3 parsed with proto-schema-parser, XSD 1.0/1.1 parsed with xmlschema (no network,
entities defused). Unknown formats are stored unvalidated. Errors start with `schema`.
"""
from __future__ import annotations

from .format_names import schema_format_family
from .json_limits import parse_json_limited

DEFAULT_MAX_BYTES = 4 * 1024 * 1024  # REGISTRY_MAX_SCHEMA_BYTES overrides it through the catalog hook
DRAFTS = {
    "draft-04": "http://json-schema.org/draft-04/schema#",
    "draft-06": "http://json-schema.org/draft-06/schema#",
    "draft-07": "http://json-schema.org/draft-07/schema#",
    "draft/2019-09": "https://json-schema.org/draft/2019-09/schema",
    "2019-09": "https://json-schema.org/draft/2019-09/schema",
    "draft/2020-12": "https://json-schema.org/draft/2020-12/schema",
    "2020-12": "https://json-schema.org/draft/2020-12/schema",
}


def _json_schema(version: str | None, content: bytes) -> list[str]:
    import jsonschema
    from jsonschema.validators import validator_for

    try:
        schema = parse_json_limited(content)
    except ValueError as exc:
        return [f"schema {exc}"]
    if not isinstance(schema, dict | bool):
        return ["schema: a JSON Schema is an object or a boolean"]
    uri = DRAFTS.get((version or "").lower())
    if uri is None and isinstance(schema, dict) and isinstance(schema.get("$schema"), str):
        uri = schema["$schema"]
    cls = validator_for({"$schema": uri} if uri else {}, default=jsonschema.Draft7Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = ".".join(str(p) for p in exc.absolute_path) or "(root)"
        return [f"schema: not a valid JSON Schema ({cls.__name__}): {exc.message} (at {where})"]
    except RecursionError:
        return ["schema is nested too deeply"]
    return []


def _avro(content: bytes) -> list[str]:
    import fastavro

    try:
        schema = parse_json_limited(content)
    except ValueError:
        # Avro IDL is not supported; a schema must be the JSON form
        return ["schema: an Avro schema must be JSON (the .avsc form)"]
    try:
        fastavro.parse_schema(schema)
    except Exception as exc:  # fastavro raises several types for an invalid schema
        return [f"schema: not a valid Avro schema: {exc}"]
    return []


class _SyntaxErrors:
    """ANTLR error listener that collects syntax errors instead of printing them."""

    def __init__(self):
        self.errors: list[str] = []

    def syntaxError(self, recognizer, offending_symbol, line, column, msg, e):  # noqa: N802 (ANTLR's name)
        self.errors.append(f"line {line}:{column} {msg}")

    def reportAmbiguity(self, *args):  # noqa: N802
        pass

    def reportAttemptingFullContext(self, *args):  # noqa: N802
        pass

    def reportContextSensitivity(self, *args):  # noqa: N802
        pass


def parse_proto(text: str):
    """The proto-schema-parser AST; ValueError listing syntax errors."""
    from proto_schema_parser.parser import Parser

    listener = _SyntaxErrors()

    def quiet(recognizer):
        recognizer.removeErrorListeners()
        recognizer.addErrorListener(listener)

    try:
        tree = Parser(setup_lexer=quiet, setup_parser=quiet).parse(text)
    except Exception as exc:  # the AST builder fails on what the parser recovered from
        listener.errors.append(str(exc) or type(exc).__name__)
        tree = None
    if listener.errors:
        raise ValueError("; ".join(listener.errors[:5]))
    return tree


def _protobuf(version: str | None, content: bytes) -> list[str]:
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return ["schema: a .proto document must be UTF-8 text"]
    try:
        tree = parse_proto(text)
    except ValueError as exc:
        return [f"schema: not a valid Protobuf schema: {exc}"]
    expected = {"2": "proto2", "3": "proto3"}.get((version or "").split(".")[0])
    if expected and tree.syntax and tree.syntax != expected:
        return [f"schema declares syntax {tree.syntax!r} but the format is Protobuf/{version}"]
    return []


def _xsd(version: str | None, content: bytes) -> list[str]:
    import xmlschema

    cls = xmlschema.XMLSchema10 if (version or "").startswith("1.0") else xmlschema.XMLSchema11
    try:
        cls(content, allow="none", defuse="always", build=True)  # no file or network access, no entities
    except Exception as exc:  # XMLSchemaParseError, ParseError, defused entity errors ...
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return [f"schema: not a valid XML Schema {cls.XSD_VERSION}: {message}"]
    return []


def validate_schema(format_name: str | None, content: bytes, *, max_bytes: int = DEFAULT_MAX_BYTES) -> list[str]:
    """Every error of a schema document of the given format; [] for unknown formats."""
    family, version = schema_format_family(format_name)
    if family is None:
        return []
    if len(content) > max_bytes:
        return [f"schema is {len(content)} bytes, more than the {max_bytes} bytes a schema may have"]
    if family == "JsonSchema":
        return _json_schema(version, content)
    if family == "Avro":
        return _avro(content)
    if family == "Protobuf":
        return _protobuf(version, content)
    return _xsd(version, content)
