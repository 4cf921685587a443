"""MQTT/3.1.1 and MQTT/5.0 metadata: the PUBLISH packet's elements, each allowed in the versions the
spec's table lists (`payload-format`, `message-expiry-interval`, `response-topic`, `correlation-data`,
`content-type` and `user-properties` exist in MQTT 5.0 only)."""
from .properties import check_declaration

BOTH = {"qos": "integer", "retain": "boolean", "topic-name": "string"}
V5_ONLY = {"payload-format": "integer", "message-expiry-interval": "integer", "response-topic": "uritemplate",
           "correlation-data": "binary", "content-type": "symbol"}


def validate(metadata, version: str | None) -> list[str]:
    if not isinstance(metadata, dict):
        return ["metadata must be an object"]
    v5 = (version or "5").startswith("5")
    known = {**BOTH, **(V5_ONLY if v5 else {})}
    errors = []
    for name, declaration in metadata.items():
        path = f"metadata.{name}"
        if name == "user-properties":
            if not v5:
                errors.append(f"{path} exists in MQTT 5.0 only, not in MQTT/{version}")
                continue
            if not isinstance(declaration, list):
                errors.append(f"{path} must be an array of single-property objects")
                continue
            for index, entry in enumerate(declaration):
                if not isinstance(entry, dict) or len(entry) != 1:
                    errors.append(f"{path}[{index}] must be an object with exactly one property")
                    continue
                key, value = next(iter(entry.items()))
                errors += check_declaration(f"{path}[{index}].{key}", value)
            continue
        if name in V5_ONLY and not v5:
            errors.append(f"{path} exists in MQTT 5.0 only, not in MQTT/{version}")
            continue
        if name not in known:
            names = sorted(set(known) | ({"user-properties"} if v5 else set()))
            errors.append(f"{path} is not an MQTT PUBLISH property (known: {', '.join(names)})")
            continue
        errors += check_declaration(path, declaration, known[name], allowed_types={known[name], "var"}
                                    if known[name] != "string" else None)
        if name == "qos" and isinstance(declaration, dict) and "value" in declaration \
                and declaration["value"] not in (0, 1, 2):
            errors.append(f"{path}.value must be 0, 1 or 2")
    return errors
