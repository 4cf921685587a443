"""AsyncAPI protocols and bindings in the registry's words: endpoint protocols and URIs, server bindings as
endpoint options, and a message's protocol options (the xRegistry 1.0 names of `message/spec.md`).

| AsyncAPI `protocol` | registry protocol | endpoint URI |
|---|---|---|
| `kafka`, `kafka-secure` | `KAFKA` | `kafka://host:port`, `SSL://host:port` (port 9092 / 9093 when none is given) |
| `mqtt`, `secure-mqtt`, `mqtts` | `MQTT/5.0` (`MQTT/3.1.1` when `protocolVersion` is 3.x) | `mqtt://`, `mqtts://` |
| `amqp`, `amqps`, `amqp1` | `AMQP/1.0` (the only AMQP the registry knows; 0-9-1 is read as 1.0) | `amqp://`, `amqps://` |
| `http`, `https` | `HTTP` | `http://host/path`, `https://...` |
| `nats` | `NATS` | `nats://host:port` (port 4222 when none is given) |
| anything else (`ws`, `jms`, ...) | its name (`/protocolVersion`), an extension protocol | `NAME://host/path` |

What a channel's and a message's bindings say that no registry attribute holds (a Kafka key schema, a topic's
partitions, replicas and configuration, an AMQP queue's properties, ...) is kept as written, in the extension
attribute `asyncapibindings` of the message group and of the message (`kept_channel_bindings`,
`kept_message_bindings`), so that an export writes it back.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

FAMILIES = {
    "kafka": ("KAFKA", "kafka"),
    "kafka-secure": ("KAFKA", "SSL"),
    "mqtt": ("MQTT", "mqtt"),
    "secure-mqtt": ("MQTT", "mqtts"),
    "mqtts": ("MQTT", "mqtts"),
    "amqp": ("AMQP", "amqp"),
    "amqp1": ("AMQP", "amqp"),
    "amqps": ("AMQP", "amqps"),
    "http": ("HTTP", "http"),
    "https": ("HTTP", "https"),
    "nats": ("NATS", "nats"),
}
DEFAULT_PORTS = {"kafka": 9092, "SSL": 9093, "nats": 4222}
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*$")
KAFKA_TOPIC = re.compile(r"^[A-Za-z0-9._\-]+$")
PLACEHOLDER = re.compile(r"\{[^{}]*\}")
# the `bindingVersion` of each message binding an export writes (the newest the AsyncAPI 3.0 schema knows)
BINDING_VERSIONS = {"kafka": "0.5.0", "mqtt": "0.2.0", "amqp": "0.3.0", "http": "0.3.0", "nats": "0.1.0"}
# message binding fields that become protocol options: family -> (binding field, option path)
MAPPED_MESSAGE_FIELDS = {
    "KAFKA": (("key", ("key",)),),
    "MQTT": (
        ("payloadFormatIndicator", ("payload_format_indicator",)),
        ("messageExpiryInterval", ("message_expiry_interval",)),
        ("responseTopic", ("response_topic",)),
    ),
    "AMQP": (("contentEncoding", ("properties", "content-encoding")),),
}


def family(protocol: str) -> str | None:
    """KAFKA, MQTT, AMQP, HTTP or NATS for an AsyncAPI protocol name; None for the others."""
    return FAMILIES.get(protocol.lower(), (None, None))[0]


def registry_protocol(protocol: str, version: str | None) -> str:
    """The registry protocol name of an AsyncAPI server."""
    fam = family(protocol)
    if fam == "MQTT":
        return "MQTT/3.1.1" if (version or "").startswith("3") else "MQTT/5.0"
    if fam == "AMQP":
        return "AMQP/1.0"
    if fam is not None:
        return fam
    return f"{protocol}/{version}" if version else protocol


def endpoint_uri(protocol: str, host: str, pathname: str) -> str | None:
    """The endpoint URI of a server, or None when its host still holds a variable or is no host."""
    fam, scheme = FAMILIES.get(protocol.lower(), (None, protocol.lower()))
    if "{" in host or not host or not SCHEME.fullmatch(scheme or ""):
        return None
    if fam in ("KAFKA", "NATS") and not re.search(r":\d+$", host):
        host = f"{host}:{DEFAULT_PORTS[scheme]}"
    path = pathname if fam not in ("KAFKA", "NATS") else ""
    uri = f"{scheme}://{host}{path if not path or path.startswith('/') else '/' + path}"
    try:
        parts = urlsplit(uri)
        parts.port  # noqa: B018 (a port that is no number raises)
    except ValueError:
        return None
    return uri if parts.hostname else None


def without_placeholders(text: str) -> str:
    return PLACEHOLDER.sub("x", text)


def const_of(schema):
    """The one value a JSON Schema allows (`const`, or an `enum` of one), or None."""
    if not isinstance(schema, dict):
        return schema if isinstance(schema, str | int | float | bool) else None
    if "const" in schema:
        return schema["const"]
    enum = schema.get("enum")
    if isinstance(enum, list) and len(enum) == 1:
        return enum[0]
    return None


def server_options(protocol_name: str, bindings: dict) -> dict:
    """A server's bindings as endpoint protocol options: the ones the endpoint spec names under its names, the
    rest of the binding of the server's protocol kept as written under `bindings`."""
    fam = protocol_name.split("/")[0].upper()
    options: dict = {}
    rest: dict = {}
    for name, binding in bindings.items():
        if not isinstance(binding, dict):
            continue
        binding = {k: v for k, v in binding.items() if k != "bindingVersion"}
        if name == "mqtt" and fam == "MQTT":
            if isinstance(binding.get("cleanSession"), bool):
                options["cleansession" if protocol_name == "MQTT/3.1.1" else "cleanstart"] = binding.pop("cleanSession")
            will = binding.get("lastWill")
            if isinstance(will, dict) and isinstance(will.get("topic"), str):
                options["willtopic"] = will["topic"]
                binding.pop("lastWill")
            if isinstance(binding.get("sessionExpiryInterval"), int) and protocol_name == "MQTT/5.0":
                options["sessionexpiryinterval"] = binding.pop("sessionExpiryInterval")
        if binding:
            rest[name] = binding
    if rest:
        options["bindings"] = rest
    return options


def _operation_binding(operations, protocol: str) -> dict:
    for op in operations:
        binding = op.bindings.get(protocol)
        if isinstance(binding, dict):
            return binding
    return {}


AVRO_TYPES = {"record", "enum", "fixed", "map"}  # Avro's complex types that JSON Schema has not


def binding_version(name: str, binding: dict) -> str | None:
    """The `bindingVersion` an export writes for a message binding: the newest the AsyncAPI 3.0 schema knows, but
    Kafka 0.4.0 for a key that is an Avro schema (0.5.0 allows a JSON Schema only)."""
    key = binding.get("key")
    if name == "kafka" and (isinstance(key, list) or isinstance(key, dict) and key.get("type") in AVRO_TYPES):
        return "0.4.0"
    return BINDING_VERSIONS.get(name)


def kafka_topic(channel, address: str | None) -> str | None:
    """The Kafka topic of a channel: its kafka binding's `topic`, else its address, when it is a topic name."""
    topic = (channel.bindings.get("kafka") or {}).get("topic") or address
    if isinstance(topic, str) and KAFKA_TOPIC.fullmatch(without_placeholders(topic)) and len(topic) <= 249:
        return topic
    return None


def kept_channel_bindings(channel, kafka: bool) -> dict:
    """A channel's bindings as written, less the Kafka `topic` its messages' options hold (`kafka`: they are
    Kafka messages): what the message group keeps in `asyncapibindings`."""
    out = {name: dict(binding) for name, binding in channel.bindings.items()}
    topic = (out.get("kafka") or {}).get("topic")
    if kafka and topic is not None and topic == kafka_topic(channel, None):
        del out["kafka"]["topic"]
        if not out["kafka"]:
            del out["kafka"]
    return out


def _option(options: dict, path: tuple):
    value = options
    for name in path:
        value = value.get(name) if isinstance(value, dict) else None
    return value.get("value") if isinstance(value, dict) and set(value) == {"value"} else value


def kept_message_bindings(bindings: dict, fam: str | None, options: dict) -> dict:
    """A message's bindings as written, less what its protocol options hold: the fields of its protocol's
    binding that became options (a Kafka key schema that says one value only), and a `bindingVersion` equal to
    the one an export writes. What the message keeps in `asyncapibindings`."""
    out = {name: dict(binding) for name, binding in bindings.items()}
    own = out.get((fam or "").lower())
    if own is None:
        return out
    for field, path in MAPPED_MESSAGE_FIELDS.get(fam or "", ()):
        if field not in own or _option(options, path) is None:
            continue
        value = own[field]
        if field == "key" and not (isinstance(value, dict) and set(value) - {"type"} <= {"const", "enum"}):
            continue  # a key schema that says more than its one value: kept whole
        del own[field]
    if own.get("bindingVersion") == binding_version(fam.lower(), own):
        del own["bindingVersion"]
    if not own:
        del out[fam.lower()]
    return out


def message_options(fam: str, address: str | None, channel, message, operations, headers: list) -> dict:
    """A message's `protocoloptions` (1.0 names) for protocol family `fam`: the channel's address where the
    protocol has a place for it, the bindings the message spec has names for, and the message's headers (a list
    of (name, declaration)) as the protocol's headers."""
    opts: dict = {}
    mb = message.bindings.get(fam.lower(), {}) if isinstance(message.bindings, dict) else {}
    if fam == "KAFKA":
        topic = kafka_topic(channel, address)
        if topic:
            opts["topic"] = topic
        key = const_of(mb.get("key"))
        if isinstance(key, str) and key:
            opts["key"] = key
        if headers:
            opts["headers"] = {name: {"name": name, **decl} for name, decl in headers}
    elif fam == "MQTT":
        if isinstance(address, str) and address and not set(address) & {"+", "#", "\x00"}:
            opts["topic_name"] = address
        ob = _operation_binding(operations, "mqtt")
        if isinstance(ob.get("qos"), int) and not isinstance(ob.get("qos"), bool) and 0 <= ob["qos"] <= 2:
            opts["qos"] = ob["qos"]
        if isinstance(ob.get("retain"), bool):
            opts["retain"] = ob["retain"]
        if isinstance(mb.get("payloadFormatIndicator"), int) and mb["payloadFormatIndicator"] in (0, 1):
            opts["payload_format_indicator"] = mb["payloadFormatIndicator"]
        if isinstance(mb.get("messageExpiryInterval"), int) and mb["messageExpiryInterval"] >= 0:
            opts["message_expiry_interval"] = mb["messageExpiryInterval"]
        if isinstance(mb.get("responseTopic"), str) and mb["responseTopic"]:
            opts["response_topic"] = mb["responseTopic"]
        if headers:
            opts["user_properties"] = [{"name": name, **decl} for name, decl in headers]
    elif fam == "AMQP":
        properties = {}
        if isinstance(address, str) and address:
            properties["to"] = {"value": address}
        if isinstance(mb.get("contentEncoding"), str) and mb["contentEncoding"]:
            properties["content-encoding"] = {"value": mb["contentEncoding"]}
        if properties:
            opts["properties"] = properties
        if headers:
            opts["application-properties"] = dict(headers)
    elif fam == "HTTP":
        if isinstance(address, str) and address.startswith("/"):
            opts["path"] = address
        method = _operation_binding(operations, "http").get("method")
        if isinstance(method, str) and method:
            opts["method"] = method
        if headers:
            opts["headers"] = [
                {"name": name, **{k: v for k, v in decl.items() if k != "value" or isinstance(v, str)}}
                for name, decl in headers
            ]
    elif fam == "NATS":
        if isinstance(address, str) and address and not any(c.isspace() for c in address):
            opts["subject"] = address
        if headers:
            opts["headers"] = {name: {"name": name, **decl} for name, decl in headers}
    return opts


def from_bindings(bindings: dict) -> str | None:
    """The registry protocol a message's bindings name, when they name exactly one protocol the registry knows."""
    known = {registry_protocol(name, None) for name in bindings if family(name)}
    return known.pop() if len(known) == 1 else None


def with_extra(options: dict, extra: dict | None) -> dict:
    """Options read from AsyncAPI, completed by those an export kept in `x-xregistry-protocoloptions` (one level
    of merging: AMQP's sections)."""
    out = dict(options)
    for name, value in (extra or {}).items():
        if isinstance(out.get(name), dict) and isinstance(value, dict):
            out[name] = {**value, **out[name]}
        else:
            out.setdefault(name, value)
    return out
