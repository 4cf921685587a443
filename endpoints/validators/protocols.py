"""Endpoint protocols: names and versions, endpoint URI schemes and the typed protocol options.

Source: the spec text, "Endpoint Registry" (`config.protocol`, `config.endpoints`, `config.options`,
`config.strict`) and "protocol options" (HTTP, AMQP, MQTT, Kafka, NATS). Where the 0.5-wip JSON Schemas
differ the text wins: NATS has `subject` (the schema says `topic`); AMQP has no `ttl` (only the schema
lists it); option values are typed as the text lists them (`qos` integer, `durable` boolean, `headers`
an array), not "a map of non-empty strings to non-empty strings" as the generic `options` constraint says
(docs/api-contract.md section 10).

Protocol names match case-insensitively and are stored as written (`KAFKA` = `Kafka`, `MQTT/5.0`,
`AMQP/1.0`, `HTTP`, `NATS`). The predefined versions are those of the text: HTTP 1.1 (default), 2, 3;
AMQP 1.0 (default; "AMQP draft versions before 1.0 (e.g. 0.9) are not AMQP"); MQTT 3.1.1 and 5.0
(default); NATS and KAFKA any version ("the latest clients" when omitted; the text itself writes
`NATS/1.0.0`, `KAFKA/3.5`, `Kafka/2.0`). Another version of HTTP, AMQP or MQTT is an error. Any other
protocol name is an extension protocol (`BunnyMQ/0.9.1`): its endpoints need only be absolute URIs and
its options are not checked beyond being an object.

Endpoint URI schemes (each URI absolute, with a host; schemes case-insensitive):
- HTTP: `http`, `https`.
- AMQP: `amqp`, `amqps`; a path names the AMQP node (any non-empty name).
- MQTT: `mqtt`, `mqtts`, whose path if present must be an MQTT topic name (no `+`/`#` wildcards), and
  the informal `tcp`, `ssl`, `wss`, which must not have a path (`/` alone counts as none). `ws` is not
  accepted: the text lists exactly these five.
- KAFKA: bootstrap server addresses, "the scheme follows Kafka configuration usage, e.g.
  SSL://{host}:{port} or PLAINTEXT://{host}:{port}": Kafka's security protocol names `PLAINTEXT`, `SSL`,
  `SASL_PLAINTEXT`, `SASL_SSL`, and `kafka` (used by the xRegistry samples, e.g. contoso-erp). The
  underscore of `SASL_*` is not allowed in an RFC 3986 scheme; these two are accepted for Kafka anyway,
  as the text points at Kafka's own spelling. A port is required (a bootstrap address is host:port)
  and there is no path. A bare `host:port` is not an absolute URI and is refused.
- NATS: `nats`, `tls`, `ws` ("The scheme MUST be nats or tls or ws"), with a port ("the URI MUST
  include a port number"). `wss` is not in the text and is refused.

`config.strict`: the text defines it as "the endpoint metadata represents a public, live endpoint that is
available for communication and a strict validator MAY test the liveness of the endpoint" (the xRegistry
samples' `deployed`). It says nothing about option names, so it changes nothing here: it must be a
boolean, and no liveness test is made. Unknown option names are accepted for every protocol, strict or
not (the JSON Schemas leave the option objects open too; `ttl` for AMQP, vendor options); the options the
text defines must have its types and values whatever `strict` says.

"This option only applies to usage:producer/consumer endpoints" is not a constraint: such an option on
another endpoint is ignored by its users, not an error (contoso-erp's AMQP producer carries
`distribution-mode`). Usage does matter for MQTT and NATS wildcards: a `producer` publishes, so its
`topic`/`subject` must be a name, not a filter; `will-topic` is always a name.

Placeholders: values that "MAY contain placeholders using the RFC6570 Level 1 URI Template syntax" may
contain `{name}` expressions only (no operators or modifiers); their literal text is not restricted to URI
template literal characters, since header values (`application/json; charset=utf-8`), topics and
subjects legitimately contain characters such as spaces or `"`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import unquote

from catalog.validators.http_fields import TOKEN, header_list_errors
from catalog.validators.uritemplate import level1_error

from .references import is_uri_reference, split_uri

PROTOCOLS = ("HTTP", "AMQP", "MQTT", "KAFKA", "NATS")
VERSIONS: dict[str, tuple[str, ...] | None] = {  # None: any version
    "HTTP": ("1.1", "2", "3"),
    "AMQP": ("1.0",),
    "MQTT": ("3.1.1", "5.0"),
    "KAFKA": None,
    "NATS": None,
}
DEFAULT_VERSIONS = {"HTTP": "1.1", "AMQP": "1.0", "MQTT": "5.0"}
VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")

SCHEMES = {
    "HTTP": ("http", "https"),
    "AMQP": ("amqp", "amqps"),
    "MQTT": ("mqtt", "mqtts", "tcp", "ssl", "wss"),
    "KAFKA": ("kafka", "plaintext", "ssl", "sasl_plaintext", "sasl_ssl"),
    "NATS": ("nats", "tls", "ws"),
}
MQTT_PATHLESS = ("tcp", "ssl", "wss")
KAFKA_UNDERSCORE = re.compile(r"^sasl_(?:plaintext|ssl)://", re.IGNORECASE)


# ----------------------------------------------------------------------------------------- names


def canonical_protocol(name) -> str | None:
    """ "HTTP", "AMQP", "MQTT", "KAFKA" or "NATS" for a predefined protocol name in any case, with or
    without a version (`mqtt/5.0` -> "MQTT"); None for anything else (extension protocols, non-strings)."""
    if not isinstance(name, str) or not name:
        return None
    family = name.split("/", 1)[0].upper()
    return family if family in PROTOCOLS else None


def protocol_version(name) -> str | None:
    """The version of a protocol name as written (`MQTT/3.1.1` -> "3.1.1"); without one, the default
    the text gives (HTTP "1.1", AMQP "1.0", MQTT "5.0"); None when there is no default (KAFKA, NATS:
    the latest clients; extension protocols) or `name` is not a string."""
    if not isinstance(name, str) or not name:
        return None
    _family, sep, version = name.partition("/")
    if sep:
        return version or None
    return DEFAULT_VERSIONS.get(canonical_protocol(name) or "")


def protocol_error(name) -> str | None:
    """What is wrong with a `config.protocol` value (without the path), or None."""
    if not isinstance(name, str) or not name.strip():
        return "must be a non-empty string"
    family = canonical_protocol(name)
    if family is None:
        return None  # "implementations MAY define and use additional protocol names"
    _name, sep, version = name.partition("/")
    if not sep:
        return None
    allowed = VERSIONS[family]
    if allowed is None:
        return None if VERSION.fullmatch(version) else f"{name!r} has no valid version after '/'"
    if version not in allowed:
        spelled = ", ".join([family] + [f"{family}/{v}" for v in allowed])
        return f"{name!r} is not a version of {family} the spec defines ({spelled})"
    return None


# ----------------------------------------------------------------------------------------- URIs


def _mqtt_topic_name_error(topic: str) -> str | None:
    if not topic:
        return "an empty topic"
    if "+" in topic or "#" in topic:
        return "a topic name cannot contain the wildcards '+' or '#'"
    if "\x00" in topic or len(topic.encode("utf-8")) > 65535:
        return "not an MQTT topic name"
    return None


def endpoint_uri_error(protocol, uri) -> str | None:
    """What is wrong with one `config.endpoints` entry for `protocol` (without the path), or None."""
    family = canonical_protocol(protocol)
    sasl = family == "KAFKA" and isinstance(uri, str) and bool(KAFKA_UNDERSCORE.match(uri))
    # SASL_SSL:// is Kafka's spelling, not an RFC 3986 scheme: parse it as SASL-SSL://
    parts = split_uri(uri.replace("_", "-", 1) if sasl else uri)
    if parts is None or not parts.scheme:
        return f"{uri!r} is not an absolute URI"
    if family is None:
        return None
    scheme = parts.scheme.lower().replace("-", "_") if sasl else parts.scheme.lower()
    shown = protocol if isinstance(protocol, str) else family
    if scheme not in SCHEMES[family]:
        return f"{uri!r} is not a valid URI for protocol {shown} (schemes: {', '.join(SCHEMES[family])})"
    if not parts.hostname:
        return f"{uri!r} is not a valid URI for protocol {shown}: it has no host"
    path = parts.path
    if family == "MQTT":
        if scheme in MQTT_PATHLESS and path not in ("", "/"):
            return f"{uri!r} is not a valid URI for protocol {shown}: the scheme {scheme} must not have a path"
        if path not in ("", "/"):
            problem = _mqtt_topic_name_error(unquote(path[1:]))
            if problem:
                return f"{uri!r} is not a valid URI for protocol {shown}: its path is {problem}"
    elif family == "KAFKA":
        if parts.port is None:
            return f"{uri!r} is not a valid URI for protocol {shown}: a bootstrap server address needs a port"
        if path not in ("", "/") or parts.query or parts.fragment:
            return f"{uri!r} is not a valid URI for protocol {shown}: a bootstrap server address has no path"
    elif family == "NATS" and parts.port is None:
        return f"{uri!r} is not a valid URI for protocol {shown}: a NATS URI must include a port number"
    return None


# -------------------------------------------------------------------------------------- options


def _non_empty_string(value, path: str) -> list[str]:
    if not isinstance(value, str) or not value:
        return [f"{path}: must be a non-empty string"]
    return []


def _template_string(value, path: str) -> list[str]:
    errors = _non_empty_string(value, path)
    if errors:
        return errors
    problem = level1_error(value, literals=False)  # any characters around the `{name}` expressions
    return [f"{path}: {problem}"] if problem else []


def _boolean(value, path: str, _usage=None) -> list[str]:
    return [] if isinstance(value, bool) else [f"{path}: must be a boolean (true or false)"]


def _integer(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _string_map(value, path: str, templates: bool) -> list[str]:
    """A map of non-empty strings to non-empty strings (values may hold placeholders)."""
    if not isinstance(value, dict):
        return [f"{path}: must be a map of non-empty strings to non-empty strings"]
    errors = []
    for key, item in value.items():
        if not key:
            errors.append(f"{path}: keys must be non-empty strings")
        elif templates:
            errors += _template_string(item, f"{path}.{key}")
        else:
            errors += _non_empty_string(item, f"{path}.{key}")
    return errors


# HTTP ---------------------------------------------------------------------------------------------


def _http_method(value, path: str, _usage=None) -> list[str]:
    if isinstance(value, str) and TOKEN.fullmatch(value):
        return []
    return [f"{path}: {value!r} is not a valid HTTP method name"]


def _http_header_value(header: dict, where: str) -> list[str]:
    return _template_string(header.get("value"), f"{where}.value")


def _http_headers(value, path: str, _usage=None) -> list[str]:
    return header_list_errors(value, path, item_errors=_http_header_value)


def _http_query(value, path: str, _usage=None) -> list[str]:
    return _string_map(value, path, templates=True)


# AMQP ---------------------------------------------------------------------------------------------


def _amqp_node(value, path: str, _usage=None) -> list[str]:
    return _non_empty_string(value, path)


def _amqp_properties(value, path: str, _usage=None) -> list[str]:
    return _string_map(value, path, templates=True)


def _amqp_distribution_mode(value, path: str, _usage=None) -> list[str]:
    return [] if value in ("move", "copy") else [f"{path}: must be 'move' or 'copy', not {value!r}"]


# MQTT ---------------------------------------------------------------------------------------------


def _mqtt_topic_text_error(value: str, filter_allowed: bool) -> str | None:
    if "\x00" in value:
        return "must not contain NUL characters"
    levels = value.split("/")
    for position, level in enumerate(levels):
        if "#" in level and (level != "#" or position != len(levels) - 1):
            return "'#' must be the whole last topic level"
        if "+" in level and level != "+":
            return "'+' must be a whole topic level"
    if not filter_allowed and ("+" in value or "#" in value):
        return "a topic name (producer, will) cannot contain the wildcards '+' or '#'"
    return None


def _mqtt_topic(value, path: str, usage=None, *, filter_allowed: bool | None = None) -> list[str]:
    errors = _template_string(value, path)
    if errors:
        return errors
    allowed = usage != "producer" if filter_allowed is None else filter_allowed
    problem = _mqtt_topic_text_error(value, allowed)
    return [f"{path}: {problem}"] if problem else []


def _mqtt_will_topic(value, path: str, _usage=None) -> list[str]:
    return _mqtt_topic(value, path, filter_allowed=False)


def _mqtt_qos(value, path: str, _usage=None) -> list[str]:
    return [] if _integer(value) and 0 <= value <= 2 else [f"{path}: must be an integer 0, 1 or 2"]


def _mqtt_will_message(value, path: str, _usage=None) -> list[str]:
    errors = _non_empty_string(value, path)
    if not errors and not is_uri_reference(value):
        errors.append(f"{path}: {value!r} is not a URI-reference or JSON Pointer to a definition")
    return errors


# Kafka --------------------------------------------------------------------------------------------


def _kafka_acks(value, path: str, _usage=None) -> list[str]:
    return [] if _integer(value) and -1 <= value <= 1 else [f"{path}: must be an integer -1, 0 or 1"]


def _kafka_partition(value, path: str, _usage=None) -> list[str]:
    return [] if _integer(value) else [f"{path}: must be an integer"]


def _template(value, path: str, _usage=None) -> list[str]:
    return _template_string(value, path)


# NATS ---------------------------------------------------------------------------------------------


def _nats_subject(value, path: str, usage=None) -> list[str]:
    errors = _template_string(value, path)
    if errors:
        return errors
    if any(char.isspace() for char in value):
        return [f"{path}: a NATS subject cannot contain whitespace"]
    tokens = value.split(".")
    if any(not token for token in tokens):
        return [f"{path}: a NATS subject cannot have empty tokens (leading, trailing or double '.')"]
    for position, token in enumerate(tokens):
        if ">" in token and (token != ">" or position != len(tokens) - 1):
            return [f"{path}: '>' must be the whole last token"]
        if "*" in token and token != "*":
            return [f"{path}: '*' must be a whole token"]
    if usage == "producer" and ("*" in tokens or ">" in tokens):
        return [f"{path}: a producer's subject cannot contain the wildcards '*' or '>'"]
    return []


# The option lists of the text, each option with its check.
OPTIONS: dict[str, dict[str, Callable[..., list[str]]]] = {
    "HTTP": {
        "method": _http_method,  # valid HTTP method name (default POST)
        "headers": _http_headers,  # array of {name, value}, values with placeholders
        "query": _http_query,  # map of non-empty strings, values with placeholders
    },
    "AMQP": {
        "node": _amqp_node,  # non-empty node name
        "durable": _boolean,  # producer only
        "link-properties": _amqp_properties,  # map of non-empty strings, values with placeholders
        "connection-properties": _amqp_properties,
        "distribution-mode": _amqp_distribution_mode,  # move | copy, consumer only
    },
    "MQTT": {
        "topic": _mqtt_topic,  # placeholders; a filter except for producers
        "qos": _mqtt_qos,  # integer 0..2
        "retain": _boolean,  # producer only
        "clean-session": _boolean,
        "will-topic": _mqtt_will_topic,  # non-empty, placeholders, a topic name
        "will-message": _mqtt_will_message,  # URI-reference / JSON Pointer to a definition
    },
    "KAFKA": {
        "topic": _template,  # non-empty, placeholders
        "acks": _kafka_acks,  # integer -1..1, producer only
        "key": _template,  # non-empty, placeholders, producer only
        "partition": _kafka_partition,  # integer, producer only
        "consumer-group": _template,  # non-empty, placeholders, consumer only
    },
    "NATS": {
        "subject": _nats_subject,  # placeholders; no wildcards for producers
    },
}


def validate_options(protocol, options, usage=None, path: str = "config.options") -> list[str]:
    """Every error of `config.options` for `protocol` (`usage` refines MQTT/NATS wildcard rules).

    Options must be an object; for a predefined protocol each option the text defines must have its type
    and value; unknown option names and the options of extension protocols are not checked.
    """
    if not isinstance(options, dict):
        return [f"{path} must be an object"]
    family = canonical_protocol(protocol)
    if family is None:
        return []
    errors = []
    for name, value in options.items():
        check = OPTIONS[family].get(name)
        if check is not None:
            errors += check(value, f"{path}.{name}", usage)
    return errors
