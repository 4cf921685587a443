"""References inside a registry document: `#/...` JSON pointers and this registry's own URLs must resolve.

A reference may end in `:Name` (an Avro record or Protobuf message inside a schema); ids cannot hold `:`,
so the suffix is stripped to find the entity. A pointer that does not resolve inside the document may
name an entity already stored. References are kept as written; one that names nothing is a warning of the
import (the store holds such references after a forced delete, and its exports must import again).
"""

from __future__ import annotations

from ..model import registry_model
from ..models import Group, Resource, Version


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


def _in_document(doc: dict, segments: list[str]) -> bool:
    node = doc
    for segment in segments:
        if isinstance(node, dict) and segment in node:
            node = node[segment]
        elif isinstance(node, dict) and "versions" not in node and segment == "versions":
            return False
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


def check_references(doc: dict, base_url: str) -> list[dict]:
    """The document's references that name no entity, in the document or in the store, as {path, reason}."""
    errors = []
    opaque = opaque_keys()
    own_prefix = (base_url.rstrip("/") + "/") if base_url else None
    stack = [(doc, "")]
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
            if node.startswith("#/"):
                segments = _segments(node)
            elif own_prefix and node.startswith(own_prefix):
                segments = _segments(node[len(own_prefix) :])
            else:
                continue
            if not (_in_document(doc, segments) or stored(segments)):
                errors.append({"path": path, "reason": f"reference {node!r} does not resolve; kept as written"})
    return sorted(errors, key=lambda e: e["path"])
