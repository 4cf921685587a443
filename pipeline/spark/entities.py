"""Executor side: read input files into entity records, index them for the driver, validate them with the
registry's own hooks and classify them against the registry's fingerprints. Pure Python (no Django settings):
the same validators as the API, imported directly.

A resource is validated as a whole (its versions oldest first, each against the earlier ones), where its
records are: in the partition that read them (`check_partition`), or, when they are spread over several
partitions, after the driver has keyed them together (`check_resource`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from catalog import types as catalog_types
from confluent import attributes as confluent_attributes
from endpoints import types as endpoint_types
from registry.documents.flatten import EntityRecord, flatten
from registry.documents.formats import is_yaml, parse_document
from registry.domain.attributes import (
    attribute_names_of,
    check_common,
    check_id,
    group_attribute_names,
    link_error,
    version_attribute_names,
    version_sort_key,
)
from registry.domain.errors import Problem
from registry.domain.extension_attributes import errors_of, version_errors_of
from registry.domain.json_text import strict_loads
from registry.domain.model import HISTORY, registry_model
from registry.domain.validation import GroupCheck, Invalid, VersionCheck

_registered = {"done": False}


def ensure_model() -> None:
    """Register the group types on an executor, where no Django app registry runs."""
    if _registered["done"] or registry_model.get("schemaGroups") is not None:
        _registered["done"] = True
        return

    endpoint_types.register()
    catalog_types.register()
    confluent_attributes.register()  # the attributes it gives a meaning to (registry/domain/extension_attributes.py)
    _registered["done"] = True


def _parse(path: str, raw: bytes) -> dict:
    return parse_document(raw, yaml_format=is_yaml(filename=path))


def records_from_line(line: str, source: str) -> list[EntityRecord]:
    """One JSON-lines entity: {"path": "/GROUPs/g[/RESOURCEs/r[/versions/v]]", ...attributes as in a document}.
    A group line may nest its resources; its parents must exist (in the input or the registry)."""
    ensure_model()
    try:
        data = strict_loads(line)  # the registry's JSON rules and nesting limit, as for documents
        path = str(data.pop("path"))
    except (ValueError, KeyError, AttributeError, TypeError) as exc:
        return [EntityRecord(path=source, kind="invalid", group_type="", gid="", error=f"bad JSON line: {exc}")]
    parts = [p for p in path.split("/") if p]
    gt = registry_model.get(parts[0]) if parts else None
    rt = gt.resources_by_plural.get(parts[2]) if gt is not None and len(parts) >= 4 else None
    if (
        gt is None
        or len(parts) not in (2, 4, 6)
        or (len(parts) >= 4 and rt is None)
        or (len(parts) == 6 and parts[4] != "versions")
    ):
        return [EntityRecord(path=path, kind="invalid", group_type="", gid="", error="not an entity path")]
    if len(parts) == 2:
        return flatten(registry_model, {gt.plural: {parts[1]: data}})
    if len(parts) == 4:
        return flatten(registry_model, {gt.plural: {parts[1]: {rt.plural: {parts[3]: data}}}})[1:]
    records = flatten(registry_model, {gt.plural: {parts[1]: {rt.plural: {parts[3]: {"versions": {parts[5]: data}}}}}})
    records[1].implicit = True
    return records[1:]


def read_file(path: str) -> list[EntityRecord]:
    """Every entity of one input file (a document, or JSON lines of entities)."""
    ensure_model()
    raw = Path(path).read_bytes()
    if path.endswith((".jsonl", ".ndjson")):
        return [
            record
            for n, line in enumerate(raw.decode().splitlines(), 1)
            if line.strip()
            for record in records_from_line(line, f"{path}:{n}")
        ]
    try:
        return flatten(registry_model, _parse(path, raw))
    except Exception as exc:  # a file that does not parse is one rejected entity, not a failed job
        detail = getattr(exc, "detail", str(exc))
        return [EntityRecord(path=path, kind="invalid", group_type="", gid="", error=detail)]


@dataclass
class CheckContext:
    """What the executors need besides the records, broadcast by the driver.

    known_groups: (group type, id) of every group in the registry or the input;
    group_attributes: group path -> attributes (the input's over the registry's);
    stored_resources: resource path -> (attributes, [(vid, format, document)] oldest first) of the stored
        resources the input touches;
    stored_groups: group path -> (attributes, {resource plural: count}) of the stored groups the input names
        (a group type's rules may depend on them: a schema group's format is frozen while it holds schemas);
    stored_prints: path -> fingerprint of every stored entity;
    keyed: resource paths validated after keying (`check_resource`), not in their partition;
    changed_groups: paths of the input's groups that are new or differ from the store (their resources'
        versions are validated again even when unchanged: a group attribute such as a definition group's
        `format` takes part in their validation).
    """

    known_groups: set = field(default_factory=set)
    group_attributes: dict = field(default_factory=dict)
    stored_resources: dict = field(default_factory=dict)
    stored_groups: dict = field(default_factory=dict)
    stored_prints: dict = field(default_factory=dict)
    keyed: set = field(default_factory=set)
    changed_groups: set = field(default_factory=set)


def index_partition(records: Iterable[EntityRecord]) -> Iterator[tuple[str, object]]:
    """What the driver needs of one partition before validation: its group records, whole (they are few),
    and the path of every resource it holds records of."""
    resources = set()
    for record in records:
        if record.kind == "group":
            yield "group", record
        elif record.resource_path is not None:
            resources.add(record.resource_path)
    for path in resources:
        yield "resource", path


def check_partition(records: Iterable[EntityRecord], ctx: CheckContext) -> Iterator[tuple[str, EntityRecord]]:
    """(status, record) for every record of one partition but those of the resources in `ctx.keyed`."""
    by_resource: dict[str, list[EntityRecord]] = {}
    for record in records:
        if record.kind == "group":
            yield classify(validate_group(record, ctx), ctx.stored_prints)
        elif record.kind == "invalid":
            yield classify(record, ctx.stored_prints)
        elif record.resource_path not in ctx.keyed:
            by_resource.setdefault(record.resource_path, []).append(record)
    for resource_records in by_resource.values():
        yield from check_resource(resource_records, ctx)


def check_resource(records: list[EntityRecord], ctx: CheckContext) -> Iterator[tuple[str, EntityRecord]]:
    """(status, record) for all the input's records of one resource: its resource records and its versions."""
    resources = [validate_resource(r) for r in records if r.kind == "resource"]
    versions = [r for r in records if r.kind == "version"]
    stored_attributes, stored_versions = ctx.stored_resources.get(records[0].resource_path, ({}, []))
    explicit = next((r for r in resources if not r.implicit), None)
    imported = {r.vid for r in versions}
    validate_versions(
        versions,
        explicit.attributes if explicit else stored_attributes,
        ctx.group_attributes.get(records[0].group_path, {}),
        [(fmt, document) for vid, fmt, document in stored_versions if vid not in imported],
        known_valid=_known_valid(records, resources, versions, ctx),
        # a resource the input creates: its versions are history, not checked against each other (CONTRACT 18)
        history=records[0].resource_path not in ctx.stored_resources,
    )
    for record in records:
        yield classify(record, ctx.stored_prints)


def _known_valid(records, resources, versions, ctx: CheckContext) -> set[str]:
    """Paths of versions that need no validation: stored as they are now, in a resource and group that are
    stored as they are now, so validated when they were written (a re-import of unchanged input skips the
    validators, the bulk of its time). One changed record of the resource, or a changed group, and every
    version of the resource is validated again."""
    if records[0].group_path in ctx.changed_groups:
        return set()
    if any(
        r.path in ctx.stored_prints and not r.implicit and ctx.stored_prints[r.path] != fingerprint(r)
        for r in resources
    ):
        return set()
    unchanged = {r.path for r in versions if ctx.stored_prints.get(r.path) == fingerprint(r)}
    return unchanged if len(unchanged) == len(versions) else set()


def classify(record: EntityRecord, stored_prints: dict[str, str]) -> tuple[str, EntityRecord]:
    """(status, record): rejected, new, unchanged or changed. Only new and changed records keep their
    document: the driver writes nothing else, and the others need not travel back to it."""
    if record.error:
        status = "rejected"
    elif record.path not in stored_prints:
        status = "new"
    elif record.implicit or stored_prints[record.path] == fingerprint(record):
        status = "unchanged"
    else:
        status = "changed"
    if status in ("rejected", "unchanged"):
        record.document = None
    return status, record


def fingerprint(record: EntityRecord) -> str:
    """A digest of what the entity holds; equal digests mean an import would change nothing."""
    attributes = {k: v for k, v in record.attributes.items() if not (k == "tags" and not v)}
    payload = json.dumps(
        [
            attributes,
            record.document.hex() if record.document is not None else None,
            record.media_type,
            record.resource_uri,
        ],
        sort_keys=True,
        ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(payload.encode()).hexdigest()


def _problem_text(exc) -> list[str]:
    errors = getattr(exc, "errors", None)
    if errors:
        return [e if isinstance(e, str) else json.dumps(e) for e in errors]
    return [getattr(exc, "detail", str(exc))]


def validate_group(record: EntityRecord, ctx: CheckContext) -> EntityRecord:
    """The group type's rules, as the services apply them: against the stored group when there is one (an
    implicit group, named only by its entities' paths, changes nothing and is not checked against it)."""
    ensure_model()

    if record.error:
        return record
    try:
        check_id(record.gid)
        gt = registry_model[record.group_type]
        errors = check_common(record.attributes, known=group_attribute_names(gt))
        errors += errors_of(record.group_type, None, record.attributes)
        stored, counts = ctx.stored_groups.get(record.path, (None, {}))
        if record.implicit:
            stored = None
        if not errors and gt.validate is not None:
            gt.validate(
                GroupCheck(
                    group_type=gt.plural,
                    group_id=record.gid,
                    attributes=record.attributes,
                    base_url="",
                    stored_attributes=stored,
                    resource_counts=lambda: counts,
                    group_exists=lambda plural, gid: (plural, gid) in ctx.known_groups,
                    dangling_references=True,  # references are checked on the driver (pipeline.services)
                )
            )
    except (Invalid, Problem) as exc:
        errors = _problem_text(exc)
    except Exception as exc:  # noqa: BLE001  as in validate_versions
        errors = [f"could not be validated ({type(exc).__name__}: {exc}); please report this"]
    if errors:
        record.error = "; ".join(errors)
    return record


def validate_resource(record: EntityRecord) -> EntityRecord:
    ensure_model()

    if record.error:
        return record
    try:
        check_id(record.rid)
        errors = check_common(record.attributes, known=attribute_names_of(record.group_type, record.resource_type))
        errors += errors_of(record.group_type, record.resource_type, record.attributes)
    except Problem as exc:
        errors = _problem_text(exc)
    if errors:
        record.error = "; ".join(errors)
    return record


def validate_versions(
    versions: list[EntityRecord],
    resource_attrs: dict,
    group_attrs: dict,
    previous: list[tuple[str | None, bytes]],
    known_valid: set[str] = frozenset(),
    history: bool = False,
) -> None:
    """Check the input's versions of one resource oldest first, each against `previous` (the stored versions
    the input does not replace, oldest first) and the input's earlier ones; a rejected version gets its
    `error`, an accepted one its `compatibility_check`. Versions in `known_valid` are taken as they are (only kept as `previous` for the next ones). `history`:
    the input creates the resource, its versions are checked alone (CONTRACT 18)."""
    ensure_model()

    previous = list(previous)
    for record in sorted(versions, key=lambda r: version_sort_key(r.vid)):
        if record.error:
            continue
        rt = registry_model[record.group_type].resource_type(record.resource_type)
        attrs = {**resource_attrs, **record.attributes}
        if record.path in known_valid:
            if record.document is not None:
                previous.append((attrs.get("format"), record.document))
            continue
        try:
            check_id(record.vid, "version")
            errors = check_common(record.attributes, known=version_attribute_names(rt))
            errors += version_errors_of(rt.plural, record.attributes)
            if record.resource_uri and (error := link_error(rt.uri_attribute, record.resource_uri)):
                errors.append(error)
            record.compatibility_check = HISTORY if history and rt.compatibility_levels is not None else None
            if not errors and rt.validate is not None:
                check = VersionCheck(
                    group_type=record.group_type,
                    group_id=record.gid,
                    resource_type=rt.plural,
                    resource_id=record.rid,
                    version_id=record.vid,
                    document=record.document,
                    media_type=record.media_type,
                    resource_uri=record.resource_uri,
                    attributes=attrs,
                    resource_attributes=resource_attrs,
                    group_attributes=group_attrs,
                    base_url="",
                    previous_documents=lambda prior=list(previous): prior,
                    history=history,
                    dangling_references=True,  # references are checked on the driver (pipeline.services)
                )
                rt.validate(check)
                record.compatibility_check = check.checked_level or record.compatibility_check
        except (Invalid, Problem) as exc:
            errors = _problem_text(exc)
        except Exception as exc:  # noqa: BLE001  a validator bug must reject this entity, not the whole import
            errors = [f"could not be validated ({type(exc).__name__}: {exc}); please report this"]
        if errors:
            record.error = "; ".join(errors)
        elif record.document is not None:
            previous.append((attrs.get("format"), record.document))
