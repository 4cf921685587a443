"""The protocol side of the AsyncAPI export: a message's protocol options as AsyncAPI (its channel's address, its
headers, message and operation bindings, and the rest as `x-xregistry-protocoloptions`), an endpoint's protocol and
options as a server's protocol and bindings: the reverse of `protocols.py`."""

from __future__ import annotations

from .protocols import binding_version, const_of

CE_PREFIX = {"KAFKA": "ce_", "HTTP": "ce-", "AMQP": "cloudEvents:", "MQTT": "", "NATS": "ce-"}
# the message binding (its version: protocols.BINDING_VERSIONS) that says which protocol a message is for
PROTOCOL_BINDINGS = {"KAFKA": "kafka", "MQTT": "mqtt", "AMQP": "amqp", "HTTP": "http", "NATS": "nats"}


def protocol_family(message: dict) -> str | None:
    protocol = message.get("protocol")
    return protocol.split("/")[0].upper() if isinstance(protocol, str) else None


def _value(declaration):
    return declaration.get("value") if isinstance(declaration, dict) else declaration


def message_address(message: dict) -> str | None:
    """The destination a message's protocol options declare: topic, topic name, subject, path or `to`."""
    options = message.get("protocoloptions") if isinstance(message.get("protocoloptions"), dict) else {}
    family = protocol_family(message)
    value = None
    if family == "KAFKA":
        value = _value(options.get("topic"))
    elif family == "MQTT":
        value = _value(options.get("topic_name"))
    elif family == "NATS":
        value = _value(options.get("subject"))
    elif family == "HTTP":
        value = _value(options.get("path"))
    elif family == "AMQP":
        value = _value((options.get("properties") or {}).get("to"))
    return value if isinstance(value, str) and value else None


def protocol_headers(message: dict) -> list[tuple[str, dict]]:
    """The (name, declaration) of the headers a message's protocol options declare."""
    options = message.get("protocoloptions") if isinstance(message.get("protocoloptions"), dict) else {}
    family = protocol_family(message)
    entries = []
    if family in ("KAFKA", "NATS") and isinstance(options.get("headers"), dict):
        for key, value in options["headers"].items():
            if isinstance(value, dict):
                entries.append((value.get("name") or key, {k: v for k, v in value.items() if k != "name"}))
    elif family == "MQTT" and isinstance(options.get("user_properties"), list):
        for item in options["user_properties"]:
            if isinstance(item, dict) and isinstance(item.get("name"), str):
                entries.append((item["name"], {k: v for k, v in item.items() if k != "name"}))
    elif family == "HTTP" and isinstance(options.get("headers"), list):
        for item in options["headers"]:
            if isinstance(item, dict) and isinstance(item.get("name"), str):
                entries.append((item["name"], {k: v for k, v in item.items() if k != "name"}))
    elif family == "AMQP" and isinstance(options.get("application-properties"), dict):
        entries = [
            (k, v if isinstance(v, dict) else {"value": v}) for k, v in options["application-properties"].items()
        ]
    return entries


def asyncapi_protocol(family: str, scheme: str) -> str:
    if family == "KAFKA":
        return "kafka" if scheme in ("kafka", "plaintext") else "kafka-secure"
    if family == "MQTT":
        return "secure-mqtt" if scheme in ("mqtts", "ssl") else "mqtt"
    if family == "AMQP":
        return "amqps" if scheme == "amqps" else "amqp"
    if family == "HTTP":
        return "https" if scheme == "https" else "http"
    if family == "NATS":
        return "nats"
    return family.lower() or scheme


def server_bindings(family: str, options: dict) -> dict:
    out = {k: dict(v) for k, v in (options.get("bindings") or {}).items() if isinstance(v, dict)}
    if family == "MQTT":
        mqtt = out.setdefault("mqtt", {})
        for name in ("cleansession", "cleanstart"):
            if isinstance(options.get(name), bool):
                mqtt["cleanSession"] = options[name]
        if isinstance(options.get("willtopic"), str):
            mqtt["lastWill"] = {**(mqtt.get("lastWill") or {}), "topic": options["willtopic"]}
        if isinstance(options.get("sessionexpiryinterval"), int):
            mqtt["sessionExpiryInterval"] = options["sessionexpiryinterval"]
        if not mqtt:
            out.pop("mqtt")
    return out


def kept_bindings(attributes: dict) -> dict:
    """The bindings an import kept in an entity's `asyncapibindings` (protocol -> binding object)."""
    kept = attributes.get("asyncapibindings")
    if not isinstance(kept, dict):
        return {}
    return {name: dict(binding) for name, binding in kept.items() if isinstance(binding, dict)}


def message_bindings(message: dict) -> dict:
    """The message's bindings: those its import kept, and the binding of its protocol (present even when empty: it
    says which protocol the message is for) with the fields its protocol options give."""
    out = kept_bindings(message)
    family = protocol_family(message)
    name = PROTOCOL_BINDINGS.get(family or "")
    if name is None:
        return out
    kept = out.get(name, {})
    fields = binding_fields(message)
    if "key" in fields and const_of(kept.get("key")) == fields["key"]["const"]:
        del fields["key"]  # the key schema as the import read it says the same, and more
    binding = {**kept, **fields}
    out[name] = {**binding, "bindingVersion": kept.get("bindingVersion", binding_version(name, binding))}
    return out


def binding_fields(message: dict) -> dict:
    options = message.get("protocoloptions") if isinstance(message.get("protocoloptions"), dict) else {}
    family = protocol_family(message)
    if family == "KAFKA" and isinstance(_value(options.get("key")), str):
        return {"key": {"type": "string", "const": _value(options["key"])}}
    if family == "MQTT":
        mqtt = {}
        for option, name in (
            ("payload_format_indicator", "payloadFormatIndicator"),
            ("message_expiry_interval", "messageExpiryInterval"),
            ("response_topic", "responseTopic"),
        ):
            if option in options and _value(options[option]) is not None:
                mqtt[name] = _value(options[option])
        return mqtt
    if family == "AMQP":
        encoding = _value((options.get("properties") or {}).get("content-encoding"))
        return {"contentEncoding": encoding} if isinstance(encoding, str) else {}
    return {}


def unexpressed_options(message: dict, address_written: bool) -> dict:
    """The protocol options this export has no AsyncAPI place for (`x-xregistry-protocoloptions`): what is
    not the channel's address, a header, or a field of the bindings written."""
    options = message.get("protocoloptions") if isinstance(message.get("protocoloptions"), dict) else {}
    family = protocol_family(message)
    written = {
        "KAFKA": {"headers"} | ({"key"} if isinstance(_value(options.get("key")), str) else set()),
        "MQTT": {"qos", "retain", "payload_format_indicator", "message_expiry_interval", "response_topic"}
        | {"user_properties"},
        "HTTP": {"headers", "method"},
        "NATS": {"headers"},
        "AMQP": {"application-properties"},
    }.get(family or "", set())
    address = {"KAFKA": "topic", "MQTT": "topic_name", "HTTP": "path", "NATS": "subject"}.get(family or "")
    if address_written and address:
        written.add(address)
    rest = {k: v for k, v in options.items() if k not in written}
    if family == "AMQP" and isinstance(rest.get("properties"), dict):
        drop = {"content-encoding"} | ({"to"} if address_written else set())
        properties = {k: v for k, v in rest["properties"].items() if k not in drop}
        if properties:
            rest["properties"] = properties
        else:
            rest.pop("properties")
    return rest


def operation_bindings(message: dict) -> dict:
    options = message.get("protocoloptions") if isinstance(message.get("protocoloptions"), dict) else {}
    family = protocol_family(message)
    if family == "MQTT":
        mqtt = {k: _value(options[k]) for k in ("qos", "retain") if k in options}
        return {"mqtt": mqtt} if mqtt else {}
    if family == "HTTP" and isinstance(_value(options.get("method")), str):
        return {"http": {"method": _value(options["method"])}}
    return {}
