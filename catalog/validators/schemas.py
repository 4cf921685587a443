"""Schema documents per format (docs/api-contract.md section 5): a schema version's document must be a valid schema.

- JSON Schema (draft-07, 2019-09, 2020-12; older drafts too): UTF-8 JSON, meta-validated against the draft
  named by the format version, else by `$schema`, else draft-07. jsonschema decides and words the errors;
  jsonschema-rs, compiled and far faster, answers first for drafts 4 to 2020-12 (see `_first_meta_error`). The
  document's own `$ref`s are not followed here (a meta-validation reads the document as data), and both validators
  fetch nothing (catalog.validators.json_references).
- Avro: the JSON form (`.avsc`; a top-level array is a union), parsed with `fastavro.parse_schema`. A document may
  use named types defined in other documents only when the writer resolved them (`references`: the Confluent API's
  references, deepest first): their named types are parsed first and known while parsing it. Without references a
  document stands alone, as always.
- Protobuf 2 and 3: parsed with proto-schema-parser; syntax errors are reported with line and column.
- XSD 1.0 / 1.1 (1.1 when the version is not given): parsed with xmlschema, with no file or network access
  (`allow="none"`: imports and includes are not fetched) and entities defused (`defuse="always"`).
- Any other format (family None): stored unvalidated, no errors.

Bounds: documents over `max_bytes` are refused before parsing. The project's limit is the setting
`REGISTRY_MAX_SCHEMA_BYTES`, which the caller (catalog.hooks) passes; the default here, used where no Django
settings exist (Spark executors), is the setting's default, 4 MiB. JSON is checked for nesting deeper than
256 levels without recursion before any library sees it; XML depth is capped by xmlschema (1000). Every
library exception, RecursionError and MemoryError included, becomes an error string starting with `schema`.

Budget (issue 24): a document is checked within REGISTRY_CHECK_SECONDS (catalog.validators.budget; its own
limit, or the budget of the check that asks, such as a compatibility dry run); the Protobuf parser's grammar
rules and the characters read are its steps, as are an XML Schema's components built and values read
(catalog.validators.xsd_classes), and past it a 503 problem names the budget. No verdict is cached then.

Verdicts are cached (issue 14): the errors of a (family, version, document) are kept in a bounded cache
(registry/store/bounded_cache.py, `schema_verdicts` in the metrics) keyed by the document's sha256, so an unchanged
document posted again, as a new version of an existing schema or in a retried request, is not validated again. Verdicts reached through RecursionError or MemoryError ("too
complex", "nested too deeply") depend on the moment and are not cached.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable

from registry.domain.json_text import MAX_DEPTH, nesting_exceeds, parse_json_limited
from registry.store.bounded_cache import BoundedCache

from . import budget
from .digest_cache import digest
from .format_names import schema_format_family
from .json_references import refuse_retrieval, schema_registry

DEFAULT_MAX_BYTES = 4 * 1024 * 1024  # = REGISTRY_MAX_SCHEMA_BYTES's default; callers pass the setting
DRAFTS = {
    "draft-04": "http://json-schema.org/draft-04/schema#",
    "draft-06": "http://json-schema.org/draft-06/schema#",
    "draft-07": "http://json-schema.org/draft-07/schema#",
    "draft/2019-09": "https://json-schema.org/draft/2019-09/schema",
    "draft-2019-09": "https://json-schema.org/draft/2019-09/schema",
    "2019-09": "https://json-schema.org/draft/2019-09/schema",
    "draft/2020-12": "https://json-schema.org/draft/2020-12/schema",
    "draft-2020-12": "https://json-schema.org/draft/2020-12/schema",
    "2020-12": "https://json-schema.org/draft/2020-12/schema",
}
DRAFT_NAMES = {
    "Draft4Validator": "draft-04",
    "Draft6Validator": "draft-06",
    "Draft7Validator": "draft-07",
    "Draft201909Validator": "2019-09",
    "Draft202012Validator": "2020-12",
}
FAST_PATH_MAX_DEPTH = 64  # nesting up to which jsonschema-rs may accept a schema (see _first_meta_error)
VERDICT_CACHE_SIZE = 1024  # verdicts kept per process, the ones used last (a digest and a few strings each)
_TRANSIENT_MARKERS = ("too complex to", "nested too deeply")  # verdicts of RecursionError / MemoryError
_verdicts = BoundedCache("schema_verdicts", max_entries=VERDICT_CACHE_SIZE)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:500] if text else type(exc).__name__


def _json_schema(version: str | None, content: bytes) -> list[str]:
    # here: jsonschema loads with the first JSON Schema document, not at the start-up of every process
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
    draft = DRAFT_NAMES.get(cls.__name__, cls.__name__)
    try:
        error = _first_meta_error(cls, schema, content)
    except (RecursionError, MemoryError):
        return [f"schema: too complex to meta-validate as JSON Schema {draft}"]
    except Exception as exc:  # a broken metaschema reference, an odd regex ...
        return [f"schema: not valid JSON Schema {draft}: {_first_line(exc)}"]
    if error is None:
        return []
    where = ".".join(str(p) for p in error.absolute_path) or "(root)"
    return [f"schema: not valid JSON Schema {draft}: {error.message[:500]} (at {where})"]


@functools.cache
def _metaschema_validators(cls):
    """The validators of draft `cls`'s metaschema, built once per process: jsonschema's, as `cls.check_schema`
    builds it, and jsonschema-rs's for the drafts in DRAFT_NAMES (None for others), given jsonschema's format
    checks (`regex` is then Python's `re`, as jsonschema checks it)."""
    # here: jsonschema-rs and jsonschema load with the first JSON Schema document, not at start-up
    import jsonschema_rs
    from jsonschema.validators import validator_for

    meta_cls = validator_for(cls.META_SCHEMA, default=cls)
    checker = meta_cls.FORMAT_CHECKER
    reference = meta_cls(schema=cls.META_SCHEMA, format_checker=checker, registry=schema_registry())
    if cls.__name__ not in DRAFT_NAMES:
        return reference, None
    formats: dict[str, Callable[..., bool]] = {
        name: functools.partial(checker.conforms, format=name) for name in checker.checkers
    }
    fast = jsonschema_rs.validator_for(
        cls.META_SCHEMA, formats=formats, validate_formats=True, retriever=refuse_retrieval
    )
    return reference, fast


def _first_meta_error(cls, schema, content: bytes):
    """The error `cls.check_schema(schema)` raises (the first one jsonschema finds), or None when valid.

    jsonschema-rs answers first, and a schema it accepts is valid: it implements the same drafts and is
    given jsonschema's own format checks, and where the two were found to differ it is the stricter (URI
    formats, which jsonschema leaves unchecked without rfc3987, and NaN bounds). A schema it refuses goes
    through jsonschema, which decides and words the error, so that strictness costs time, never a different
    answer. Documents nested deeper than FAST_PATH_MAX_DEPTH go to jsonschema alone, whose recursion limit
    may refuse them, as it always did.
    """
    reference, fast = _metaschema_validators(cls)
    if fast is not None and not nesting_exceeds(content.decode("utf-8-sig"), FAST_PATH_MAX_DEPTH):
        try:
            if fast.is_valid(schema):
                return None
        except Exception:  # a value jsonschema-rs cannot take; jsonschema decides below
            pass
    return next(reference.iter_errors(schema), None)


def avro_named_types(references: tuple[bytes, ...] | list[bytes]) -> dict:
    """fastavro's named schemas of the referenced Avro documents (deepest first: each may use the types of the ones
    before it); ValueError naming the first that does not parse."""
    # here: fastavro loads with the first Avro document, not at the start-up of every process
    import fastavro

    names: dict = {}
    for index, document in enumerate(references, 1):
        try:
            fastavro.parse_schema(parse_json_limited(document), named_schemas=names, _write_hint=False)
        except (RecursionError, MemoryError):
            raise ValueError(f"referenced schema {index} is nested too deeply")
        except Exception as exc:  # fastavro raises several types for an invalid schema
            raise ValueError(f"referenced schema {index} is not a valid Avro schema: {_first_line(exc)}")
    return names


def _avro(content: bytes, references: tuple[bytes, ...] = ()) -> list[str]:
    # here: fastavro loads with the first Avro document, not at the start-up of every process
    import fastavro

    try:
        schema = parse_json_limited(content)
    except ValueError as exc:
        # Avro IDL is not supported: a schema must be the JSON form
        return [f"schema: an Avro schema must be JSON (the .avsc form), and this {exc}"]
    try:
        names = avro_named_types(references)
    except ValueError as exc:
        return [f"schema: {exc}"]
    try:
        fastavro.parse_schema(schema, named_schemas=names, _write_hint=False)
    except (RecursionError, MemoryError):
        return ["schema: the Avro schema is nested too deeply"]
    except Exception as exc:  # fastavro raises several types for an invalid schema
        return [f"schema: not a valid Avro schema: {type(exc).__name__}: {_first_line(exc)}"]
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


class _RuleSteps:
    """ANTLR parse listener: every grammar rule entered is a step of the running check's budget (the parser is
    pure Python: a candidate of under a megabyte held a dry run for long)."""

    def enterEveryRule(self, ctx):  # noqa: N802 (ANTLR's names)
        budget.spend()

    def exitEveryRule(self, ctx):  # noqa: N802
        pass

    def visitTerminal(self, node):  # noqa: N802
        pass

    def visitErrorNode(self, node):  # noqa: N802
        pass


@functools.cache
def _counting_stream_class():
    """ANTLR's InputStream, spending a budget step every 4096 characters consumed (antlr4 is imported lazily)."""
    # here: ANTLR's runtime loads with the first Protobuf document, not at the start-up of every process
    from antlr4 import InputStream

    class CountingStream(InputStream):
        __slots__ = ("_read",)

        def consume(self):
            self._read = getattr(self, "_read", 0) + 1
            if not self._read & 4095:
                budget.spend()
            super().consume()

    return CountingStream


def _counting_stream(text: str):
    return _counting_stream_class()(text)


def parse_proto(text: str):
    """The proto-schema-parser AST of `text`; ValueError listing the syntax errors (with line:column). Within
    the running check's budget (catalog.validators.budget): grammar rules and characters read are its steps."""
    # here: the Protobuf parser loads with the first Protobuf document, not at the start-up of every process
    from proto_schema_parser.parser import Parser

    listener = _SyntaxErrors()

    def quiet(recognizer):
        recognizer.removeErrorListeners()
        recognizer.addErrorListener(listener)
        if hasattr(recognizer, "addParseListener"):  # the parser
            recognizer.addParseListener(_RuleSteps())
        else:  # the lexer: every 4096th character read is a step too (one comment may span megabytes)
            recognizer.inputStream = _counting_stream(recognizer.inputStream.strdata)

    try:
        tree = Parser(setup_lexer=quiet, setup_parser=quiet).parse(text)
    except (RecursionError, MemoryError):
        listener.errors.append("nested too deeply")
        tree = None
    except Exception as exc:  # the AST builder fails on what the parser recovered from
        listener.errors.append(_first_line(exc))
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
    # here: xmlschema (xsd_classes: its build counts steps of the check budget) loads with the first XSD document
    from .xsd_classes import schema_class

    cls = schema_class("1.0" if (version or "").startswith("1.0") else "1.1")
    try:
        with warnings.catch_warnings():  # an import that is not fetched is a warning, not an error
            warnings.simplefilter("ignore")
            # allow="none": no file or network access; defuse="always": no DTD entities (billion laughs)
            cls(content, allow="none", defuse="always", build=True)
    except (RecursionError, MemoryError):
        return [f"schema: too complex to parse as XML Schema {cls.XSD_VERSION}"]
    except Exception as exc:  # XMLSchemaParseError, ParseError, defused entity errors, depth limits ...
        return [f"schema: not a valid XML Schema {cls.XSD_VERSION}: {_first_line(exc)}"]
    return []


def validate_schema(
    format: str | None,  # noqa: A002
    content: bytes,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    references: tuple[bytes, ...] = (),
) -> list[str]:
    """Every error of a schema document of the given format ([] when valid, and for unknown formats).

    `max_bytes` bounds the document (callers pass `REGISTRY_MAX_SCHEMA_BYTES`); JSON deeper than 256 levels
    is refused before parsing. `references`: documents whose named types an Avro document may use (module
    docstring); other formats do not read them.
    """
    family, version = schema_format_family(format)
    if family is None:
        return []
    if len(content) > max_bytes:
        return [f"schema is {len(content)} bytes, more than the {max_bytes} bytes a schema may have"]
    references = tuple(references) if family == "Avro" else ()
    key = digest(family, version, content, *references)
    cached = _verdicts.get(key)
    if cached is not None:
        return list(cached)
    with budget.limit("the check of the schema document"):
        errors = _validate_uncached(family, version, content, references)
    if not any(marker in error for error in errors for marker in _TRANSIENT_MARKERS):
        _verdicts.put(key, tuple(errors))
    return errors


def _validate_uncached(family: str, version: str | None, content: bytes, references: tuple[bytes, ...]) -> list[str]:
    """The errors of `content` as a schema of `family`/`version`, computed (validate_schema caches them)."""
    if family == "JsonSchema":
        return _json_schema(version, content)
    if family == "Avro":
        return _avro(content, references)
    if family == "Protobuf":
        return _protobuf(version, content)
    return _xsd(version, content)


__all__ = ["DEFAULT_MAX_BYTES", "MAX_DEPTH", "avro_named_types", "parse_proto", "validate_schema"]
