"""CloudEvents/1.0 metadata (spec: the "CloudEvents/1.0" message format).

`metadata` holds one member, `attributes`: a map of CloudEvents context attribute name -> declaration.
- Names follow CloudEvents naming: lower-case ASCII letters and digits only (the 20-character limit is a
  CloudEvents SHOULD, not checked).
- Base attributes default to their CloudEvents types (`source` and `dataschema`: `uritemplate`, `time`:
  `timestamp`, the others `string`); a declaration MAY change the type ("the `type` of an attribute MAY be
  modified"), extension attributes default to `string`.
- `type`, `id` and `source` are implicitly required and MUST NOT be declared `required: false`; the same holds
  for `specversion`, which every CloudEvent carries. `specversion`, if declared, is a string set to "1.0".
- Integer values are CloudEvents Integers (32-bit signed).
The SHOULDs (no `id` value, no `time` value other than "current time") are not errors.
"""

import re

from .declarations import check_declaration, check_range, declared_type, key, show

NAME = re.compile(r"^[a-z0-9]+$")
BASE_TYPES = {
    "type": "string",
    "source": "uritemplate",
    "subject": "string",
    "id": "string",
    "time": "timestamp",
    "dataschema": "uritemplate",
    "datacontenttype": "string",
    "specversion": "string",
}
ALWAYS_REQUIRED = ("specversion", "type", "id", "source")
INT32 = (-(2**31), 2**31 - 1)


def _attribute(path: str, name: str, declaration) -> list[str]:
    errors = check_declaration(path, declaration, BASE_TYPES.get(name, "string"))
    if not isinstance(declaration, dict):
        return errors
    if name in ALWAYS_REQUIRED and declaration.get("required") is False:
        errors.append(f"{path}.required must not be false ({name} is required in every CloudEvent)")
    kind = declared_type(declaration, BASE_TYPES.get(name, "string"))
    if kind == "integer":
        errors += check_range(path, declaration, *INT32)
    if name == "specversion":
        if kind != "string":
            errors.append(f"{path}.type must be string")
        if declaration.get("value") != "1.0":
            errors.append(f'{path}.value must be "1.0" (not {show(declaration.get("value"))})')
    return errors


def validate(metadata: dict) -> list[str]:
    errors = [
        f"metadata.{key(name)} is not a member of CloudEvents metadata (only attributes)"
        for name in metadata
        if name != "attributes"
    ]
    if "attributes" not in metadata:
        return errors + ["metadata.attributes is required (the map of CloudEvents attribute declarations)"]
    attributes = metadata["attributes"]
    if not isinstance(attributes, dict):
        return errors + ["metadata.attributes must be an object (attribute name -> declaration)"]
    for name, declaration in attributes.items():
        path = f"metadata.attributes.{key(name)}"
        if not isinstance(name, str) or not NAME.fullmatch(name):
            errors.append(f"{path}: CloudEvents attribute names consist of lower-case letters a-z and digits 0-9")
            continue
        errors += _attribute(path, name, declaration)
    return errors
