"""What apps keep derived from a new version, written in the version's own transaction (the engine knows no app).

An app that keeps rows derived from the versions of a type (the Confluent API's subject version numbers and schema
ids) registers a hook here; the engine calls it after it writes a new version of that type through
`registry.services.resources.create_version` (every binding's POST of a new version), in the write's transaction,
under the resource's row lock the write holds: what the hook writes commits or rolls back with the version, and the
writes of one resource run it one after the other.

- `register_new_version_hook(group_plural, resource_plural, fn)`: `fn(resource, version)` after the version's row
  is written (and the resource's retention applied). It returns whether it kept its rows up to date: when every
  hook did, the change's entity path is not handed to the path listeners after the commit
  (registry/commit_listeners.py); otherwise they are told of it as of any other write.
- `hooks_of(group_plural, resource_plural)`: the hooks of a type, in the order they registered.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# (resource, version): registry.models' rows, not imported here (the domain does not load the models)
Hook = Callable[[Any, Any], bool]

hooks: dict[tuple[str, str], list[Hook]] = {}


def register_new_version_hook(group_plural: str, resource_plural: str, fn: Hook) -> None:
    found = hooks.setdefault((group_plural, resource_plural), [])
    if fn not in found:
        found.append(fn)


def hooks_of(group_plural: str, resource_plural: str) -> list[Hook]:
    return hooks.get((group_plural, resource_plural), [])
