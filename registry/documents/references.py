"""References inside a registry document: `#/...` JSON pointers and this registry's own URLs must resolve.

A reference may end in `:Name` (an Avro named type or a Protobuf message inside a schema); ids cannot hold `:`, so
the suffix is stripped to find the entity, and then the name must name something in that version's document (the
latest version's, when the reference names a schema): a check the app of the resource type registers
(registry/domain/reference_parts.py), which says what it cannot tell (another format) as found. A pointer that does not resolve
inside the document may name an entity already stored. References are kept as written. One that names nothing is
refused by an import (CONTRACT 18: 400 naming each), or, when the import is forced (`?force=true`, `--force`),
imported as written and listed in the report's warnings: the store holds such references after a forced delete, and
a backup of it must import again.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..domain.attributes import version_sort_key
from ..domain.model import registry_model
from ..domain.reference_parts import part_checks
from ..models import Group, Resource, Version


@dataclass(frozen=True)
class Unresolved:
    """A reference that names nothing: where it is (`path`: its JSON path in the document or entity), what it says,
    and why."""

    path: str
    reference: str
    why: str

    def as_error(self) -> dict:
        return {"path": self.path, "reason": f"reference {self.reference!r} {self.why}"}

    def as_warning(self) -> dict:
        return {"path": self.path, "reason": f"reference {self.reference!r} {self.why}; kept as written"}


def opaque_keys() -> set[str]:
    """Members whose values are documents, not registry data (their own `#/...` refs are theirs): every type's
    base64 member, and the inline document of types whose documents are not made of registry attributes (a
    schema; a definition's document is, so the references inside it are checked)."""
    keys = {"$ref"}
    for gt in registry_model.group_types:
        for rt in gt.resources:
            keys.add(rt.base64_attribute)
            if not rt.shared_attributes:
                keys.add(rt.singular)
    return keys


def _segments(pointer: str) -> list[str]:
    body = pointer[2:] if pointer.startswith("#/") else pointer
    body = body.split(":", 1)[0]  # ids hold no ':'; what follows names a record/message (may hold '/')
    return [s.replace("~1", "/").replace("~0", "~") for s in body.split("/") if s != ""]


def _part(pointer: str) -> str | None:
    """What follows the ids after `:` (None: nothing)."""
    return (pointer.split(":", 1)[1].strip("/") or None) if ":" in pointer else None


def _in_document(doc: dict, segments: list[str]) -> bool:
    node = doc
    for segment in segments:
        if isinstance(node, dict) and segment in node:
            node = node[segment]
        else:
            return False
    return True


def stored(segments: list[str]) -> bool:
    """Does the API path made of these segments name an entity in the database?"""
    if not segments:
        return True
    gt = registry_model.get(segments[0])
    if gt is None:
        return False
    if len(segments) == 1:
        return True
    groups = Group.objects.filter(group_type=gt.plural, gid=segments[1])
    if len(segments) == 2:
        return groups.exists()
    if segments[2] not in gt.resources_by_plural:
        return False
    if len(segments) == 3:
        return groups.exists()
    resources = Resource.objects.filter(group__in=groups, resource_type=segments[2], rid=segments[3])
    if len(segments) == 4:
        return resources.exists()
    if segments[4] != "versions":
        return False
    if len(segments) == 5:
        return resources.exists()
    return len(segments) == 6 and Version.objects.filter(resource__in=resources, vid=segments[5]).exists()


def references_in(node, path: str = "") -> Iterator[tuple[str, str]]:
    """(JSON path, value) of every string in `node` (a document, an entity's attributes), but inside the members
    that hold documents (`opaque_keys`)."""
    opaque = opaque_keys()
    stack = [(node, path)]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if key not in opaque:
                    stack.append((value, f"{path}/{key}"))
        elif isinstance(node, list):
            for index, value in enumerate(node):
                stack.append((value, f"{path}/{index}"))
        elif isinstance(node, str):
            yield path, node


# (attributes, document) of a version, and maybe more after them (`stored_version`'s id), or None: not known here
VersionOf = Callable[[list[str]], tuple[dict, bytes | None] | tuple[dict, bytes | None, str] | None]


def unresolved(
    strings: Iterator[tuple[str, str]],
    base_url: str,
    *,
    exists: Callable[[list[str]], bool],
    version_of: VersionOf,
) -> list[Unresolved]:
    """The references among `strings` ((path, value) pairs: `references_in`) that name nothing: an entity that
    `exists` (its path's segments) says is not there, or a `:Name` that names nothing in the document of the version
    `version_of` gives ((its attributes, its document); None: not known here, not checked)."""
    own_prefix = (base_url.rstrip("/") + "/") if base_url else None
    found = []
    for path, node in strings:
        if node.startswith("#/"):
            rest = node[1:]
        elif own_prefix and node.startswith(own_prefix):
            rest = node[len(own_prefix) - 1 :]
            if registry_model.get(_segments(rest)[0] if _segments(rest) else "") is None:
                continue  # a page of this server that is no entity (the root, `docs` of the admin, ...): no reference
        else:
            continue
        segments = _segments(rest)
        if not exists(segments):
            found.append(Unresolved(path, node, "does not resolve"))
            continue
        name = _part(rest)
        why = _part_problem(segments, name, version_of) if name is not None else None
        if why is not None:
            found.append(Unresolved(path, node, f"does not resolve: {why}"))
    return sorted(found, key=lambda u: (u.path, u.reference))


def _part_problem(segments: list[str], name: str, version_of: VersionOf) -> str | None:
    if len(segments) not in (4, 6):
        return None
    gt = registry_model.get(segments[0])
    rt = gt.resources_by_plural.get(segments[2]) if gt is not None else None
    check = part_checks.get((gt.plural, rt.plural)) if gt is not None and rt is not None else None
    if check is None:
        return None
    version = version_of(segments)
    if version is None or version[1] is None:
        return None
    return check(version[0], version[1], name)


def check_references(doc: dict, base_url: str) -> list[Unresolved]:
    """The document's references that name no entity, in the document or in the store (or a `:Name` that names
    nothing in the version's document)."""
    return unresolved(
        references_in(doc),
        base_url,
        exists=lambda segments: _in_document(doc, segments) or stored(segments),
        version_of=lambda segments: document_version(doc, segments) or stored_version(segments),  # (its first two)
    )


def document_version(doc: dict, segments: list[str]) -> tuple[dict, bytes | None] | None:
    """(attributes, document) of the version at `segments` (a resource's: its latest) as the registry document `doc`
    holds it (None when it does not hold it; the document None when it is kept elsewhere or cannot be read)."""
    gt = registry_model.get(segments[0])
    rt = gt.resources_by_plural.get(segments[2]) if gt is not None else None
    if gt is None or rt is None:
        return None
    group = (doc.get(gt.plural) or {}).get(segments[1]) if isinstance(doc.get(gt.plural), dict) else None
    resources = group.get(rt.plural) if isinstance(group, dict) else None
    resource = resources.get(segments[3]) if isinstance(resources, dict) else None
    if not isinstance(resource, dict):
        return None
    versions = resource.get("versions")
    if isinstance(versions, dict):
        vid = segments[5] if len(segments) == 6 else max(versions, key=version_sort_key, default=None)
        data = versions.get(vid) if vid is not None else None
    else:
        data = resource if len(segments) == 4 or segments[5] == "1" else None  # a resource held as its one version
    if not isinstance(data, dict):
        return None
    attributes = {**{k: v for k, v in resource.items() if k != "versions"}, **data}
    return attributes, version_document(rt, data)


def version_document(rt, data: dict) -> bytes | None:
    """The document of a version as a registry document holds it (as the importer reads it), None when it has none
    here (kept elsewhere) or it cannot be read."""
    if rt.base64_attribute in data:
        try:
            return base64.b64decode(data[rt.base64_attribute], validate=True)
        except (binascii.Error, ValueError, TypeError):
            return None
    value = data.get(rt.singular)
    if value is None:
        return None
    return value.encode() if isinstance(value, str) else json.dumps(value, ensure_ascii=False).encode()


def stored_version(segments: list[str]) -> tuple[dict, bytes | None, str] | None:
    """(attributes, document, version id) of the stored version at `segments` (a resource's: its latest), None when
    there is none."""
    resource = (
        Resource.objects.filter(
            group__group_type=segments[0], group__gid=segments[1], resource_type=segments[2], rid=segments[3]
        )
        .select_related("latest")
        .first()
    )
    if resource is None:
        return None
    version = resource.latest if len(segments) == 4 else resource.versions.filter(vid=segments[5]).first()
    if version is None:
        return None
    attributes = {**resource.extensions, **version.extensions}
    if "format" not in version.extensions and resource.latest is not None:
        attributes.setdefault("format", resource.latest.extensions.get("format"))
    return attributes, bytes(version.content) if version.content is not None else None, version.vid
