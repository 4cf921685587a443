"""Which earlier versions a new version's compatibility check compares it with, where an app narrows them (the
registry itself compares with every earlier version its level covers): Confluent's `compatibilityGroup` compares a
schema version only with the versions whose metadata property of that name has the same value (confluent.contracts),
whichever door writes it. The engine knows no such rule: apps register one per resource type.

- `register_comparison_scope(group_plural, resource_plural, fn)`: `fn(check)` (a `validation.VersionCheck`) answers
  None (compare with all) or, for each earlier version with a document, oldest first (created_on, id) and without
  the version being written (the order and the versions of `VersionCheck.previous_documents`), whether to compare.
- `compared(check)`: the answer of the type's function, None when it has none or it narrows nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from .validation import VersionCheck

Scope = Callable[[VersionCheck], "list[bool] | None"]

_scopes: dict[tuple[str, str], Scope] = {}


def register_comparison_scope(group_plural: str, resource_plural: str, fn: Scope) -> None:
    _scopes[(group_plural, resource_plural)] = fn


def compared(check: VersionCheck) -> list[bool] | None:
    fn = _scopes.get((check.group_type, check.resource_type))
    if fn is None:
        return None
    found = fn(check)
    if found is None or all(found):
        return None
    return found
