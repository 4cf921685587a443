"""The xRegistry 1.0 shape of endpoints (docs/xregistry-1.0.md), translated both ways with the stored 0.5 shape.

- 1.0 `protocol`, `protocoloptions`, `endpoints: [{uri}]`, `deployed` = 0.5 `config.protocol`,
  `config.options` (option names kept as written), `config.endpoints: [uri]`, `config.strict`;
- `usage`: a 1.0 array of one = the 0.5 string; an array of several is stored as the array (the 0.5 validator
  takes both);
- `envelope` = the endpoint's 0.5 `format` when it is CloudEvents; a 0.5 `format` that only repeats the
  protocol is implied by `protocol` in 1.0;
- `messagegroups` references = `definitionGroups` references (`/messagegroups/G` = `#/definitionGroups/G`);
- an endpoint's 0.5 `definitions` are its 1.0 `messages` (rc4's endpoint model imports the message type:
  `"ximportresources": ["/messagegroups/messages"]`), translated as a message group's are (catalog/xr10.py).

Written by hand: no library knows either shape.
"""

from __future__ import annotations

from catalog.xr10 import message_mapping
from registry.bindings.v10.mapping import (
    GroupMapping,
    moved_with_rest,
    reference_to_v05,
    reference_to_v10,
    register_mapping,
)


def protocol_family(value) -> str | None:
    """`MQTT/5.0` -> `mqtt` (the name before the version, lower case)."""
    return value.split("/")[0].lower() if isinstance(value, str) else None


CONFIG_KEYS = {"protocol": "protocol", "protocoloptions": "options", "deployed": "strict"}


def _uris_to_v05(items):
    if isinstance(items, list) and all(isinstance(i, dict) and set(i) == {"uri"} for i in items):
        return [i["uri"] for i in items]
    return items


def _uris_to_v10(items):
    if isinstance(items, list) and all(isinstance(i, str) for i in items):
        return [{"uri": i} for i in items]
    return items


def _references(value, convert):
    if isinstance(value, list):
        return [convert(v) if isinstance(v, str) else v for v in value]
    return value


def endpoint_to_v05(attrs: dict) -> dict:
    """A 1.0 endpoint's own attributes -> the 0.5 endpoint's."""
    a = dict(attrs)
    out = {}
    usage = a.pop("usage", None)
    if usage is not None:
        out["usage"] = usage[0] if isinstance(usage, list) and len(usage) == 1 else usage
    config = {}
    for new, old in CONFIG_KEYS.items():
        if new in a:
            config[old] = a.pop(new)
    if "endpoints" in a:
        config["endpoints"] = _uris_to_v05(a.pop("endpoints"))
    if config:
        out["config"] = config
    if "envelope" in a:
        out["format"] = a.pop("envelope")
    elif "format" in a:  # a 0.5 format that is no envelope (endpoint_to_v10)
        out["format"] = a.pop("format")
    return moved_with_rest(
        a,
        out,
        {"messagegroups": "definitionGroups"},
        "messagegroups",
        lambda value: _references(value, reference_to_v05),
    )


def endpoint_to_v10(attrs: dict) -> dict:
    """A 0.5 endpoint's own attributes -> the 1.0 endpoint's."""
    a = dict(attrs)
    out = {}
    usage = a.pop("usage", None)
    if usage is not None:
        out["usage"] = [usage] if isinstance(usage, str) else usage
    config = a.pop("config", None)
    if isinstance(config, dict):
        config = dict(config)

        for new, old in CONFIG_KEYS.items():
            if old in config:
                out[new] = config.pop(old)
        if "endpoints" in config:
            out["endpoints"] = _uris_to_v10(config.pop("endpoints"))
        out.update(config)  # options of the config that 1.0 has no name for stay visible as they are
    elif config is not None:
        out["config"] = config
    fmt = a.pop("format", None)
    if fmt is not None:
        # a CloudEvents format is the 1.0 `envelope`; another (the protocol's own message format, `MQTT/5.0`) has
        # no 1.0 attribute: it stays visible as the extension attribute `format`, so a round trip keeps it
        out["envelope" if protocol_family(fmt) == "cloudevents" else "format"] = fmt
    return moved_with_rest(
        a,
        out,
        {"definitionGroups": "messagegroups"},
        "definitionGroups",
        lambda value: _references(value, reference_to_v10),
    )


def register() -> None:
    """Called from `EndpointsConfig.ready`."""
    register_mapping(
        GroupMapping(
            plural="endpoints",
            v1_plural="endpoints",
            v1_singular="endpoint",
            to_v05=endpoint_to_v05,
            to_v10=endpoint_to_v10,
            v05_only=("config", "definitionGroups", "definitions"),
            resources=(message_mapping(),),
        )
    )
