"""Filter expressions of subscriptions: validation of both families of dialects (docs/api-contract.md section 7).

The spec's `basic` dialect (`{"dialect": "basic", "type": "exact"|"prefix"|"suffix", "property", "value"}`)
and the current Subscriptions API dialects (`exact`, `prefix`, `suffix` maps, `all`, `any`, `not`).
"""

from __future__ import annotations

BASIC_TYPES = ("exact", "prefix", "suffix")
MAP_DIALECTS = ("exact", "prefix", "suffix")
MAX_DEPTH = 16


def validate_filters(filters, path: str = "filters") -> list[str]:
    if filters is None:
        return []
    if not isinstance(filters, list):
        return [f"{path} must be an array of filter expressions"]
    errors = []
    for index, expression in enumerate(filters):
        errors += validate_expression(expression, f"{path}[{index}]", 1)
    return errors


def validate_expression(expression, path: str, depth: int) -> list[str]:
    if depth > MAX_DEPTH:
        return [f"{path}: filters are nested deeper than {MAX_DEPTH} levels"]
    if not isinstance(expression, dict):
        return [f"{path} must be an object"]
    if "dialect" in expression:
        dialect = expression["dialect"]
        if dialect != "basic":
            return [
                f"{path}.dialect {dialect!r} is not supported (supported: basic, exact, prefix, suffix, all, any, not)"
            ]
        errors = []
        if expression.get("type") not in BASIC_TYPES:
            errors.append(f"{path}.type must be one of {', '.join(BASIC_TYPES)}")
        for key in ("property", "value"):
            if not isinstance(expression.get(key), str):
                errors.append(f"{path}.{key} must be a string")
        if isinstance(expression.get("property"), str) and not expression["property"]:
            errors.append(f"{path}.property must not be empty")
        extra = set(expression) - {"dialect", "type", "property", "value"}
        if extra:
            errors.append(f"{path}: unknown members {', '.join(sorted(extra))}")
        return errors
    if len(expression) != 1:
        return [f"{path} must have exactly one dialect member (exact, prefix, suffix, all, any, not) or a dialect"]
    dialect, value = next(iter(expression.items()))
    if dialect in MAP_DIALECTS:
        if not isinstance(value, dict) or not value:
            return [f"{path}.{dialect} must be a non-empty map of attribute to string"]
        return [f"{path}.{dialect}.{k} must be a string" for k, v in value.items() if not isinstance(v, str)]
    if dialect in ("all", "any"):
        if not isinstance(value, list) or not value:
            return [f"{path}.{dialect} must be a non-empty array of filter expressions"]
        errors = []
        for index, sub in enumerate(value):
            errors += validate_expression(sub, f"{path}.{dialect}[{index}]", depth + 1)
        return errors
    if dialect == "not":
        return validate_expression(value, f"{path}.not", depth + 1)
    return [f"{path}: dialect {dialect!r} is not supported (supported: basic, exact, prefix, suffix, all, any, not)"]
