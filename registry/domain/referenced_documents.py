"""Resolvers of the documents a version's document refers to by name, as apps register them (the engine knows no
format and no attribute of any app).

A schema may use named types defined in other schemas (an Avro record naming a record of another subject). Its
writer may resolve them (`VersionInput.referenced_documents`, the Confluent API's registration); every other
write (another binding's update in place, a document import, the admin) carries what the version's attributes say,
and a resolver registered for its type turns that into the documents:

- `register_document_resolver(group_plural, resource_plural, fn)`: `fn(check)` is called with the `VersionCheck`
  of a version about to be written whose writer gave no documents, and returns the documents its attributes
  refer to, deepest first (`()` when they refer to none). It raises `Unresolved` (registry.domain.validation) naming a
  reference that names nothing stored, `Invalid` for a reference it cannot read.
- `resolve(check)`: the documents of `check` (the writer's, else every registered resolver's).
"""

from __future__ import annotations

from collections.abc import Callable

from .validation import VersionCheck

Resolver = Callable[[VersionCheck], tuple[bytes, ...]]

resolvers: dict[tuple[str, str], list[Resolver]] = {}


def register_document_resolver(group_plural: str, resource_plural: str, fn: Resolver) -> None:
    found = resolvers.setdefault((group_plural, resource_plural), [])
    if fn not in found:
        found.append(fn)


def resolve(check: VersionCheck) -> tuple[bytes, ...]:
    """The documents the version refers to: the writer's when it gave some, else the registered resolvers'."""
    if check.referenced_documents:
        return check.referenced_documents
    out: tuple[bytes, ...] = ()
    for fn in resolvers.get((check.group_type, check.resource_type), ()):
        out += fn(check)
    return out
