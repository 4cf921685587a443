"""How the `:Name` after a reference to a version is checked, as apps register it per resource type (the engine knows
no format): `register_part_check(group_plural, resource_plural, fn)`, where `fn(attributes, document, name)` says why
`name` names nothing in the version's document (its attributes name its format), or None when it names something or
`fn` cannot tell. Read by the document importer's check of references (registry/documents/references.py). No Django
here: the catalog registers its check where Spark's executors load the model too."""

from __future__ import annotations

from collections.abc import Callable

PartCheck = Callable[[dict, bytes, str], str | None]
part_checks: dict[tuple[str, str], PartCheck] = {}


def register_part_check(group_plural: str, resource_plural: str, fn: PartCheck) -> None:
    part_checks[(group_plural, resource_plural)] = fn
