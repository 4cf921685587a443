"""CloudEvents/1.0 metadata: `{"attributes": {NAME: declaration}}` (spec: "CloudEvents/1.0" format).

Attribute names are lower-case letters and digits; `type`, `id` and `source` are implicitly required and
must not be declared `required: false`; `specversion`, if declared, is a string with value "1.0".
"""
import re

from .properties import canonical_type, check_declaration

NAME = re.compile(r"^[a-z0-9]{1,20}$")
BASE_TYPES = {"type": "string", "source": "uritemplate", "subject": "string", "id": "string", "time": "timestamp",
              "dataschema": "uritemplate", "datacontenttype": "string", "specversion": "string"}
IMPLICITLY_REQUIRED = ("type", "id", "source")


def validate(metadata) -> list[str]:
    if not isinstance(metadata, dict):
        return ["metadata must be an object with an attributes map"]
    errors = [f"metadata.{k} is not part of CloudEvents metadata (only attributes)" for k in metadata if k != "attributes"]
    attributes = metadata.get("attributes", {})
    if not isinstance(attributes, dict):
        return errors + ["metadata.attributes must be an object"]
    for name, declaration in attributes.items():
        path = f"metadata.attributes.{name}"
        if not NAME.match(name):
            errors.append(f"{path}: CloudEvents attribute names are 1-20 lower-case letters or digits")
            continue
        errors += check_declaration(path, declaration, BASE_TYPES.get(name, "string"))
        if not isinstance(declaration, dict):
            continue
        if name in IMPLICITLY_REQUIRED and declaration.get("required") is False:
            errors.append(f"{path}.required must not be false ({name} is always required in a CloudEvent)")
        if name == "specversion":
            if "type" in declaration and canonical_type(declaration["type"]) != "string":
                errors.append(f"{path}.type must be string")
            if "value" in declaration and declaration["value"] != "1.0":
                errors.append(f"{path}.value must be \"1.0\"")
    return errors
