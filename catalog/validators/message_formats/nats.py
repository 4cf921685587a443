"""NATS metadata (Message Catalog API): `subject` and `headers` (a map of declarations)."""
from .properties import check_declaration, check_map


def validate(metadata) -> list[str]:
    if not isinstance(metadata, dict):
        return ["metadata must be an object"]
    errors = []
    for name, declaration in metadata.items():
        if name == "headers":
            errors += check_map("metadata.headers", declaration)
        elif name == "subject":
            errors += check_declaration("metadata.subject", declaration, "string")
        else:
            errors.append(f"metadata.{name} is not a NATS message property (known: headers, subject)")
    return errors
