"""An endpoint group's extension attributes (spec: "Endpoint Registry"; docs/api-contract.md section 4).

`validate_endpoint(attributes)` returns every problem, each message starting with the dotted attribute
path (`config.endpoints[0]: ...`, `usage is required`); it never raises, whatever the JSON shape.

- `usage`: REQUIRED, one of `subscriber`, `consumer`, `producer`; or, as xRegistry 1.0 writes it, a
  non-empty array of distinct values among them (the store holds the union of both models,
  docs/xregistry-1.0.md).
- `origin`: a non-empty absolute URI.
- `deprecated`: an object with `effective` and `removal` (RFC 3339 date-times with an offset, `removal`
  not before `effective`), `alternative` (absolute URI) and `docs` (absolute http(s) URL: "The URL MUST
  support an HTTP GET request"); `{}` is valid (deprecated now). Other keys are errors (typos would
  otherwise pass silently; the text lists exactly these four).
- `channel`: a string (empty allowed: "MUST either be serialized as an empty string or excluded").
- `format`: optional (docs/api-contract.md, errata), `NAME/VERSION`.
- `config`: an object; `protocol` REQUIRED (see `protocols` for names, versions, URI schemes, options
  and `strict`); `endpoints` an array of absolute URIs valid for the protocol; `options` an object
  checked per protocol; `strict` a boolean. Other keys of `config` are extensions and pass.
- `definitionGroups`: an array of URI-references; local references must name one definition group
  (`references.definition_group_ids`, whose errors are included here; the caller checks existence).
- `definitions` is a resource collection, validated elsewhere; unknown extension attributes pass.

A JSON `null` counts as an absent attribute ("Attributes without a value are omitted").
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

from catalog.validators.format_names import is_valid_format_identifier

from .protocols import endpoint_uri_error, protocol_error, validate_options
from .references import definition_group_ids, is_absolute_uri, split_uri

USAGES = ("subscriber", "consumer", "producer")
DEPRECATED_KEYS = ("effective", "removal", "alternative", "docs")
RFC3339 = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$")


def parse_rfc3339(value) -> datetime | None:
    """An aware datetime for an RFC 3339 date-time (offset required, `T`/`Z` in any case, a leap second
    `:60` read as `:59`), else None."""
    if not isinstance(value, str):
        return None
    match = RFC3339.fullmatch(value)
    if not match:
        return None
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    fraction, zulu, sign, off_h, off_m = match.group(7, 8, 9, 10, 11)
    if second == 60:
        second = 59
    try:
        if zulu:
            tz = UTC
        else:
            if int(off_h) > 23 or int(off_m) > 59:
                return None
            offset = timedelta(hours=int(off_h), minutes=int(off_m))
            tz = timezone(-offset if sign == "-" else offset)
        micro = int((fraction[1:] + "000000")[:6]) if fraction else 0
        return datetime(year, month, day, hour, minute, second, micro, tzinfo=tz)
    except ValueError:
        return None


def _deprecated(value) -> list[str]:
    if not isinstance(value, dict):
        return ["deprecated must be an object (effective, removal, alternative, docs)"]
    errors = [
        f"deprecated.{key} is not a deprecation attribute (use {', '.join(DEPRECATED_KEYS)})"
        for key in value
        if key not in DEPRECATED_KEYS
    ]
    times: dict[str, datetime | None] = {}
    for key in ("effective", "removal"):
        if value.get(key) is not None:
            times[key] = parse_rfc3339(value[key])
            if times[key] is None:
                errors.append(
                    f"deprecated.{key} must be an RFC 3339 timestamp (e.g. 2030-12-19T00:00:00Z), not {value[key]!r}"
                )
    if times.get("effective") and times.get("removal") and times["removal"] < times["effective"]:
        errors.append("deprecated.removal must not be before deprecated.effective")
    if value.get("alternative") is not None and not is_absolute_uri(value["alternative"]):
        errors.append(f"deprecated.alternative must be an absolute URL, not {value['alternative']!r}")
    if value.get("docs") is not None:
        parts = split_uri(value["docs"])
        if parts is None or parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            errors.append(f"deprecated.docs must be an absolute http(s) URL, not {value['docs']!r}")
    return errors


def _endpoints(value, protocol) -> list[str]:
    if not isinstance(value, list):
        return ["config.endpoints must be an array of absolute URIs"]
    errors = []
    for index, uri in enumerate(value):
        problem = endpoint_uri_error(protocol, uri)
        if problem:
            errors.append(f"config.endpoints[{index}]: {problem}")
    return errors


def _config(config, usage) -> list[str]:
    if not isinstance(config, dict):
        return ["config must be an object"]
    errors = []
    protocol = config.get("protocol")
    if protocol is None:
        errors.append("config.protocol is required")
    else:
        problem = protocol_error(protocol)
        if problem:
            errors.append(f"config.protocol: {problem}")
            protocol = None  # no per-protocol checks against a broken name
    if config.get("strict") is not None and not isinstance(config["strict"], bool):
        errors.append("config.strict must be a boolean (true or false)")
    if config.get("endpoints") is not None:
        errors += _endpoints(config["endpoints"], protocol)
    if config.get("options") is not None:
        errors += validate_options(protocol, config["options"], usage if isinstance(usage, str) else None)
    return errors


def validate_endpoint(attributes) -> list[str]:
    """Every error of an endpoint group's extension attributes; [] when valid."""
    if not isinstance(attributes, dict):
        return ["an endpoint must be a JSON object"]
    errors: list[str] = []
    usage = attributes.get("usage")
    if usage is None:
        errors.append(f"usage is required ({', '.join(USAGES)})")
    elif isinstance(usage, list):
        if not usage or any(u not in USAGES for u in usage) or len(set(map(str, usage))) != len(usage):
            errors.append(f"usage as an array must hold distinct values among {', '.join(USAGES)}, not {usage!r}")
        elif len(usage) == 1:
            usage = usage[0]
    elif usage not in USAGES:
        errors.append(f"usage must be one of {', '.join(USAGES)}, not {usage!r}")
    origin = attributes.get("origin")
    if origin is not None and not is_absolute_uri(origin):
        errors.append(f"origin must be a non-empty absolute URI, not {origin!r}")
    if attributes.get("deprecated") is not None:
        errors += _deprecated(attributes["deprecated"])
    channel = attributes.get("channel")
    if channel is not None and not isinstance(channel, str):
        errors.append(f"channel must be a string, not {channel!r}")
    fmt = attributes.get("format")
    if fmt is not None and not is_valid_format_identifier(fmt):
        errors.append(f"format must be NAME/VERSION (e.g. CloudEvents/1.0), not {fmt!r}")
    if attributes.get("config") is not None:
        errors += _config(attributes["config"], usage)
    errors += definition_group_ids(attributes, None)[1]
    return errors
