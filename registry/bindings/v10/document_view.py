"""rc4's document view (core/spec.md "Doc Flag"): an answer rendered in the API view, rewritten for `?doc` and for
`/registry/export` (`?doc&inline=*,capabilities,modelsource`, core/http.md "GET /export").

What the flag asks, and what is done here (the default version's attributes are left out of a Resource where it
is rendered, `reads.render_resource`; `shortself` and `xref` are not served by this server):
- "MUST remove the Version `formatvalidated` and `compatibilityvalidated` attributes from Version
  serializations": removed, with their `...reason` attributes, which "MUST NOT be present when
  `formatvalidated` is absent".
- "MUST convert the following attributes into relative URLs if, and only if, the entities that they reference
  are included in the response output: `self`, `<COLLECTION>url`, `metaurl`, `defaultversionurl`", each `#`
  and a JSON Pointer from the root of the answer (`#/` for the entity asked for, `#/g1/schemas/s1` in a
  collection of groups). An inlined collection is shown without its `<COLLECTION>url` and `<COLLECTION>count`,
  which are OPTIONAL in document view ("Collections in Document View"): rc4's document schema
  (`cloudevents/schemas/document-schema.json`) takes a schema's `versions` or its `versionsurl`, not both.

The walk follows the model, never an attribute's content: only `meta` and the collections an entity has (its
groups, resources or versions, known from its `xid`) are entered, so that a schema document holding `self` or
`xid` members is left as it was written.
"""

from __future__ import annotations

from .mapping import ordered_mappings, v1_mappings

VALIDATED = ("formatvalidated", "formatvalidatedreason", "compatibilityvalidated", "compatibilityvalidatedreason")
LINKS = ("self", "metaurl", "defaultversionurl")


def pointer_token(name: str) -> str:
    """One JSON Pointer reference token (RFC 6901 section 3: `~` as `~0`, `/` as `~1`); two replacements, no
    library needed for them."""
    return name.replace("~", "~0").replace("/", "~1")


def collections_of(xid: str) -> tuple[str, ...]:
    """The names of the collections (and `meta`) an entity with this `xid` may hold inlined."""
    parts = [p for p in xid.split("/") if p]
    if not parts:
        return tuple(gm.v1_plural for gm in ordered_mappings())
    if len(parts) == 2 and parts[0] in v1_mappings:
        return tuple(rm.v1_plural for rm in v1_mappings[parts[0]].resources)
    if len(parts) == 4:
        return ("meta", "versions")
    return ()


def _entities(data, at: str, found: dict[str, str]) -> None:
    """`xid` -> JSON Pointer of every entity in `data` (an entity, or a map of entities), `at` being its pointer."""
    if not isinstance(data, dict):
        return
    xid = data.get("xid")
    if isinstance(xid, str) and isinstance(data.get("self"), str):
        found[xid] = at
        for name in collections_of(xid):
            value = data.get(name)
            if name == "meta":
                _entities(value, f"{at}/meta", found)
            elif isinstance(value, dict):
                for key, entity in value.items():
                    _entities(entity, f"{at}/{pointer_token(name)}/{pointer_token(key)}", found)
        return
    for key, entity in data.items():  # a collection answer: a map of entities
        if isinstance(entity, dict) and isinstance(entity.get("xid"), str):
            _entities(entity, f"{at}/{pointer_token(key)}", found)


def _relative(value, base: str, pointers: dict[str, str]):
    if not isinstance(value, str) or not value.startswith(base + "/"):
        return value
    xid = value[len(base) :].removesuffix("$details")
    pointer = pointers.get(xid)
    return value if pointer is None else "#" + (pointer or "/")


def _rewrite(data, base: str, pointers: dict[str, str]):
    if not isinstance(data, dict):
        return data
    xid = data.get("xid")
    if not (isinstance(xid, str) and isinstance(data.get("self"), str)):
        return {key: _rewrite(value, base, pointers) for key, value in data.items()}  # a collection answer
    names = collections_of(xid)
    inlined = {name for name in names if name != "meta" and isinstance(data.get(name), dict)}
    out = {}
    for key, value in data.items():
        if key in VALIDATED or key == "shortself":
            continue
        if key.endswith("url") and key[:-3] in inlined or key.endswith("count") and key[:-5] in inlined:
            continue
        if key in LINKS or key.endswith("url") and key[:-3] in names:
            value = _relative(value, base, pointers)
        elif key == "meta" and "meta" in names:
            value = _rewrite(value, base, pointers)
        elif key in inlined:
            value = {k: _rewrite(v, base, pointers) for k, v in value.items()}
        out[key] = value
    return out


def document_view(data, base: str, *, at: str = "", pointers: dict[str, str] | None = None):
    """`data` (an answer of the 1.0 binding at `base`, or the part of one found at the JSON Pointer `at`) as the
    doc flag writes it. `pointers` (`xid` -> pointer) names the entities of the whole answer when `data` is a
    part of it; by default those of `data`."""
    if pointers is None:
        pointers = {}
        _entities(data, at, pointers)
    return _rewrite(data, base, pointers)
