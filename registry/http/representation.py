"""The shared representation layer: what every binding shows of a group, resource or version that the server owns
(its id, `self`, `epoch`, when and by whom it was created and modified, the link and size of each collection it
holds, the common attributes the store calls `tags` and `docs`), built once from the stored rows and named by the
binding's name table (`Names`). A binding declares its names and the order of an entity's parts, and keeps only
its real translations (1.0: the model's defaults, the validation attributes, `meta`; 0.5-wip: the `?meta` view).

Built from already-loaded rows: nothing here queries the database.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..domain.attributes import timestamp


@dataclass(frozen=True)
class Names:
    """A binding's names of what every entity has, each field the same attribute in every binding's table.

    id: an entity's id attribute, `{singular}` standing for its type's singular (`id`, `{singular}id`).
    labels, documentation: the store's `tags` and `docs`.
    created, modified: the timestamps; created_by, modified_by: who wrote them ("": not shown).
    url, count: the suffixes of a collection's link and size (`schemasURL`, `schemasurl`).
    specversion: the registry's version of the specification.
    """

    id: str
    labels: str
    documentation: str
    created: str
    modified: str
    created_by: str
    modified_by: str
    url: str
    count: str
    specversion: str

    def renames(self, other: Names) -> dict[str, str | None]:
        """Each of this table's names of an attribute -> `other`'s name of it (None: `other` shows none); the
        ids and collection suffixes, which are not attribute names of their own, left out."""
        names = (f.name for f in fields(self) if f.name not in ("id", "url", "count"))
        return {getattr(self, n): getattr(other, n) or None for n in names if getattr(self, n)}

    def times(self, entity) -> dict:
        """Who created and modified `entity` (where this table shows them) and when."""
        out = {}
        for actor, moment, by, on in ((self.created_by, self.created, "created_by", "created_on"),
                                      (self.modified_by, self.modified, "modified_by", "modified_on")):  # fmt: skip
            if actor and getattr(entity, by):
                out[actor] = getattr(entity, by)
            out[moment] = timestamp(getattr(entity, on))
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
STORE = Names(id="id", labels="tags", documentation="docs", created="createdOn", modified="modifiedOn",
              created_by="createdBy", modified_by="modifiedBy", url="URL", count="Count", specversion="specVersion")  # fmt: skip


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
