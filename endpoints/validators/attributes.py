"""An endpoint's extension attributes (spec: "Endpoint Registry"; CONTRACT section 4): `usage` (required),
`origin`, `deprecated`, `channel`, `format`, `config` (`protocol` required, `endpoints`, `options`,
`strict`) and `definitionGroups`. `definitions` is a resource collection and checked elsewhere."""
from __future__ import annotations

from datetime import datetime
from urllib.parse import urlsplit

from catalog.validators.format_names import is_valid_format_identifier

from .protocols import SCHEMES, canonical_protocol, validate_options

USAGES = ("subscriber", "consumer", "producer")
DEPRECATED_KEYS = ("effective", "removal", "alternative", "docs")


def _timestamp(value) -> datetime | None:
    if not isinstance(value, str) or "T" not in value.upper():
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None


def _uri(value, absolute: bool = True) -> bool:
    if not isinstance(value, str) or not value or any(c.isspace() for c in value):
        return False
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    return bool(parts.scheme) if absolute else True


def _deprecated(value) -> list[str]:
    if not isinstance(value, dict):
        return ["deprecated must be an object (effective, removal, alternative, docs)"]
    errors = [f"deprecated.{k} is not a deprecation attribute ({', '.join(DEPRECATED_KEYS)})"
              for k in value if k not in DEPRECATED_KEYS]
    times = {}
    for key in ("effective", "removal"):
        if key in value:
            times[key] = _timestamp(value[key])
            if times[key] is None:
                errors.append(f"deprecated.{key} must be an RFC 3339 timestamp")
    if times.get("effective") and times.get("removal"):
        try:
            if times["removal"] < times["effective"]:
                errors.append("deprecated.removal must not be before deprecated.effective")
        except TypeError:
            errors.append("deprecated.effective and deprecated.removal must both carry a time zone")
    for key in ("alternative", "docs"):
        if key in value and not _uri(value[key], absolute=False):
            errors.append(f"deprecated.{key} must be a URL")
    return errors


def _config(config) -> list[str]:
    if not isinstance(config, dict):
        return ["config must be an object"]
    errors = []
    protocol = config.get("protocol")
    if protocol is None:
        errors.append("config.protocol is required")
    elif not isinstance(protocol, str) or not protocol:
        errors.append("config.protocol must be a non-empty string")
    family = canonical_protocol(protocol)
    strict = config.get("strict", False)
    if not isinstance(strict, bool):
        errors.append("config.strict must be a boolean")
        strict = False
    endpoints = config.get("endpoints")
    if endpoints is not None:
        if not isinstance(endpoints, list):
            errors.append("config.endpoints must be an array of absolute URIs")
        else:
            for index, uri in enumerate(endpoints):
                if not _uri(uri):
                    errors.append(f"config.endpoints[{index}]: {uri!r} is not an absolute URI")
                elif family and urlsplit(uri).scheme.lower() not in SCHEMES[family]:
                    errors.append(f"config.endpoints[{index}]: {uri!r} is not a valid URI for protocol {protocol} "
                                  f"(schemes: {', '.join(sorted(SCHEMES[family]))})")
    if "options" in config:
        errors += validate_options(protocol if isinstance(protocol, str) else "", config["options"], strict)
    return errors


def validate_endpoint(attributes) -> list[str]:
    """Every error of an endpoint's attributes, each naming the attribute."""
    if not isinstance(attributes, dict):
        return ["an endpoint must be an object"]
    errors = []
    usage = attributes.get("usage")
    if usage is None:
        errors.append(f"usage is required ({', '.join(USAGES)})")
    elif usage not in USAGES:
        errors.append(f"usage must be one of {', '.join(USAGES)}, not {usage!r}")
    if "origin" in attributes and not _uri(attributes["origin"]):
        errors.append("origin must be an absolute URI")
    if "deprecated" in attributes:
        errors += _deprecated(attributes["deprecated"])
    if "channel" in attributes and not isinstance(attributes["channel"], str):
        errors.append("channel must be a string")
    if "format" in attributes and not is_valid_format_identifier(attributes["format"]):
        errors.append(f"format {attributes['format']!r} must be NAME/VERSION (e.g. CloudEvents/1.0)")
    if "config" in attributes:
        errors += _config(attributes["config"])
    return errors
