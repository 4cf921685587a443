"""The `default` values a 1.0 model declares, filled into what the 1.0 binding shows (core/model.md
"attributes.<STRING>.default": "This value MUST be used to populate this attribute's value if one was not provided
by a client ... this attribute MUST be serialized in responses from servers as part of its owning entity").

Defaults are a property of the 1.0 serialization, not of the store: the 0.5-wip binding shows what was written
(CONTRACT section 18, "The doc view"), and a 1.0 write strips what the 1.0 read would only have added
(`without_defaults`), so that a 1.0 export imported again leaves the stored entity, and its 0.5 answers, as they
were. A value given that differs from the default is stored and shown by both bindings.

The walk follows the model's own structure: an attribute's `attributes` (objects), `item` (maps and arrays), `*`
(any attribute the model does not name) and `ifvalues` (the `siblingattributes` an attribute's value adds beside
it: `protocoloptions` of `protocol: "MQTT/5.0"`, `envelopemetadata` of `envelope: "CloudEvents/1.0"`). An
object's defaults appear only when the object is there ("An attribute with a default value does not mean that its
owning Object is mandated to be present").

Written by hand: no library reads xRegistry model documents.
"""

from __future__ import annotations

import copy

from .capabilities import declared


def _plan(attributes: dict) -> tuple[frozenset[str], tuple[tuple[str, object], ...]]:
    """(the names in `attributes` that have `ifvalues`, each (name, default) it declares), worked out once per
    attributes object of the model (kept with it, so that its id is not reused)."""
    kept = _plans.get(id(attributes))
    if kept is not None and kept[0] is attributes:
        return kept[1]
    plan = (
        frozenset(n for n, s in attributes.items() if isinstance(s, dict) and s.get("ifvalues")),
        tuple((n, s["default"]) for n, s in attributes.items() if n != "*" and isinstance(s, dict) and "default" in s),
    )
    _plans[id(attributes)] = (attributes, plan)
    return plan


_plans: dict[int, tuple[dict, tuple]] = {}
_merged: dict[tuple, tuple[dict, dict]] = {}


def _case(cases: dict, value) -> str | None:
    """The key of `cases` (an `ifvalues`) that `value` selects. Protocol names are case-insensitive (endpoint/spec.md
    `protocol`: "MUST be a non-empty case-insensitive string"); the model writes them in upper case."""
    if not isinstance(value, str):
        return None
    if value in cases:
        return value
    return next((k for k in cases if k.lower() == value.lower()), None)


def _with_siblings(attributes: dict, obj: dict) -> dict:
    """`attributes` with the `siblingattributes` that the values in `obj` select through `ifvalues`, repeatedly (a
    sibling may have `ifvalues` of its own); the same object for the same selection (so that `_plan` keeps it)."""
    choosing, _defaults = _plan(attributes)
    selection = tuple(
        (name, key) for name in sorted(choosing) if (key := _case(attributes[name]["ifvalues"], obj.get(name)))
    )
    if not selection:
        return attributes
    kept = _merged.get((id(attributes), selection))
    if kept is not None and kept[0] is attributes:
        return kept[1]
    specs = dict(attributes)
    seen: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, spec in list(specs.items()):
            cases = spec.get("ifvalues") if isinstance(spec, dict) else None
            key = _case(cases, obj.get(name)) if cases and name not in seen else None
            if key is None or not cases:  # (a key implies cases)
                continue
            seen.add(name)
            for sibling, sibling_spec in ((cases[key] or {}).get("siblingattributes") or {}).items():
                if sibling not in specs:
                    specs[sibling] = sibling_spec
                    changed = True
    if seen <= choosing:  # what was selected depends on `selection` alone: kept (bounded by the model's cases)
        _merged[(id(attributes), selection)] = (attributes, specs)
    return specs


def _walk(spec: dict, value, stored, fill: bool):
    """`value` of an attribute declared by `spec`, defaults filled (`fill`) or stripped where `stored` (the stored
    value at the same place; None: everything kept) holds none."""
    kind = spec.get("type") if isinstance(spec, dict) else None
    if kind == "object" and isinstance(value, dict):
        return _object(spec.get("attributes") or {}, value, stored, fill)
    item = spec.get("item") if isinstance(spec, dict) else None
    if isinstance(item, dict):
        if kind == "map" and isinstance(value, dict):
            return {k: _walk(item, v, _member(stored, k), fill) for k, v in value.items()}
        if kind == "array" and isinstance(value, list):
            return [_walk(item, v, _member(stored, i), fill) for i, v in enumerate(value)]
    return value


def _member(stored, key):
    """The stored value under `key` (an absent one is {}: nothing stored there); None when nothing is compared."""
    if stored is None:
        return None
    if isinstance(stored, dict):
        found = stored.get(key)
    elif isinstance(stored, list) and isinstance(key, int) and key < len(stored):
        found = stored[key]
    else:
        found = None
    return found if isinstance(found, (dict, list)) else {}


def _object(attributes: dict, obj: dict, stored, fill: bool) -> dict:
    specs = _with_siblings(attributes, obj)
    out = {}
    for name, value in obj.items():
        spec = specs.get(name) or specs.get("*")
        if not isinstance(spec, dict):
            out[name] = value
            continue
        if (
            not fill
            and stored is not None
            and name != "*"
            and "default" in spec
            and value == spec["default"]
            and (not isinstance(stored, dict) or stored.get(name) is None)
        ):
            continue  # what the read shows anyway, and the store does not hold
        out[name] = _walk(spec, value, _member(stored, name), fill) if isinstance(value, (dict, list)) else value
    if fill:
        for name, default in _plan(specs)[1]:
            if out.get(name) is None:
                out[name] = copy.deepcopy(default) if isinstance(default, (dict, list)) else default
    return out


def with_defaults(attributes: dict, obj: dict) -> dict:
    """`obj` (an entity's attributes in 1.0 names) with every default the model's `attributes` declare for it and
    for the objects it holds filled in where no value was given."""
    return _object(attributes, obj, None, fill=True) if isinstance(obj, dict) else obj


def without_shown_defaults(attributes: dict, given: dict, stored: dict | None) -> dict:
    """A 1.0 write's attributes `given` for an entity whose stored attributes (1.0 names, no defaults filled) are
    `stored`: less each value equal to its default where the store holds no value, so that writing back what a read
    showed changes nothing. A new entity (`stored` None) keeps everything it is given."""
    if stored is None or not isinstance(given, dict):
        return given
    return _object(attributes, given, stored, fill=False)


def group_model(v1_plural: str) -> dict:
    return declared(v1_plural).get("attributes") or {}


def resource_model(v1_plural: str, v1_rplural: str) -> dict:
    return declared(v1_plural, v1_rplural).get("attributes") or {}


def declares_defaults(attributes) -> bool:
    """Whether any attribute in `attributes` (at any depth) has a `default`."""
    if isinstance(attributes, dict):
        return (
            "default" in attributes and "name" in attributes or any(declares_defaults(v) for v in attributes.values())
        )
    if isinstance(attributes, list):
        return any(declares_defaults(v) for v in attributes)
    return False
