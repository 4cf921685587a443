"""The xRegistry 1.0 shape of definition groups, definitions and schemas (docs/xregistry-1.0.md).

The store holds definitions in the 0.5-wip shape (a definition is a JSON document: `format`, `metadata`,
`schemaformat`, `schema`, `schemaurl`), so that the 0.5 validators check what either binding writes. This
module translates one message's attributes between the two shapes, both ways, and registers the names of the
1.0 model (`messagegroups`/`messages`, `schemagroups`/`schemas`) with the binding in `registry/bindings/v10/`:

- 1.0 `envelope` + `envelopemetadata` (CloudEvents) = 0.5 `format` + `metadata.attributes`;
- 1.0 `protocol` + `protocoloptions` (no envelope) = 0.5 `format` + `metadata`, per protocol below (AMQP: rc4's
  `header` fields are values, 0.5's are declarations `{"value": v}`);
- a message with both an envelope and a protocol keeps `protocol`/`protocoloptions` under their 1.0 names,
  which the 0.5 binding shows as extension attributes of the definition;
- `dataschemaformat`/`dataschema`/`dataschemauri` = `schemaformat`/`schema`/`schemaurl`, references rewritten
  between `/schemagroups/G/...` and `#/schemaGroups/G/...`.

Written by hand: no library knows either shape.
"""

from __future__ import annotations

import json
from pathlib import Path

from registry.bindings.v10.capabilities import register_model_source
from registry.bindings.v10.mapping import (
    GroupMapping,
    ResourceMapping,
    common_attribute_to_v10,
    moved_with_rest,
    reference_to_v05,
    reference_to_v10,
    register_mapping,
)

# 1.0 protocol identifiers without a version, and the 0.5 format each stands for
PROTOCOL_FORMATS = {"KAFKA": "Kafka/0.11", "HTTP": "HTTP/1.1", "NATS": "NATS/2.0"}
FORMAT_PROTOCOLS = {"kafka": "KAFKA", "http": "HTTP", "nats": "NATS"}
# 1.0 option names (snake case) <-> 0.5 metadata names (kebab case), where they differ by more than `_`/`-`
MQTT_RENAMES = {"payload_format_indicator": "payload-format"}
NATS_RENAMES = {"reply": "reply-to"}
SCALAR_OPTIONS = {
    "mqtt": (
        "qos",
        "retain",
        "topic_name",
        "payload_format_indicator",
        "message_expiry_interval",
        "response_topic",
        "correlation_data",
        "content_type",
    ),
    "kafka": ("topic", "partition", "key", "timestamp"),
    "nats": ("subject", "reply"),
    "http": ("path", "method", "status"),
}


def protocol_family(protocol: str | None) -> str | None:
    if not isinstance(protocol, str):
        return None
    return protocol.split("/")[0].lower()


def protocol_to_format(protocol: str) -> str:
    return PROTOCOL_FORMATS.get(protocol.upper(), protocol) if isinstance(protocol, str) else protocol


def format_to_protocol(fmt: str) -> str:
    family = protocol_family(fmt)
    return FORMAT_PROTOCOLS.get(family, fmt) if family is not None else fmt


def _declared(value):
    """A 1.0 option value as a 0.5 declaration: scalars become `{"value": v}`, declarations stay."""
    return value if isinstance(value, dict) else {"value": value}


def _plain(value):
    """A 0.5 declaration as a 1.0 option value: `{"value": v}` alone becomes v; richer declarations stay."""
    if isinstance(value, dict) and set(value) == {"value"}:
        return value["value"]
    return value


def _renames(family: str) -> dict[str, str]:
    if family == "mqtt":
        return MQTT_RENAMES
    if family == "nats":
        return NATS_RENAMES
    return {}


def options_to_metadata(protocol: str, options) -> object:
    """1.0 `protocoloptions` of a message -> 0.5 `metadata` of its format."""
    family = protocol_family(protocol)
    if family == "amqp" and isinstance(options, dict) and isinstance(options.get("header"), dict):
        # rc4's AMQP `header` fields are values (`durable: true`), 0.5's are declarations (`durable: {value: true}`)
        return {**options, "header": {k: _declared(v) for k, v in options["header"].items()}}
    if not isinstance(options, dict) or family not in SCALAR_OPTIONS:
        return options
    renames = _renames(family)
    out = {}
    for name, value in options.items():
        target = renames.get(name, name.replace("_", "-") if family in ("mqtt", "nats") else name)
        if name in SCALAR_OPTIONS[family]:
            out[target] = _declared(value)
        elif family in ("kafka", "nats") and name == "headers" and isinstance(value, dict):
            out["headers"] = {
                (h.get("name") if isinstance(h, dict) and isinstance(h.get("name"), str) else k): (
                    {x: y for x, y in h.items() if x != "name"} if isinstance(h, dict) else _declared(h)
                )
                for k, h in value.items()
            }
        else:
            out[target] = value
    return out


def metadata_to_options(fmt: str, metadata) -> object:
    """0.5 `metadata` of a message format -> 1.0 `protocoloptions`."""
    family = protocol_family(fmt)
    if family == "amqp" and isinstance(metadata, dict) and isinstance(metadata.get("header"), dict):
        return {**metadata, "header": {k: _plain(v) for k, v in metadata["header"].items()}}
    if not isinstance(metadata, dict) or family not in SCALAR_OPTIONS:
        return metadata
    back = {v: k for k, v in _renames(family).items()}
    out = {}
    for name, value in metadata.items():
        target = back.get(name, name.replace("-", "_") if family in ("mqtt", "nats") else name)
        if target in SCALAR_OPTIONS[family]:
            out[target] = _plain(value)
        elif family in ("kafka", "nats") and name == "headers" and isinstance(value, dict):
            out["headers"] = {k: ({"name": k, **h} if isinstance(h, dict) else h) for k, h in value.items()}
        else:
            out[target] = value
    return out


# a definition's data schema attributes: 0.5 name -> 1.0 name
DATA_SCHEMA_NAMES = (("schemaformat", "dataschemaformat"), ("schema", "dataschema"), ("schemaurl", "dataschemauri"))


def message_to_v05(attrs: dict) -> dict:
    """A 1.0 message's attributes (without ids and server attributes) -> a 0.5 definition document."""
    a = dict(attrs)
    out = {}
    envelope, protocol = a.pop("envelope", None), a.pop("protocol", None)
    envelope_metadata = a.pop("envelopemetadata", None)
    options = a.pop("protocoloptions", None)
    if envelope is not None:
        out["format"] = envelope
        if envelope_metadata is not None:
            out["metadata"] = (
                {"attributes": envelope_metadata} if isinstance(envelope_metadata, dict) else envelope_metadata
            )
        if protocol is not None:
            out["protocol"] = protocol
        if options is not None:
            out["protocoloptions"] = options
    elif protocol is not None:
        out["format"] = protocol_to_format(protocol)
        if options is not None:
            out["metadata"] = options_to_metadata(protocol, options)
        if envelope_metadata is not None:
            out["envelopemetadata"] = envelope_metadata
    else:
        if envelope_metadata is not None:
            out["envelopemetadata"] = envelope_metadata
        if options is not None:
            out["protocoloptions"] = options
    return moved_with_rest(a, out, {new: old for old, new in DATA_SCHEMA_NAMES}, "dataschemauri", reference_to_v05)


def definition_to_v10(doc: dict) -> dict:
    """A 0.5 definition document (without ids and server attributes) -> a 1.0 message's attributes."""
    d = dict(doc)
    out = {}
    fmt = d.pop("format", None)
    metadata = d.pop("metadata", None)
    if fmt is not None:
        if protocol_family(fmt) == "cloudevents":
            out["envelope"] = fmt
            if metadata is not None:
                out["envelopemetadata"] = (
                    metadata.get("attributes", metadata)
                    if isinstance(metadata, dict) and set(metadata) <= {"attributes"}
                    else metadata
                )
        else:
            out["protocol"] = format_to_protocol(fmt)
            if metadata is not None:
                out["protocoloptions"] = metadata_to_options(fmt, metadata)
    for key in ("protocol", "protocoloptions", "envelopemetadata"):
        if key in d:
            out[key] = d.pop(key)
    return moved_with_rest(d, out, dict(DATA_SCHEMA_NAMES), "schemaurl", reference_to_v10)


def _envelope_or_protocol(value) -> str:
    """The 1.0 attribute a 0.5 `format` stands for: `envelope` (CloudEvents, or a format of no known protocol),
    else `protocol`."""
    return "protocol" if protocol_family(value) in FORMAT_PROTOCOLS or protocol_family(value) in ("amqp", "mqtt") \
        else "envelope"  # fmt: skip


def message_attribute_to_v10(attribute: str, value=None) -> str:
    """A validation error's attribute path of a definition in 1.0 names (`metadata.attributes.type` of a CloudEvents
    definition is `envelopemetadata.type`; `schemaurl` is `dataschemauri`); `value` is the format it concerns."""
    head, dot, rest = attribute.partition(".")
    if head == "format":
        return _envelope_or_protocol(value) + dot + rest
    if head == "metadata":
        if _envelope_or_protocol(value) == "protocol":
            return "protocoloptions" + dot + rest
        return "envelopemetadata" + (rest.removeprefix("attributes") if rest.startswith("attributes") else dot + rest)
    renamed = dict(DATA_SCHEMA_NAMES).get(head)
    return renamed + dot + rest if renamed else common_attribute_to_v10(attribute)


def group_attribute_to_v10(attribute: str, value=None) -> str:
    head, dot, rest = attribute.partition(".")
    return _envelope_or_protocol(value) + dot + rest if head == "format" else common_attribute_to_v10(attribute)


def group_to_v05(attrs: dict) -> dict:
    """A 1.0 message group's own attributes -> a 0.5 definition group's (`envelope`/`protocol` = `format`)."""
    a = dict(attrs)
    envelope, protocol = a.pop("envelope", None), a.pop("protocol", None)
    if envelope is not None:
        a["format"] = envelope
        if protocol is not None:
            a["protocol"] = protocol
    elif protocol is not None:
        a["format"] = protocol_to_format(protocol)
    return a


def group_to_v10(attrs: dict) -> dict:
    a = dict(attrs)
    fmt = a.pop("format", None)
    if fmt is not None:
        if protocol_family(fmt) == "cloudevents":
            a["envelope"] = fmt
        else:
            a = {"protocol": format_to_protocol(fmt), **{k: v for k, v in a.items() if k != "protocol"}}
    return a


MODEL_SOURCE = Path(__file__).with_name("xr10_model.json")  # cloudevents/model.json of 1.0-rc4, includes resolved


def message_mapping() -> ResourceMapping:
    """The 1.0 `messages` of a definition group, and of an endpoint (rc4's endpoint model imports them:
    `"ximportresources": ["/messagegroups/messages"]`), both the store's `definitions`."""
    return ResourceMapping(
        plural="definitions",
        v1_plural="messages",
        v1_singular="message",
        singular05="definition",
        hasdocument=False,
        v05_only=("format", "metadata", "schemaformat", "schema", "schemaurl"),
        to_v05=message_to_v05,
        to_v10=definition_to_v10,
        attribute_to_v10=message_attribute_to_v10,
    )


def register() -> None:
    """Called from `CatalogConfig.ready`: the 1.0 names of the catalog's group and resource types, and the
    1.0 model served at `/registry/model` (the CloudEvents registry model; Apache-2.0, xRegistry authors)."""
    register_model_source(json.loads(MODEL_SOURCE.read_text()))
    register_mapping(
        GroupMapping(
            plural="definitionGroups",
            v1_plural="messagegroups",
            v1_singular="messagegroup",
            to_v05=group_to_v05,
            to_v10=group_to_v10,
            attribute_to_v10=group_attribute_to_v10,
            v05_only=("format", "definitions"),
            resources=(message_mapping(),),
        )
    )
    register_mapping(
        GroupMapping(
            plural="schemaGroups",
            v1_plural="schemagroups",
            v1_singular="schemagroup",
            resources=(
                ResourceMapping(
                    plural="schemas",
                    v1_plural="schemas",
                    v1_singular="schema",
                    singular05="schema",
                    hasdocument=True,
                    v05_only=("schemaBase64", "schemaURI"),
                ),
            ),
        )
    )
