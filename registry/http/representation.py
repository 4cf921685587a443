"""The shared representation layer: what every binding shows of a group, resource or version that the server owns
(its id, `self`, `epoch`, when and by whom it was created and modified, the link and size of each collection it
holds, the common attributes the store calls `tags` and `docs`), built once from the stored rows and named by the
binding's name table (`Names`). A binding declares its names and the order of an entity's parts, and keeps only
its real translations (1.0: the model's defaults, the validation attributes, `meta`; 0.5-wip: the `?meta` view).

Built from already-loaded rows: nothing here queries the database.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..domain.attributes import timestamp


@dataclass(frozen=True)
class Names:
    """A binding's names of what every entity has.

    id: an entity's id attribute, `{singular}` standing for its type's singular (`id`, `{singular}id`).
    url, count: the suffixes of a collection's link and size (`schemasURL`, `schemasurl`).
    renames: the store's name of each attribute every entity has that the binding names otherwise -> the binding's
        name (None: not shown); declared with the others in registry/domain/attributes (`V05_TO_V10`).
    """

    id: str
    url: str
    count: str
    renames: Mapping[str, str | None] = field(default_factory=dict)

    def __getitem__(self, stored: str) -> str:
        """The binding's name of the attribute the store calls `stored` (`tags`, `createdOn`); "": not shown."""
        return self.renames.get(stored, stored) or ""

    def times(self, entity) -> dict:
        """Who created and modified `entity` (where this table shows them) and when."""
        out = {}
        for by, on, who, when in (("createdBy", "createdOn", "created_by", "created_on"),
                                  ("modifiedBy", "modifiedOn", "modified_by", "modified_on")):  # fmt: skip
            actor = self[by]
            if actor and getattr(entity, who):
                out[actor] = getattr(entity, who)
            out[self[on]] = timestamp(getattr(entity, when))
        return out

    def collections(self, url: str, plurals, entity, counts: dict | None = None, inlined: dict | None = None) -> dict:
        """Each collection's link and size (`plurals`: (shown, stored) plural names; the size from `counts` by the
        stored name, else `entity`'s `count_<stored>`), followed by the collection where `inlined` (by the stored
        name) holds it."""
        out: dict[str, object] = {}
        for shown, stored in plurals:
            out[f"{shown}{self.url}"] = f"{url}/{shown}"
            out[f"{shown}{self.count}"] = (counts or {}).get(stored, getattr(entity, f"count_{stored}", 0))
            if inlined is not None and stored in inlined:
                out[shown] = inlined[stored]
        return out


# the names the store keeps attributes under: those of the 0.5-wip binding, which shows them as they are
STORE = Names(id="id", url="URL", count="Count")


def represent(names: Names, layout: tuple, entity, eid: str, url: str, *, singular="", xid=None, **parts) -> dict:
    """An entity in a binding's names and order: the parts every entity has (`id`, `self` with the `xid` where the
    binding shows one, `epoch`, `times`) and the binding's own `parts`, each where `layout` names it (a member a
    later part repeats keeps its place and takes the later value, as in a dict display)."""
    parts = {
        "id": {names.id.format(singular=singular): eid},
        "self": {"self": url} if xid is None else {"self": url, "xid": xid},
        "epoch": {"epoch": entity.epoch},
        "times": names.times(entity),
        **parts,
    }
    out: dict = {}
    for name in layout:
        out.update(parts.get(name) or {})
    return out
