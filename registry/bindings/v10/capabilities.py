"""`/registry/model`, `/registry/modelsource`, `/registry/capabilities` and `/capabilitiesoffered`.

The model is fixed: the app that owns the types registers the 1.0 model source it serves
(`register_model_source`); the engine adds the core attributes every level has to make `/model`. The
capabilities state what this binding supports and nothing more; changing them or the model is refused.
"""

from __future__ import annotations

import copy

from ...domain.extension_attributes import resource_attributes
from ...domain.model import COMPATIBILITY_LEVELS, effective_compatibility, registry_model
from .flags import SPEC_VERSIONS, offered_flags
from .mapping import v1_mappings

_model_source: dict = {"groups": {}}
# the formats whose versions are compared for compatibility (catalog.validators.compatibility.CHECKED_FAMILIES)
COMPARED_FORMATS = ("jsonschema*", "avro*", "protobuf*")

CORE_ATTRIBUTES: dict[str, dict[str, object]] = {
    "self": {"name": "self", "type": "url", "readonly": True, "immutable": True, "required": True},
    "xid": {"name": "xid", "type": "xid", "readonly": True, "immutable": True, "required": True},
    "epoch": {"name": "epoch", "type": "uinteger", "readonly": True, "required": True},
    "name": {"name": "name", "type": "string"},
    "description": {"name": "description", "type": "string"},
    "documentation": {"name": "documentation", "type": "url"},
    "icon": {"name": "icon", "type": "url"},
    "labels": {"name": "labels", "type": "map", "item": {"type": "string"}},
    "createdat": {"name": "createdat", "type": "timestamp", "required": True},
    "modifiedat": {"name": "modifiedat", "type": "timestamp", "required": True},
}
VERSION_ATTRIBUTES: dict[str, dict[str, object]] = {
    "versionid": {"name": "versionid", "type": "string", "immutable": True, "required": True},
    "isdefault": {"name": "isdefault", "type": "boolean", "readonly": True, "required": True, "default": False},
    "ancestorid": {"name": "ancestorid", "type": "string", "required": True},
    "contenttype": {"name": "contenttype", "type": "string"},
}
META_ATTRIBUTES: dict[str, dict[str, object]] = {
    "readonly": {"name": "readonly", "type": "boolean", "readonly": True, "required": True, "default": False},
    "compatibility": {"name": "compatibility", "type": "string"},
    "defaultversionid": {"name": "defaultversionid", "type": "string", "required": True},
    "defaultversionurl": {"name": "defaultversionurl", "type": "url", "readonly": True, "required": True},
    "defaultversionsticky": {"name": "defaultversionsticky", "type": "boolean", "required": True, "default": False},
    "xref": {"name": "xref", "type": "url"},
}


_resolved: dict | None = None


def register_model_source(source: dict) -> None:
    global _model_source, _resolved
    _model_source = source
    _resolved = None


def resolved_groups() -> dict:
    """The model source's groups with each `ximportresources` processed: the Resource types it names (`endpoints`
    import `/messagegroups/messages`) added to the group's own, the directive itself gone (core/model.md: "servers
    MUST process any `ximportresources` found in the `modelsource` data and the results MUST be reflected in the
    `model`, but the `ximportresources` directive MUST NOT appear in the `model` serialization"). Computed once;
    callers do not change it."""
    global _resolved
    if _resolved is not None:
        return _resolved
    source = _model_source.get("groups", {})
    out = {}
    for plural, group in source.items():
        g = copy.deepcopy(group)
        imported = g.pop("ximportresources", None) or []
        for xidtype in imported:
            parts = xidtype.strip("/").split("/") if isinstance(xidtype, str) else []
            found = (source.get(parts[0]) or {}).get("resources", {}).get(parts[1]) if len(parts) == 2 else None
            if found is not None:
                g.setdefault("resources", {}).setdefault(parts[1], copy.deepcopy(found))
        out[plural] = g
    _resolved = out
    return out


def _declared_names(attributes: dict) -> set[str]:
    """The names of an entity's attributes in a model's `attributes`, with those an attribute's `ifvalues` add
    beside it (`envelopeoptions` when `envelope` is CloudEvents/1.0); not `*` (any extension)."""
    names = set()
    for name, attribute in (attributes or {}).items():
        if name != "*":
            names.add(name)
        for case in ((attribute or {}).get("ifvalues") or {}).values():
            names |= _declared_names((case or {}).get("siblingattributes") or {})
    return names


def declared(v1_plural: str, rplural: str | None = None) -> dict:
    """What the model source declares of the group type `v1_plural` (or of its resource type `rplural`), its
    `ximportresources` processed; {} for a type it does not declare."""
    group = resolved_groups().get(v1_plural) or {}
    return group if rplural is None else (group.get("resources") or {}).get(rplural) or {}


def attribute_names(v1_plural: str, rplural: str | None = None) -> set[str]:
    """The names of the attributes the model gives a group of `v1_plural` (or a version of its `rplural`): the
    core attributes, the id and the model source's own; a version's also those of versions and its resource's
    `meta`."""
    found = declared(v1_plural, rplural)
    names = {f"{found.get('singular')}id", *CORE_ATTRIBUTES, *_declared_names(found.get("attributes") or {})}
    return names if rplural is None else names | {*VERSION_ATTRIBUTES, *META_ATTRIBUTES}


def modelsource_json() -> dict:
    return copy.deepcopy(_model_source)


def _with_core(attributes: dict, id_name: str, extra: dict | None = None) -> dict:
    out = {id_name: {"name": id_name, "type": "string", "immutable": True, "required": True}}
    out.update(CORE_ATTRIBUTES)
    out.update(extra or {})
    out.update({k: ({"name": k, **v} if "name" not in v else v) for k, v in (attributes or {}).items()})
    return out


def meta_attributes(plural: str, rplural: str) -> dict:
    """The `meta` attributes of a resource type, `compatibility`'s default the one that applies when a resource and
    its group set none: the registry's (REGISTRY_DEFAULT_COMPATIBILITY) for types with compatibility rules, unless it
    is `none` (no level, CONTRACT 18); and the attributes apps register for it (registry/domain/extension_attributes.py)."""
    out = copy.deepcopy(META_ATTRIBUTES)
    gm = v1_mappings.get(plural)
    rm = gm.by_v1_plural.get(rplural) if gm is not None else None
    rt = registry_model[gm.plural].resource_type(rm.plural) if rm is not None and gm is not None else None
    if rt is not None and rt.compatibility_levels is not None and effective_compatibility() != "none":
        out["compatibility"]["default"] = effective_compatibility()
    if rm is not None:
        for name, attribute in resource_attributes(rm.plural).items():
            out[name] = {"name": name, **copy.deepcopy(attribute.model)}
    return out


def model_json() -> dict:
    """The model source with every level's core attributes (core/spec.md "Registry Model")."""
    model = {
        "attributes": _with_core(
            {},
            "registryid",
            {"specversion": {"name": "specversion", "type": "string", "readonly": True, "required": True}},
        ),
        "groups": {},
    }
    for plural, group in resolved_groups().items():
        g = copy.deepcopy(group)
        g["plural"] = plural
        g["attributes"] = _with_core(group.get("attributes"), f"{group['singular']}id")
        resources = {}
        for rplural, resource in (group.get("resources") or {}).items():
            r = copy.deepcopy(resource)
            r["plural"] = rplural
            r.setdefault("maxversions", 0)
            # rc4's default algorithm: the newest version is the one no other names as its ancestor, and each version's
            # ancestor is the one before it by id (attributes.version_sort_key), so the newest is the seed's latest
            r["versionmode"] = "manual"
            r.setdefault("setversionid", True)
            r.setdefault("hasdocument", True)
            r.setdefault("singleversionroot", False)
            r["attributes"] = _with_core(resource.get("attributes"), f"{resource['singular']}id", VERSION_ATTRIBUTES)
            r["metaattributes"] = _with_core({}, f"{resource['singular']}id", meta_attributes(plural, rplural))
            resources[rplural] = r
        if resources:
            g["resources"] = resources
        model["groups"][plural] = g
    return model


def capabilities() -> dict:
    """The capabilities of rc4 (core/spec.md "Registry Capabilities"), exactly its keys: `xr` decodes them
    strictly and refuses any other."""
    return {
        "available": {
            "capabilities": {"mutable": False},
            "capabilitiesoffered": {"mutable": False},
            "entities": {"mutable": True},
            "export": {"mutable": False},
            "model": {"mutable": False},
            "modelsource": {"mutable": False},
        },
        # the formats whose versions are compared, and their levels (`none` is no level: CONTRACT 18)
        "compatibilities": {fmt: [lv for lv in COMPATIBILITY_LEVELS if lv != "none"] for fmt in COMPARED_FORMATS},
        "flags": offered_flags(),  # those the views declare (flags.LEVELS), as the OpenAPI description does
        "formats": ["jsonschema*", "avro*", "protobuf*", "xmlschema*", "xsd*"],
        "ignores": [],
        "pagination": True,
        "shortself": False,
        "specversions": list(SPEC_VERSIONS[:1]),
        "versionmodes": ["manual"],
    }


def capabilities_offered() -> dict:
    """Each capability with the values this server offers (none of them can be changed)."""
    out = {}
    for key, value in capabilities().items():
        if isinstance(value, bool):
            out[key] = {"type": "boolean", "enum": [value]}
        elif isinstance(value, list):
            out[key] = {"type": "string", "enum": value}
        else:
            out[key] = {"type": "object", "enum": sorted(value)}
    return out
