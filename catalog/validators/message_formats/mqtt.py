"""MQTT/3.1.1 and MQTT/5.0 metadata (spec: the "MQTT/3.1.1" and "MQTT/5.0" message formats).

The members are the PUBLISH packet's elements, each with the fixed type of the spec's table:
- both versions: `qos` (integer 0, 1 or 2), `retain` (boolean), `topic-name` (string);
- MQTT 5.0 only: `payload-format` (integer 0 or 1), `message-expiry-interval` (integer, four-byte unsigned),
  `response-topic` (uritemplate), `correlation-data` (binary), `content-type` (symbol), and
  `user-properties`: an array of objects with exactly one member, name -> declaration (names may repeat), or of
  declarations carrying their `name` (`{"name": "n", "type": "string"}`, the xRegistry 1.0 shape).
A topic name in a PUBLISH packet holds no wildcards (`+`, `#`) and no U+0000 (MQTT 3.1.1 4.7.3, 5.0 4.7.3);
the same holds for the response topic. The bare format "MQTT" means MQTT/5.0 (the spec's protocol shorthand).
"""

from .declarations import check_declaration, check_range, key, unknown_keys, value_of

BOTH = {"qos": "integer", "retain": "boolean", "topic-name": "string"}
V5_ONLY = {
    "payload-format": "integer",
    "message-expiry-interval": "integer",
    "response-topic": "uritemplate",
    "correlation-data": "binary",
    "content-type": "symbol",
}
RANGES = {"qos": (0, 2), "payload-format": (0, 1), "message-expiry-interval": (0, 2**32 - 1)}
TOPICS = ("topic-name", "response-topic")


def _topic(path: str, declaration) -> list[str]:
    value = value_of(declaration, "string")
    if value is None:
        return []
    if not value:
        return [f"{path}.value must not be empty (an MQTT topic name has at least one character)"]
    if "+" in value or "#" in value or "\x00" in value:
        return [f"{path}.value must not contain the wildcards '+', '#' or U+0000 (a PUBLISH topic name)"]
    return []


def _user_properties(path: str, entries) -> list[str]:
    if not isinstance(entries, list):
        return [f"{path} must be an array of objects with one member each (name -> declaration)"]
    errors = []
    for index, entry in enumerate(entries):
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            # the xRegistry 1.0 shape: {"name": NAME, "type": ..., "value": ...}
            name, declaration = entry["name"], {k: v for k, v in entry.items() if k != "name"}
            if not name or "\x00" in name:
                errors.append(f"{path}[{index}]: user property names are non-empty strings without U+0000")
            else:
                errors += check_declaration(f"{path}[{index}].{key(name)}", declaration)
            continue
        if not isinstance(entry, dict) or len(entry) != 1:
            errors.append(f"{path}[{index}] must be an object with exactly one member (name -> declaration)")
            continue
        name, declaration = next(iter(entry.items()))
        if not isinstance(name, str) or not name or "\x00" in name:
            errors.append(f"{path}[{index}]: user property names are non-empty strings without U+0000")
            continue
        errors += check_declaration(f"{path}[{index}].{key(name)}", declaration)
    return errors


def validate(metadata: dict, version: str | None) -> list[str]:
    v5 = version not in ("3.1.1",)
    known = (*BOTH, *V5_ONLY, "user-properties")
    errors = unknown_keys(metadata, known, "an MQTT PUBLISH property")
    for name, declaration in metadata.items():
        path = f"metadata.{key(name)}"
        if name not in known:
            continue
        if not v5 and name not in BOTH:
            errors.append(f"{path} exists in MQTT 5.0 only, not in MQTT/{version}")
        elif name == "user-properties":
            errors += _user_properties(path, declaration)
        else:
            errors += check_declaration(path, declaration, {**BOTH, **V5_ONLY}[name], fixed=True)
            if name in RANGES:
                errors += check_range(path, declaration, *RANGES[name])
            if name in TOPICS:
                errors += _topic(path, declaration)
    return errors
