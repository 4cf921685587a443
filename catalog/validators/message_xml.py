"""Message data against an XML Schema (docs/api-contract.md section 12): the data is XML text (a string in
`data`, the envelope's body, or `data_base64`), validated with xmlschema against the stored XSD, both with no
file or network access (`allow="none"`) and entities defused (`defuse="always"`); errors name the XPath of the
failing element: `data/order/qty`. XML data longer than MAX_XML_BYTES is not checked (a note says so): xmlschema
validates about a megabyte a second. Compiled schemas are cached per digest.
"""

from __future__ import annotations

import decimal
import warnings

from .digest_cache import DigestLRU, digest

MAX_XML_BYTES = 2 * 1024 * 1024  # XML data checked at most (xmlschema validates about 1 MB a second)
CACHE_SIZE = 64
_cache = DigestLRU(CACHE_SIZE)


def xml_schema(version: str | None, content: bytes):
    """The compiled XSD (cached per digest); ValueError when it cannot be built."""
    import xmlschema

    key = digest("XSD", version, content)
    cached = _cache.get(key)
    if cached is not None:
        return cached
    cls = xmlschema.XMLSchema10 if (version or "").startswith("1.0") else xmlschema.XMLSchema11
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            schema = cls(
                content.decode("utf-8") if isinstance(content, bytes) else content,
                allow="none",
                defuse="always",
                build=True,
            )
    except (RecursionError, MemoryError):
        raise ValueError("too complex")
    except Exception as exc:
        text = str(exc).strip()
        raise ValueError(text.splitlines()[0][:300] if text else type(exc).__name__) from exc
    _cache.put(key, schema)
    return schema


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


def check_xml(version: str | None, content: bytes, text: str, report) -> None:
    """The XML document `text` against the XSD `content`: errors into `report` (path `data` + XPath)."""
    import xmlschema

    if len(text) > MAX_XML_BYTES:
        report.notes.append(
            f"data not checked: XML data of {len(text)} characters, more than the {MAX_XML_BYTES} "
            "checked against an XML Schema"
        )
        return
    try:
        schema = xml_schema(version, content)
    except (ValueError, UnicodeDecodeError) as exc:
        report.notes.append(f"data not checked: the XML Schema cannot be built: {exc}")
        return
    try:
        resource = xmlschema.XMLResource(text, allow="none", defuse="always")
    except Exception as exc:  # not well-formed, a DTD entity refused, too deep ...
        first = str(exc).strip().splitlines()
        report.error("data", f"is not a well-formed XML document: {first[0][:300] if first else type(exc).__name__}")
        return
    try:
        for error in schema.iter_errors(resource):
            path = getattr(error, "path", None)
            report.error(f"data{path}" if path else "data", _xml_reason(error))
            if len(report.errors) >= 100:
                break
    except (RecursionError, MemoryError):
        report.error("data", "is too deeply nested to be checked")
    except Exception as exc:  # a failure inside xmlschema on odd input
        report.error("data", f"cannot be validated against the XML Schema: {type(exc).__name__}")
