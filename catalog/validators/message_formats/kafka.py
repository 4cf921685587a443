"""Kafka metadata: `topic`, `partition`, `key`, `headers` (a map of declarations; the text's name, not the
0.5-wip schema's `recordHeaders`) and `timestamp`."""
from .properties import check_declaration, check_map

KNOWN = {"topic": "string", "partition": "integer", "key": "binary", "timestamp": "integer"}


def validate(metadata) -> list[str]:
    if not isinstance(metadata, dict):
        return ["metadata must be an object"]
    errors = []
    for name, declaration in metadata.items():
        if name == "headers":
            errors += check_map("metadata.headers", declaration)
        elif name in KNOWN:
            kind = KNOWN[name]
            # a key is bytes on the wire; documents write it as text (often a template)
            errors += check_declaration(f"metadata.{name}", declaration, "string" if kind == "binary" else kind)
        else:
            errors.append(f"metadata.{name} is not a Kafka record property (known: headers, "
                          f"{', '.join(sorted(KNOWN))})")
    return errors
