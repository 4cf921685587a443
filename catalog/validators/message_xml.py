"""Message data against an XML Schema (docs/api-contract.md section 12): the data is XML text (a string in
`data`, the envelope's body, or `data_base64`), validated with xmlschema against the stored XSD, both with no
file or network access (`allow="none"`) and entities defused (`defuse="always"`); errors name the XPath of the
failing element: `data/order/qty`. XML data longer than MAX_XML_BYTES is not checked: an error marked unchecked
says so (xmlschema validates in pure Python, at a pace docs/performance.md gives). Compiled schemas are cached per digest.

Budget (issue 24, catalog.validators.budget): the schema is built, and the data validated, by the budgeted schema
classes of catalog.validators.xsd_classes (a step per component built and per value decoded); every element of the
data is a step too (xmlschema's validation hook), and so is every evaluation of an XPath expression of an XSD 1.1 assertion (`xs:assert`, `xs:assertion`): the
schema is built with elementpath parsers whose tokens spend a step before they evaluate or select. A nested
`every ... satisfies` over a few hundred elements held a worker; it now ends with the budget's problem.
"""

from __future__ import annotations

import decimal
import functools
import warnings

import xmlschema

from registry.store.bounded_cache import BoundedCache

from . import budget
from .digest_cache import digest
from .xsd_classes import schema_class

MAX_XML_BYTES = 2 * 1024 * 1024  # XML data checked at most (xmlschema's validation is pure Python)
CACHE_SIZE = 64
_cache = BoundedCache("xml_schemas", max_entries=CACHE_SIZE)  # compiled XSDs by digest


@functools.cache
def _started(version: str):
    """The budgeted schema class of `version` (catalog.validators.xsd_classes) and the budgeted XPath parsers
    made: once per process, outside any check's budget (a cost no input causes)."""
    cls = schema_class(version)
    with budget.paused():
        maps = cls.meta_schema.maps
        _budgeted_parser(maps.xpath_parser_class), _budgeted_parser(maps.assertion_parser_class)
    return cls


def xml_schema(version: str | None, content: bytes):
    """The compiled XSD (cached per digest); ValueError when it cannot be built."""
    key = digest("XSD", version, content)
    cached = _cache.get(key)
    if cached is not None:
        return cached
    cls = _started("1.0" if (version or "").startswith("1.0") else "1.1")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            schema = cls(
                content.decode("utf-8") if isinstance(content, bytes) else content,
                allow="none",
                defuse="always",
                build=False,
            )
            # xmlschema takes no parser class as an argument and guards its maps' attributes after __init__;
            # before the build, the budgeted parsers replace elementpath's for this schema's assertions only
            object.__setattr__(schema.maps, "xpath_parser_class", _budgeted_parser(schema.maps.xpath_parser_class))
            object.__setattr__(
                schema.maps, "assertion_parser_class", _budgeted_parser(schema.maps.assertion_parser_class)
            )
            schema.build()
    except (RecursionError, MemoryError):
        raise ValueError("too complex")
    except Exception as exc:
        text = str(exc).strip()
        raise ValueError(text.splitlines()[0][:300] if text else type(exc).__name__) from exc
    _cache.put(key, schema)
    return schema


def _budgeted_token(cls):
    """elementpath token class `cls`, spending a budget step before each evaluation and selection."""

    def evaluate(self, context=None):
        budget.spend()
        return cls.evaluate(self, context)

    def select(self, context=None):
        budget.spend()
        yield from cls.select(self, context)

    return type(cls)(cls.__name__, (cls,), {"evaluate": evaluate, "select": select, "__module__": __name__})


@functools.cache
def _budgeted_parser(base):
    """elementpath parser class `base` whose tokens are all budgeted (built once per parser class)."""
    table = {name: _budgeted_token(token) for name, token in base.symbol_table.items()}
    return type(base)(f"Budgeted{base.__name__}", (base,), {"symbol_table": table, "__module__": __name__})


def _element_step(element, xsd_element) -> bool:
    """xmlschema's validation hook: one budget step per element of the data (False: validate it as usual)."""
    budget.spend()
    return False


def _xml_reason(error) -> str:
    """xmlschema's reason, with the value and the XSD type when a simple value failed."""
    reason = str(getattr(error, "reason", None) or str(error).strip().splitlines()[0])
    value = getattr(error, "obj", None)
    if isinstance(value, str | int | float | bool | decimal.Decimal):
        validator = getattr(error, "validator", None)
        type_name = getattr(validator, "prefixed_name", None) or getattr(validator, "name", None)
        if isinstance(type_name, str) and type(error).__name__ == "XMLSchemaDecodeError":
            reason = f"{str(value)[:100]!r} is not a valid {type_name} ({reason})"
        else:
            reason = f"{str(value)[:100]!r}: {reason}"
    return reason[:500]


def _not_well_formed(exc: Exception, report) -> None:
    first = str(exc).strip().splitlines()
    report.error("data", f"is not a well-formed XML document: {first[0][:300] if first else type(exc).__name__}")


def check_xml(version: str | None, content: bytes, text: str | bytes, report) -> None:
    """The XML document `text` against the XSD `content`: errors into `report` (path `data` + XPath)."""
    if len(text) > MAX_XML_BYTES:
        report.unchecked(
            "data",
            f"could not be checked: XML data of {len(text)} characters, more than the {MAX_XML_BYTES} "
            "checked against an XML Schema",
        )
        return
    try:
        schema = xml_schema(version, content)
    except (ValueError, UnicodeDecodeError) as exc:
        report.unchecked("data", f"could not be checked: the XML Schema cannot be built: {exc}")
        return
    try:
        # parsed whole (at most MAX_XML_BYTES); xmlschema's lazy mode would parse as it validates, but looks each
        # element up by an XPath query, much slower
        resource = xmlschema.XMLResource(text, allow="none", defuse="always")
    except Exception as exc:  # not well-formed, a DTD entity refused, too deep ...
        _not_well_formed(exc, report)
        return
    try:
        for error in schema.iter_errors(resource, validation_hook=_element_step):
            path = getattr(error, "path", None)
            report.error(f"data{path}" if path else "data", _xml_reason(error))
            if len(report.errors) >= 100:
                break
    except (RecursionError, MemoryError):
        report.unchecked("data", "could not be checked: nested too deeply")
    except Exception as exc:  # a failure inside xmlschema on odd input
        report.unchecked("data", f"could not be checked against the XML Schema: {type(exc).__name__}")
