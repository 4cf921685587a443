"""Message data checked as a JSON value (docs/api-contract.md section 12): JSON Schema of the schema's draft
(jsonschema, optionally the subschema a JSON pointer names; `$ref`s resolve only inside the registry,
catalog.validators.json_references) and Avro (fastavro: the Avro JSON encoding, a plain
datum, or with `binary` the Avro binary encoding, which must decode exactly). Compiled validators and parsed
schemas are cached per digest of format and document. Errors go into the message check's report with paths such
as `data.items[2].sku`; a schema that cannot be applied is a note, not an error.
"""

from __future__ import annotations

import io
import json

import jsonschema
from jsonschema.validators import validator_for
from referencing import Resource
from referencing.jsonschema import specification_with

from catalog.message_report import MAX_ERRORS, Report
from catalog.validators import budget
from catalog.validators.avro_binary import CountError, check_counts, has_zero_width_arrays
from catalog.validators.digest_cache import digest
from catalog.validators.json_engine import UncheckedError, bounded_validator_class, unchecked_count
from catalog.validators.json_references import schema_registry, unresolvable_reason
from catalog.validators.message_formats.declarations import show
from catalog.validators.schemas import DRAFTS
from registry.domain.json_text import load_json_document
from registry.store.bounded_cache import BoundedCache

VALIDATOR_CACHE_SIZE = 256
_validators = BoundedCache("message_json_validators", max_entries=VALIDATOR_CACHE_SIZE)  # by digest


def _segment_path(parts) -> str:
    out = "data"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _json_validator(version: str | None, content: bytes, pointer: str | None = None):
    """A compiled validator for the schema document, or for the subschema at `pointer` inside it (its `$ref`s
    still resolve against the whole document); cached per schema digest and pointer."""
    key = digest("JsonSchema", version, content, pointer)
    cached = _validators.get(key)
    if cached is not None:
        return cached
    schema, problem = load_json_document(content)
    if problem is not None or not isinstance(schema, dict | bool):
        raise ValueError("the schema is not a JSON Schema document")
    uri = DRAFTS.get((version or "").lower())
    if uri is None and isinstance(schema, dict) and isinstance(schema.get("$schema"), str):
        uri = schema["$schema"]
    with budget.paused():  # built once per draft and process
        cls = bounded_validator_class(
            validator_for({"$schema": uri} if uri else {}, default=jsonschema.Draft7Validator)
        )
    registry = schema_registry()  # references resolve only inside the registry: nothing is fetched
    if pointer:
        spec = specification_with(uri or "http://json-schema.org/draft-07/schema#")
        base = "urn:cloudevents-registry:data-schema"
        registry = registry.with_resource(base, Resource.from_contents(schema, default_specification=spec))
        validator = cls({"$ref": f"{base}#/{pointer}"}, registry=registry, format_checker=cls.FORMAT_CHECKER)
    else:
        validator = cls(schema, registry=registry, format_checker=cls.FORMAT_CHECKER)
    _validators.put(key, validator)
    return validator


def check_json_schema(version, content: bytes, data, report: Report, pointer: str | None = None) -> None:
    try:
        validator = _json_validator(version, content, pointer)
    except Exception as exc:  # an invalid stored schema, an unknown $schema ...
        report.unchecked("data", f"could not be checked: the JSON Schema cannot be applied: {_first_line(exc)}")
        return
    try:
        found, unchecked = unchecked_count(
            lambda: sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
        )
    except Exception as exc:  # a failure outside any keyword (referencing, a broken $schema ...)
        reason = unresolvable_reason(exc) or f"the JSON Schema cannot be applied: {_first_line(exc)}"
        report.unchecked("data", f"could not be checked: {reason}")
        return
    reported = 0
    for error in found:
        parts = list(error.absolute_path)
        if isinstance(error, UncheckedError):
            report.unchecked(_segment_path(parts), _reason(error))
            reported += 1
            continue
        if error.validator == "required" and isinstance(error.instance, dict):
            missing = [
                p for p in error.validator_value if p not in error.instance and error.message.startswith(repr(p))
            ]
            if missing:
                report.error(_segment_path([*parts, missing[0]]), "required but missing")
                continue
        report.error(_segment_path(parts), _reason(error))
    if unchecked and not reported:  # failed inside `not`, an `anyOf` branch ...: jsonschema kept no error of it
        report.unchecked("data", f"could not be checked: {unchecked} keyword evaluation(s) failed inside a subschema")


def _reason(error) -> str:
    """jsonschema's message, with a long value it starts with shortened so that what is wrong stays in view
    (`[{...8,000 objects...}] has non-unique elements`)."""
    message = error.message
    if len(message) > 300:
        shown = repr(error.instance)
        if len(shown) > 120 and message.startswith(shown):
            message = f"{shown[:100]}...{shown[-12:]}{message[len(shown) :]}"
    return message[:500]


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__


def _avro_schema(content: bytes):
    """The parsed Avro schema of `content` (cached per digest); ValueError when it cannot be parsed."""
    return _avro_parsed(content)[0]


def _avro_parsed(content: bytes):
    """(parsed schema, its named types, whether it holds arrays of zero-width items), cached per digest."""
    # here: fastavro loads with the first Avro check, not at the start-up of every process
    import fastavro

    key = digest("Avro", None, content)
    parsed = _validators.get(key)
    if parsed is None:
        schema, problem = load_json_document(content)
        if problem is not None:
            raise ValueError("the Avro schema is not JSON")
        names: dict = {}
        try:
            # any JSON value: fastavro refuses what is not a schema (its stub names the shapes a schema has)
            root = fastavro.parse_schema(schema, named_schemas=names, _write_hint=False)  # type: ignore[arg-type]
        except Exception as exc:
            raise ValueError(str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__) from exc
        parsed = (root, names, has_zero_width_arrays(root, names))
        _validators.put(key, parsed)
    return parsed


def _avro_type_name(schema) -> str:
    if isinstance(schema, dict):
        return str(schema.get("name") or schema.get("type"))
    if isinstance(schema, list):
        return " | ".join(_avro_type_name(s) for s in schema)
    return str(schema)


def _avro_json_encoding_matches(content: bytes, data, parsed) -> bool:
    """Whether `data` is the Avro JSON encoding of a datum of the schema (unions written `{"type": value}`),
    decoded by fastavro's JSON reader and then validated (the reader alone does not check types)."""
    # here: fastavro loads with the first Avro check, not at the start-up of every process
    import fastavro
    from fastavro.validation import validate

    try:
        decoded = next(iter(fastavro.json_reader(io.StringIO(json.dumps(data)), json.loads(content))))
        return bool(validate(decoded, parsed, raise_errors=False))
    except Exception:  # noqa: BLE001  not that encoding: the value is checked as a plain datum
        return False


def check_avro(content: bytes, data, report: Report, *, binary: bytes | None = None) -> None:
    """The JSON value `data` against the Avro schema, in the Avro JSON encoding (unions wrapped) or as a plain
    datum (unions unwrapped, fastavro's); or, with `binary`, the Avro binary encoding (it must decode exactly)."""
    # here: fastavro loads with the first Avro check, not at the start-up of every process
    import fastavro
    from fastavro.validation import ValidationError, validate

    try:
        parsed = _avro_schema(content)
    except ValueError as exc:
        report.unchecked("data", f"could not be checked: the Avro schema cannot be parsed: {exc}")
        return
    if binary is not None:
        _root, names, zero_width_arrays = _avro_parsed(content)
        if zero_width_arrays:  # fastavro would loop over any count claimed for items that take no bytes
            try:
                check_counts(parsed, names, binary)
            except CountError as exc:
                report.error("data", f"is not the Avro binary encoding of the schema: {exc}")
                return
        stream = io.BytesIO(binary)
        try:
            fastavro.schemaless_reader(stream, parsed, None)
        except Exception as exc:  # EOF, a bad union index, invalid UTF-8 ...
            report.error("data", f"is not the Avro binary encoding of the schema: {type(exc).__name__}")
            return
        if stream.tell() != len(binary):
            report.error("data", f"has {len(binary) - stream.tell()} bytes after the Avro datum")
        return
    if _avro_json_encoding_matches(content, data, parsed):
        return
    try:
        validate(data, parsed, raise_errors=True)
    except ValidationError as exc:
        for item in exc.errors[:MAX_ERRORS]:
            name = getattr(item, "field", None) or ""
            field_name = name.rsplit(".", 1)[-1] if name else ""
            report.error(
                f"data.{field_name}" if field_name else "data",
                f"{show(getattr(item, 'datum', None))} is not of the Avro type "
                f"{_avro_type_name(getattr(item, 'schema', None))}",
            )
    except Exception as exc:
        report.error("data", f"does not match the Avro schema: {str(exc).splitlines()[0][:300]}")
