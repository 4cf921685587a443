"""Subscription protocols: names, sink schemes and `protocolsettings` (Subscriptions API section 3.2.2).

Names match case-insensitively and are stored as written. DELIVERABLE lists what this server can send;
a subscription with any other protocol is refused, never accepted and silently dropped.
"""

from __future__ import annotations

import re

from ..event_formats import EVENT_FORMATS
from ..masking import CREDENTIALS
from .sink_urls import SinkError, parse_sink

PROTOCOLS = {"HTTP", "MQTT3", "MQTT5", "AMQP", "KAFKA", "NATS"}
DELIVERABLE = {"HTTP", "MQTT3", "MQTT5", "NATS", "AMQP"}
# setting -> (type check, description)
_STRING = (lambda v: isinstance(v, str), "a string")
_INT = (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer")
_BOOL = (lambda v: isinstance(v, bool), "a boolean")
_MAP = (lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values()), "a map of strings")
SETTINGS = {
    "HTTP": {"headers": _MAP, "method": _STRING},
    "MQTT3": {"topicname": _STRING, "qos": _INT, "retain": _BOOL, "username": _STRING, "password": _STRING},
    "MQTT5": {
        "topicname": _STRING,
        "qos": _INT,
        "retain": _BOOL,
        "expiry": _INT,
        "userproperties": _MAP,
        "username": _STRING,
        "password": _STRING,
    },
    "AMQP": {"address": _STRING, "linkname": _STRING, "sendersettlementmode": _STRING, "linkproperties": _MAP},
    "KAFKA": {"topicname": _STRING, "partitionkeyextractor": _STRING, "clientid": _STRING, "acks": _STRING},
    "NATS": {"subject": _STRING, "user": _STRING, "password": _STRING, "token": _STRING},
}
REQUIRED = {"MQTT3": ("topicname",), "MQTT5": ("topicname",), "KAFKA": ("topicname",), "NATS": ("subject",)}
HTTP_METHODS = {"POST", "PUT", "PATCH"}
SETTLEMENT_MODES = ("settled", "unsettled")
MODES = ("structured", "binary")
BINARY_MODE = {"AMQP"}  # protocols whose sender honours config.mode "binary"


def canonical_protocol(name) -> str | None:
    if not isinstance(name, str):
        return None
    upper = name.upper()
    return upper if upper in PROTOCOLS else None


def validate_protocol(data: dict) -> list[str]:
    """Errors of `protocol`, `sink` and `protocolsettings`; each names its field."""
    errors = []
    protocol = canonical_protocol(data.get("protocol"))
    if data.get("protocol") is None:
        return ["protocol is required"]
    if protocol is None:
        return [f"protocol must be one of {', '.join(sorted(PROTOCOLS))}, not {data.get('protocol')!r}"]
    if protocol not in DELIVERABLE:
        errors.append(
            f"protocol {data['protocol']}: this server cannot deliver over {protocol}; "
            f"supported: {', '.join(sorted(DELIVERABLE))}"
        )
    sink = data.get("sink")
    parsed = None
    try:
        parsed = parse_sink(protocol, sink)
    except SinkError as exc:
        errors.append(str(exc))
    settings = data.get("protocolsettings", {})
    if settings is None:
        settings = {}
    if not isinstance(settings, dict):
        return errors + ["protocolsettings must be an object"]
    known = SETTINGS[protocol]
    for key, value in settings.items():
        check = known.get(key)
        if check is None:
            errors.append(f"protocolsettings.{key} is not a setting of {protocol} (known: {', '.join(sorted(known))})")
        elif not check[0](value):
            errors.append(f"protocolsettings.{key} must be {check[1]}")
    for key in REQUIRED.get(protocol, ()):
        if key not in settings:
            errors.append(f"protocolsettings.{key} is required for {protocol}")
    if "qos" in settings and settings["qos"] not in (0, 1, 2):
        errors.append("protocolsettings.qos must be 0, 1 or 2")
    if (
        protocol == "HTTP"
        and isinstance(settings.get("method"), str)
        and settings["method"].upper() not in HTTP_METHODS
    ):
        errors.append(f"protocolsettings.method must be one of {', '.join(sorted(HTTP_METHODS))}")
    if protocol == "AMQP":
        errors.extend(_amqp_errors(parsed, settings))
    if protocol == "KAFKA":
        errors.extend(validate_kafka_settings(settings, data.get("config")))
    config = data.get("config")
    if isinstance(config, dict) and "eventformat" in config and config["eventformat"] not in EVENT_FORMATS:
        errors.append(f"config.eventformat must be one of {', '.join(EVENT_FORMATS)}, not {config['eventformat']!r}")
    if isinstance(config, dict) and "mode" in config:
        mode = config["mode"]
        if mode not in MODES:
            errors.append(f"config.mode must be one of {', '.join(MODES)}, not {mode!r}")
        elif mode == "binary" and protocol not in BINARY_MODE:
            errors.append(
                f"config.mode binary is not supported for {protocol} (supported for {', '.join(sorted(BINARY_MODE))})"
            )
    return errors


def _amqp_errors(parsed, settings: dict) -> list[str]:
    """AMQP: a target address (sink path or `address`), a known settlement mode, a non-empty link name."""
    errors = []
    for key in ("address", "linkname"):
        if isinstance(settings.get(key), str) and not settings[key].strip():
            errors.append(f"protocolsettings.{key} must not be empty")
    mode = settings.get("sendersettlementmode")
    if isinstance(mode, str) and mode not in SETTLEMENT_MODES:
        errors.append(
            f"protocolsettings.sendersettlementmode must be one of {', '.join(SETTLEMENT_MODES)}, not {mode!r}"
        )
    if parsed is not None and "address" not in settings and parsed.path in ("", "/"):
        errors.append(
            "protocolsettings.address is required for AMQP when the sink has no path (amqp://host:port/address)"
        )
    return errors


def with_defaults(protocol: str, settings: dict) -> dict:
    """The realized settings: HTTP method POST; MQTT qos 1, retain false; AMQP sendersettlementmode unsettled."""
    out = dict(settings or {})
    canonical = canonical_protocol(protocol)
    if canonical == "HTTP":
        out.setdefault("method", "POST")
    elif canonical in ("MQTT3", "MQTT5"):
        out.setdefault("qos", 1)
        out.setdefault("retain", False)
    elif canonical == "AMQP":
        out.setdefault("sendersettlementmode", "unsettled")
    return out


def redacted(settings: dict) -> dict:
    """Settings without credentials (and without an Authorization header), as echoed to clients."""
    out = {k: v for k, v in (settings or {}).items() if k.lower() not in CREDENTIALS}
    if isinstance(out.get("headers"), dict):
        out["headers"] = {k: v for k, v in out["headers"].items() if k.lower() not in CREDENTIALS}
    return out


# --- Kafka (CONTRACT section 13) --------------------------------------------------------------------------

DELIVERABLE.add("KAFKA")
BINARY_MODE.add("KAFKA")  # the Kafka sender honours config.mode "binary" (ce_ headers)
SETTINGS["KAFKA"] = {
    "topicname": _STRING,
    "partitionkeyextractor": _STRING,
    "clientid": _STRING,
    "acks": _STRING,
    "username": _STRING,
    "password": _STRING,
    "saslmechanism": _STRING,
}
KAFKA_ACKS = ("0", "1", "-1", "all")
KAFKA_KEY_ATTRIBUTES = ("id", "source", "type", "subject", "time", "specversion")
KAFKA_SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
_KAFKA_TOPIC = re.compile(r"[A-Za-z0-9._-]{1,249}")
_KAFKA_CLIENT_ID = re.compile(r"[A-Za-z0-9._-]{1,255}")


def validate_kafka_settings(settings: dict, config) -> list[str]:
    """Values of the Kafka settings (their types are checked above; `config.mode` with every protocol's)."""
    errors = []
    topic = settings.get("topicname")
    if isinstance(topic, str) and (not _KAFKA_TOPIC.fullmatch(topic) or topic in (".", "..")):
        errors.append(
            f"protocolsettings.topicname {topic!r} is not a Kafka topic name "
            "(1 to 249 of letters, digits, '.', '_', '-')"
        )
    key = settings.get("partitionkeyextractor")
    if isinstance(key, str) and key not in KAFKA_KEY_ATTRIBUTES:
        errors.append(
            f"protocolsettings.partitionkeyextractor must name an attribute of the events "
            f"({', '.join(KAFKA_KEY_ATTRIBUTES)}), not {key!r}"
        )
    client = settings.get("clientid")
    if isinstance(client, str) and not _KAFKA_CLIENT_ID.fullmatch(client):
        errors.append("protocolsettings.clientid must be 1 to 255 of letters, digits, '.', '_', '-'")
    acks = settings.get("acks")
    if isinstance(acks, str) and acks not in KAFKA_ACKS:
        errors.append(f"protocolsettings.acks must be one of {', '.join(KAFKA_ACKS)}")
    mechanism = settings.get("saslmechanism")
    if isinstance(mechanism, str) and mechanism not in KAFKA_SASL_MECHANISMS:
        errors.append(f"protocolsettings.saslmechanism must be one of {', '.join(KAFKA_SASL_MECHANISMS)}")
    return errors
