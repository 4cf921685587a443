"""Whole registry documents between the 1.0 shape and the stored 0.5 shape (import and export of `/registry`).

`to_v05_document` turns a 1.0 document (`POST /registry/`, `xr import`, a 1.0 sync source) into the 0.5
document the importer reads, so that it is validated and written by the same code as a 0.5 import. The other way,
an entity's stored attributes in 1.0 names (`group_to_v10`, `version_to_v10`), is what the 1.0 representations
(representations.py) and its export are built from. Server-owned attributes (`self`, `xid`, `epoch`,
timestamps, `*url`, `*count`, `isdefault`, `ancestorid` ...) are not part of either: the caller adds them
from the stored rows where a view needs them.
"""

from __future__ import annotations

from ...documents.exports import document_head
from ...domain.attributes import OWNERS, V10_SERVER_OWNED, case_error
from ...domain.extension_attributes import meta_names, registered
from .capabilities import attribute_names
from .document_view import VALIDATED
from .errors import DocumentError
from .flags import SPEC_VERSIONS
from .mapping import (
    COMMON_TO_V05,
    COMMON_TO_V10,
    GroupMapping,
    ResourceMapping,
    refuse_v05_names,
    translated,
    v1_mappings,
)

SPEC_VERSION = SPEC_VERSIONS[0]  # the one this server serves
# attributes a server owns: ignored when they arrive in a 1.0 request or document
SERVER_OWNED = {"self", "shortself", "epoch", *V10_SERVER_OWNED, "metaurl", "versionsurl", "versionscount",
                "isdefault", "defaultversionurl", *VALIDATED}  # fmt: skip
META_ATTRIBUTES = ("defaultversionid", "defaultversionsticky", "readonly", "compatibility", "xref")


def meta_attribute_names(rm: ResourceMapping) -> tuple[str, ...]:
    """The attributes of a resource type's `meta`: the core's, and those apps register for it
    (registry/domain/extension_attributes.py)."""
    return META_ATTRIBUTES + meta_names(rm.plural)


def group_names(gm: GroupMapping) -> set[str]:
    """What the 1.0 binding calls a group's attributes: the model's, the server's, `owners` and its collections."""
    names = attribute_names(gm.v1_plural) | SERVER_OWNED | {OWNERS, *registered.get((gm.plural, None), {})}
    for rm in gm.resources:
        names |= {rm.v1_plural, f"{rm.v1_plural}url", f"{rm.v1_plural}count"}
    return names


def version_names(rm: ResourceMapping) -> set[str]:
    """What the 1.0 binding calls a resource's or version's attributes: the model's, the server's, its `meta` and
    `versions`, and its document's (`schema`, `schemaurl`, `schemabase64`)."""
    gm = next(gm for gm in v1_mappings.values() if any(r is rm for r in gm.resources))
    names = attribute_names(gm.v1_plural, rm.v1_plural) | SERVER_OWNED | {"meta", "versions", *meta_names(rm.plural)}
    if rm.hasdocument:
        names |= {rm.v1_singular, f"{rm.v1_singular}url", f"{rm.v1_singular}base64"}
    return names


def refuse_case_variants(attrs: dict, known: set[str], where: str) -> None:
    """A name that differs from one the 1.0 binding gives the entity only by case (`CreatedAt`, `OWNERS`) is an
    error naming both, never an extension stored beside the real attribute. Checked against the 1.0 names before
    the translation; the services check the stored (0.5-wip) names after it."""
    lowered = {name.lower(): name for name in known}
    for name in attrs:
        if isinstance(name, str) and name not in known and name.lower() in lowered:
            raise DocumentError(where, case_error(name, lowered[name.lower()]))


def _strip(attrs: dict, collections: set[str], *extra: str) -> dict:
    """The attributes of a request or document entity less what the server owns (its links and counts)."""
    drop = set(SERVER_OWNED) | set(extra)
    for name in collections | {"versions", "meta"}:
        drop |= {name, f"{name}url", f"{name}count"}
    return {k: v for k, v in attrs.items() if k not in drop}


def _version_to_v05(rm: ResourceMapping, vid: str, data: dict) -> dict:
    if not isinstance(data, dict):
        raise DocumentError(vid, "a version must be an object")
    refuse_case_variants(data, version_names(rm), vid)
    attrs = _strip(data, set(), f"{rm.v1_singular}id")
    refuse_v05_names(attrs, rm.v05_only, vid)
    attrs.pop("versionid", None)
    attrs.pop("ancestorid", None)
    attrs.pop("contenttype", None)  # the media type of an imported document is found again from its format
    if rm.hasdocument:
        out = {COMMON_TO_V05.get(k, k): v for k, v in attrs.items()}
        for suffix in ("base64", "url"):
            key = f"{rm.v1_singular}{suffix}"
            if key in out:
                out[f"{rm.v1_singular}{'Base64' if suffix == 'base64' else 'URI'}"] = out.pop(key)
    else:
        out = translated(attrs, rm.to_v05, to_v05=True)
    return {"id": vid, **out}


def _resource_to_v05(rm: ResourceMapping, rid: str, data: dict) -> dict:
    if not isinstance(data, dict):
        raise DocumentError(rid, "a resource must be an object")
    given_meta = data.get("meta")
    meta = given_meta if isinstance(given_meta, dict) else {}
    versions = data.get("versions")
    if versions is None:  # the resource holds its one (default) version's attributes
        own = {k: v for k, v in data.items() if k not in ("meta", "versions")}
        vid = str(own.pop("versionid", "1"))
        versions = {vid: own}
    elif not isinstance(versions, dict):
        raise DocumentError(f"{rid}.versions", "must be a map of versions")
    else:
        refuse_case_variants(data, version_names(rm), rid)
    converted = {vid: _version_to_v05(rm, vid, vdata) for vid, vdata in versions.items()}
    out: dict[str, object] = {"id": rid, "versions": converted}
    if not rm.hasdocument:  # a definition is its document: flat when it has one version, else each is `RESOURCE`
        if len(converted) == 1:
            ((vid, only),) = converted.items()
            out = {**{k: v for k, v in only.items() if k != "id"}, "id": rid}
        else:
            out["versions"] = {
                vid: {"id": vid, rm.singular05: {k: v for k, v in data.items() if k != "id"}}
                for vid, data in converted.items()
            }
    # `readonly` is the server's
    for key in ("defaultversionid", "defaultversionsticky", "compatibility", "xref", *meta_names(rm.plural)):
        value = meta.get(key, data.get(key) if key != "defaultversionid" or data.get("defaultversionsticky") else None)
        if key == "defaultversionid" and not (meta.get("defaultversionsticky") or data.get("defaultversionsticky")):
            continue  # a default that is not sticky is the latest version: nothing to keep
        if value is not None and not (key == "defaultversionsticky" and value is False):
            out[key] = value
    return out


def _group_to_v05(gm: GroupMapping, gid: str, data: dict) -> dict:
    if not isinstance(data, dict):
        raise DocumentError(gid, "a group must be an object")
    refuse_case_variants(data, group_names(gm), gid)
    collections = {r.v1_plural for r in gm.resources}
    attrs = _strip(data, collections, f"{gm.v1_singular}id")
    refuse_v05_names(attrs, gm.v05_only, gid)
    out = {"id": gid, **translated(attrs, gm.to_v05, to_v05=True)}
    for rm in gm.resources:
        resources = data.get(rm.v1_plural)
        if resources is None:
            continue
        if not isinstance(resources, dict):
            raise DocumentError(f"{gid}.{rm.v1_plural}", "must be a map of resources")
        out[rm.plural] = {rid: _resource_to_v05(rm, rid, r) for rid, r in resources.items()}
    return out


def to_v05_document(doc: dict) -> dict:
    """A 1.0 registry document -> the 0.5 document of the same entities."""
    if not isinstance(doc, dict):
        raise DocumentError("/", "a registry document must be a JSON object")
    out: dict[str, object] = document_head()
    for key, value in doc.items():
        if (
            key in ("$schema", "specversion", "registryid", "capabilities", "model", "modelsource")
            or key in SERVER_OWNED
            or key.endswith(("url", "count"))
        ):
            continue
        gm = v1_mappings.get(key)
        if gm is None:
            out[COMMON_TO_V05.get(key, key)] = value
            continue
        if not isinstance(value, dict):
            raise DocumentError(key, "must be a map of groups")
        out[gm.plural] = {gid: _group_to_v05(gm, gid, g) for gid, g in value.items()}
    return out


def version_to_v10(rm: ResourceMapping, attrs: dict) -> dict:
    """The stored attributes of one version (0.5 names, no ids) in 1.0 names."""
    if rm.hasdocument:
        return {COMMON_TO_V10.get(k, k): v for k, v in attrs.items()}
    return translated(attrs, rm.to_v10, to_v05=False)


def group_to_v10(gm: GroupMapping, attrs: dict) -> dict:
    return translated(attrs, gm.to_v10, to_v05=False)
