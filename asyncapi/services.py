"""Importing AsyncAPI documents into the registry: every door (`POST /registry/asyncapi`, the admin's import
page, `manage.py import_asyncapi`) calls `import_asyncapi`.

Each document is read (JSON or YAML), checked against the official AsyncAPI JSON Schema of its version, its
references followed, and mapped (`mapping.py`) into one registry document, which the registry's document importer
writes through the registry's services: validation, compatibility checks, epochs and change events as for any other
write, all documents in one transaction, nothing written when anything fails. Errors name the place in the AsyncAPI
document (`FILE#POINTER`) and the registry entity.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction

from registry.access import permissions
from registry.documents.flatten import default_media_type
from registry.documents.imports import import_document
from registry.documents.precheck import check_size
from registry.domain.errors import Problem
from registry.domain.model import registry_model
from registry.services import EntityAddress, VersionInput, WriteContext, check_new_version

from . import selectors
from .mapping import Mapped, map_document
from .reading import read_document
from .sources import AsyncAPIError, Resolver, Source
from .validators.specs import VERSIONS, schema_errors

V1_NAMES = (
    ("/definitionGroups/", "/messagegroups/"),
    ("/definitions/", "/messages/"),
    ("/schemaGroups/", "/schemagroups/"),
)


def v1_path(path: str) -> str:
    """An entity path of the store in the names of the xRegistry 1.0 binding, whose door this is."""
    for old, new in V1_NAMES:
        path = path.replace(old, new)
    return path


@dataclass
class AsyncAPIReport:
    """What an import created, updated and left unchanged (1.0 entity paths), and the documents it read."""

    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    documents: list[dict] = field(default_factory=list)  # {name, asyncapi, title, version}
    dry_run: bool = False

    def as_json(self) -> dict:
        out = {"created": self.created, "updated": self.updated, "unchanged": self.unchanged}
        if self.dry_run:
            out["dryrun"] = True
        return out


def _component_count(root: dict) -> int:
    """Channels, operations, servers and component messages and schemas: what one request may have to map."""
    count = 0
    for key in ("channels", "operations", "servers"):
        if isinstance(root.get(key), dict):
            count += len(root[key])
    components = root.get("components")
    if isinstance(components, dict):
        for key in ("messages", "schemas"):
            if isinstance(components.get(key), dict):
                count += len(components[key])
    return count


def read_source(source: Source, *, group_prefix: str | None, max_entities: int) -> tuple[Mapped, dict]:
    """One AsyncAPI document as a mapped registry document, with a summary of it; AsyncAPIError/Problem when it
    is not a valid AsyncAPI document of a version in VERSIONS (2.6, 3.0, 3.1) or cannot be mapped."""
    resolver = Resolver(source)
    root = resolver.root
    if not isinstance(root, dict):
        raise AsyncAPIError(source.name, "an AsyncAPI document is one object (a JSON object or a YAML mapping)")
    version = root.get("asyncapi")
    if version not in VERSIONS:
        raise AsyncAPIError(
            f"{source.name}#/asyncapi",
            f"AsyncAPI {version!r} is not supported: the registry imports AsyncAPI {', '.join(VERSIONS)}",
        )
    count = _component_count(root)
    if count > max_entities:
        raise Problem(
            "too-large",
            f"{source.name} describes {count} channels, operations, servers and components; one import takes at "
            f"most {max_entities} entities (REGISTRY_IMPORT_MAX_ENTITIES): split it",
        )
    errors = schema_errors(root, version)
    if errors:
        errors = [{"path": source.name + e["path"], "reason": e["reason"]} for e in errors]
        raise Problem(
            "invalid-document",
            f"{source.name} is not a valid AsyncAPI {version} document ({len(errors)} error(s)); first: "
            f"{errors[0]['path']}: {errors[0]['reason']}",
            errors=errors,
        )
    document = read_document(resolver)
    summary = {"name": source.name, "asyncapi": version, "title": document.title, "version": document.info_version}
    return map_document(document, resolver, prefix=group_prefix), summary


def merge_mapped(parts: list[Mapped]) -> Mapped:
    """The registry documents of several AsyncAPI documents as one; the same entity twice must be the same."""
    if len(parts) == 1:
        return parts[0]
    out = Mapped(dict(parts[0].document), dict(parts[0].places), set(parts[0].exported_endpoints))
    for part in parts[1:]:
        out.exported_endpoints |= part.exported_endpoints
        for plural, groups in part.document.items():
            if not isinstance(groups, dict):
                continue
            mine = out.document.setdefault(plural, {})
            for gid, group in groups.items():
                if gid not in mine:
                    mine[gid] = group
                    continue
                merged = _merge_group(plural, mine[gid], group, gid)
                if merged is None:
                    place = part.places.get(f"/{plural}/{gid}", gid)
                    first = out.places.get(f"/{plural}/{gid}", gid)
                    raise AsyncAPIError(
                        place, f"{v1_path(f'/{plural}/{gid}')} is also described, differently, at {first}"
                    )
                mine[gid] = merged
        for path, place in part.places.items():
            out.places.setdefault(path, place)
    return out


def _merge_group(plural: str, a: dict, b: dict, gid: str) -> dict | None:
    if a == b:
        return a
    if plural != "schemaGroups":
        return None
    schemas = dict(a.get("schemas") or {})
    for sid, schema in (b.get("schemas") or {}).items():
        if sid in schemas and schemas[sid].get("format") != schema.get("format"):
            return None
        if sid in schemas:
            versions = dict(schemas[sid]["versions"])
            for vid, version in schema["versions"].items():
                if vid in versions and versions[vid] != version:
                    return None
                versions[vid] = version
            schemas[sid] = {**schemas[sid], "versions": versions}
        else:
            schemas[sid] = schema
    return {**a, "schemas": schemas}


def _placed(problem: Problem, places: dict[str, str]) -> Problem:
    """The importer's refusal with each error at its place in the AsyncAPI document."""

    def place_of(path: str) -> str | None:
        while path:
            if path in places:
                return places[path]
            path = path.rsplit("/", 1)[0]
        return None

    errors = []
    for error in problem.errors or [{"path": "", "reason": problem.detail}]:
        if not isinstance(error, dict):
            error = {"path": "", "reason": str(error)}
        path = str(error.get("path", ""))
        reason = str(error.get("reason", ""))
        place = place_of(path)
        errors.append({"path": place or v1_path(path), "entity": v1_path(path), "reason": v1_path(reason)})
    first = errors[0]
    detail = (
        f"{len(errors)} error(s), nothing was imported; first: {first['path']} ({first['entity']}): {first['reason']}"
    )
    return Problem(problem.kind, detail, errors=errors, status=problem.status)


def _check_compatibility(ctx: WriteContext, doc: dict, places: dict[str, str]) -> None:
    """A new version of a stored schema checked first with the services' own dry run (`check_new_version`), so
    that a breaking payload change is refused as any incompatible version is (409 `incompatible-version`, in the
    1.0 binding `compatibility_violation`), with each incompatibility at its place in the AsyncAPI document."""
    rt = registry_model["schemaGroups"].resource_type("schemas")
    guess = rt.media_type_for or (lambda _attrs, content: default_media_type(content))
    errors = []
    for sg, group in (doc.get("schemaGroups") or {}).items():
        schemas = group.get("schemas") or {}
        stored = selectors.stored_versions(sg, list(schemas))
        for sid, schema in schemas.items():
            for vid, version in (schema.get("versions") or {}).items():
                if sid not in stored or vid.lower() in stored[sid] or "schema" not in version:
                    continue
                value = version["schema"]
                content = value.encode() if isinstance(value, str) else json.dumps(value, ensure_ascii=False).encode()
                attributes = {"format": schema["format"]} if schema.get("format") else {}
                inp = VersionInput(
                    document=content, media_type=guess(attributes, content), attributes=attributes, version_id=vid
                )
                try:
                    check_new_version(ctx=ctx, address=EntityAddress("schemaGroups", sg, "schemas", sid), data=inp)
                except Problem as problem:
                    if problem.kind != "incompatible-version":
                        continue  # the import reports it, with every other error
                    entity = f"/schemaGroups/{sg}/schemas/{sid}/versions/{vid}"
                    for item in problem.errors or [{"reason": problem.detail}]:
                        item = item if isinstance(item, dict) else {"reason": str(item)}
                        errors.append(
                            {
                                "path": places.get(entity, v1_path(entity)),
                                "entity": v1_path(entity),
                                **{k: v for k, v in item.items() if k != "path"},
                                "schemapath": item.get("path", ""),
                            }
                        )
    if errors:
        first = errors[0]
        raise Problem(
            "incompatible-version",
            f"{len(errors)} incompatibility(ies), nothing was imported; first: {first['path']} ({first['entity']}): "
            f"{first['schemapath']}: {first.get('reason', '')}",
            errors=errors,
        )


def _may_write_something(ctx: WriteContext) -> None:
    """403 before any document is read (and any remote `$ref` with it) unless the caller may write somewhere: model
    permissions, or a role that writes in some group (registry.access.permissions). Each entity is still checked when it is
    written; this keeps a signed-in reader from making the server read the prefixes of REGISTRY_ASYNCAPI_REMOTE_REFS."""
    actor = ctx.actor
    if actor is None:  # the system (the command)
        return
    if any(
        permissions.allowed(actor, kind, op) for kind in ("group", "resource", "version") for op in ("create", "update")
    ):
        return
    raise Problem(
        "forbidden",
        "importing AsyncAPI documents needs the right to write to this registry: model permissions, or the role "
        "editor or owner in a group",
    )


def import_asyncapi(
    *,
    ctx: WriteContext,
    sources: list[Source],
    group_prefix: str | None = None,
    dry_run: bool = False,
) -> AsyncAPIReport:
    """Import AsyncAPI documents, all or nothing. `group_prefix`: the prefix of the ids of the groups the
    documents create (None: each document's title in PascalCase). `dry_run`: the same checks and report, with
    nothing kept."""
    if not sources:
        raise Problem("bad-request", "no AsyncAPI document to import")
    _may_write_something(ctx)
    max_entities = settings.REGISTRY_IMPORT_MAX_ENTITIES
    parts, summaries = [], []
    for source in sources:
        mapped, summary = read_source(source, group_prefix=group_prefix, max_entities=max_entities)
        parts.append(mapped)
        summaries.append(summary)
    mapped = merge_mapped(parts)
    check_size(mapped.document, max_entities=max_entities)
    ctx.binding = "xregistry-1.0"  # the AsyncAPI door speaks the 1.0 binding's names (its answers, its errors)
    report = AsyncAPIReport(documents=summaries, dry_run=dry_run)
    with transaction.atomic():
        selectors.with_stored_state(mapped.document, exported_endpoints=mapped.exported_endpoints)
        _check_compatibility(ctx, mapped.document, mapped.places)
        try:
            result = import_document(ctx, mapped.document, force=True)  # (the mapping's references, as before)
        except Problem as problem:
            if problem.errors:
                raise _placed(problem, mapped.places) from None
            raise
        if dry_run:
            transaction.set_rollback(True)
    report.created = [v1_path(p) for p in result.created]
    report.updated = [v1_path(p) for p in result.updated]
    report.unchanged = [v1_path(p) for p in result.unchanged]
    return report
