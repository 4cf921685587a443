"""The bulk import (driver side): expand the inputs, let Spark parse, validate and fingerprint every entity
on the executors, compare with the registry, then write what is new or changed in batches.

Two Spark jobs over the cached records: the first indexes them (groups, and which partitions hold each
resource), the second validates and classifies. A resource whose records all sit in one partition (a
document holds its resources whole) is validated there, with no shuffle; the others are keyed together
first. When the input has fewer partitions than the executors have slots, every resource is keyed, so the
validation spreads over all of them.

Unlike `POST /` and `import_registry` (one document, all or nothing), entities are rejected one by one: a
rejected group takes its resources and versions with it, a rejected resource its versions.

References (`#/...` and this registry's URLs, a `:Name` after one) are checked on the driver, once the whole input is
known (`_check_references`, registry/documents/references.py): an entity to be written whose reference names nothing
in the input or the registry is rejected naming it (CONTRACT 18), unless the import is forced (`force`, `--force`):
then it is written as it is and the reference is listed in the report's `warnings`.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.db.models import Count

from registry.documents.flatten import EntityRecord
from registry.documents.references import references_in, stored_version, unresolved
from registry.domain.attributes import stored_attributes, version_order, version_sort_key
from registry.domain.model import registry_model
from registry.models import Group, Resource, Version
from registry.services import WriteContext
from registry.services.bulk import bulk_refusal, bulk_write
from registry.services.versions import resource_attributes, version_attributes
from registry.store import selectors

from . import authorization
from .models import ImportedInput
from .spark import entities

INPUT_SUFFIXES = (".cereg", ".cereg.yaml", ".cereg.yml", ".json", ".yaml", ".yml", ".jsonl", ".ndjson")
BATCH_ENTITIES = 20_000


@dataclass
class ImportResult:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    rejected: list[dict] = field(default_factory=list)
    warnings: list[dict] = field(default_factory=list)  # {path, reason}: references a forced import took as written
    report_path: str = ""
    files: int = 0

    def summary(self) -> str:
        return (
            f"created {self.created}, updated {self.updated}, unchanged {self.unchanged}, rejected {len(self.rejected)}"
            + (f", warnings {len(self.warnings)}" if self.warnings else "")
        )


def server_path_error(source: str) -> str | None:
    """Why an import may not read this server path (None: it may). Server paths are confined to
    REGISTRY_IMPORT_ROOT (unset: none at all, uploads only); the path, and every file a glob or a directory
    expands to, must lie inside it after resolving symlinks and `..`, so no one with the import permission can
    make the server read other files."""
    root_setting = settings.REGISTRY_IMPORT_ROOT
    if not root_setting:
        return "server paths are disabled (REGISTRY_IMPORT_ROOT is not set): upload the file instead"
    root = Path(root_setting).resolve()
    if not source or "\x00" in source:
        return "the path is empty or holds a NUL character"
    candidate = Path(source) if os.path.isabs(source) else root / source
    pattern = str(candidate)
    if any(c in pattern for c in "*?["):
        matches = [Path(m) for m in glob.glob(pattern, recursive=True)]
    else:
        matches = [candidate]

    def outside(path: Path) -> bool:
        resolved = path.resolve()
        return resolved != root and root not in resolved.parents

    outside_error = f"{source} leads outside the import directory {root} (REGISTRY_IMPORT_ROOT)"
    try:
        for match in matches:
            if outside(match):  # before walking into it: a directory outside is never read
                return outside_error
            if match.is_dir() and any(outside(p) for p in match.rglob("*")):
                return outside_error
    except OSError as exc:
        return f"{source} cannot be read: {exc.strerror or exc}"
    return None


def resolve_server_path(source: str) -> str:
    """The path to import (relative paths are taken inside REGISTRY_IMPORT_ROOT); ValueError when refused."""
    error = server_path_error(source)
    if error:
        raise ValueError(error)
    return source if os.path.isabs(source) else str(Path(settings.REGISTRY_IMPORT_ROOT) / source)


def expand_inputs(paths: list[str]) -> list[str]:
    """Files, directories (recursively, by suffix) and globs; raises FileNotFoundError for a missing one."""
    files = []
    for raw in paths:
        matches = sorted(glob.glob(raw, recursive=True)) if any(c in raw for c in "*?[") else [raw]
        if not matches:
            raise FileNotFoundError(raw)
        for match in matches:
            path = Path(match)
            if path.is_dir():
                files += sorted(str(p) for p in path.rglob("*") if p.is_file() and p.name.endswith(INPUT_SUFFIXES))
            elif path.is_file():
                files.append(str(path))
            else:
                raise FileNotFoundError(match)
    return list(dict.fromkeys(os.path.abspath(f) for f in files))


@dataclass
class Stored:
    """What the registry holds, as the comparison needs it."""

    pks: dict[str, int] = field(default_factory=dict)  # path -> primary key
    prints: dict[str, str] = field(default_factory=dict)  # path -> fingerprint
    group_attributes: dict[str, dict] = field(default_factory=dict)
    # resource path -> (attributes, [(vid, format, document)] oldest first, versions with a document only)
    resources: dict[str, tuple[dict, list]] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)  # path of a synced group or resource -> its source
    group_counts: dict[str, dict[str, int]] = field(default_factory=dict)  # group path -> {resource plural: n}


def _stored() -> Stored:
    """Every stored entity, read once; fingerprints as the executors compute them for the input."""
    stored = Stored()
    groups = {}
    for group in Group.objects.all():
        path = group.path
        groups[group.pk] = path
        attrs = stored_attributes(group)
        stored.pks[path], stored.group_attributes[path] = group.pk, attrs
        if group.origin:
            stored.origins[path] = group.origin
        stored.prints[path] = entities.fingerprint(
            EntityRecord(path, "group", group.group_type, group.gid, attributes=attrs)
        )
    for group_id, plural, count in (
        Resource.objects.order_by().values_list("group_id", "resource_type").annotate(n=Count("pk"))
    ):
        stored.group_counts.setdefault(groups[group_id], {})[plural] = count
    resources = {}
    for resource in Resource.objects.all():
        path = f"{groups[resource.group_id]}/{resource.resource_type}/{resource.rid}"
        resources[resource.pk] = path
        attrs = resource_attributes(resource)
        stored.pks[path], stored.resources[path] = resource.pk, (attrs, [])
        if resource.origin:
            stored.origins[path] = resource.origin
        stored.prints[path] = entities.fingerprint(EntityRecord(path, "resource", "", "", attributes=attrs))
    for version in Version.objects.all().iterator(chunk_size=2000):
        rpath = resources[version.resource_id]
        path = f"{rpath}/versions/{version.vid}"
        content = bytes(version.content) if version.content is not None else None
        record = EntityRecord(
            path,
            "version",
            "",
            "",
            attributes=version_attributes(version),
            document=content,
            media_type=version.media_type,
            resource_uri=version.resource_uri,
        )
        stored.pks[path], stored.prints[path] = version.pk, entities.fingerprint(record)
        attrs, versions = stored.resources[rpath]
        if content is not None:
            fmt = version.extensions.get("format") or attrs.get("format")
            versions.append((version_order(version), version.vid, fmt, content))
    for key, (attrs, versions) in stored.resources.items():
        versions.sort(key=lambda v: v[0])  # oldest first, as the services compare a new version with them
        stored.resources[key] = (attrs, [v[1:] for v in versions])
    return stored


def _reject(result: ImportResult, record: EntityRecord, reason: str) -> None:
    result.rejected.append({"path": record.path, "reason": reason})


def input_fingerprint(files: list[str]) -> str:
    """One SHA-256 over the input's file paths and bytes, in order."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.encode() + b"\0")
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        digest.update(b"\0")
    return digest.hexdigest()


def _changes(marker: str) -> int:
    """The number of committed changes in a change marker (`selectors.change_marker`: "SUM:NEWEST")."""
    return int(marker.split(":", 1)[0])


def run_spark_import(
    paths: list[str],
    *,
    master: str | None = None,
    dry_run: bool = False,
    report_path: str | None = None,
    user: str | None = None,
    actor=None,
    progress=None,
    force: bool = False,
) -> ImportResult:
    """Import the inputs (files, directories, globs). An input that an earlier import left the registry
    consistent with (`ImportedInput`), while no change has been committed since, is unchanged as a whole:
    its fingerprint (a hash of the files, read at disk speed) answers without Spark. `force`: references that name
    nothing are written as they are, with warnings (otherwise their entities are rejected)."""
    # here: Spark (pyspark) loads only when an import runs on it (tests/catalog/test_command_startup.py)
    from .spark.session import spark_context

    step = progress or (lambda message: None)
    files = expand_inputs(paths)
    result = ImportResult(files=len(files))
    step(f"{len(files)} input file(s)")
    fingerprint = input_fingerprint(files)
    marker = selectors.change_marker()
    known = ImportedInput.objects.filter(fingerprint=fingerprint, marker=marker).first()
    if known is not None:
        result.unchanged = known.entities
        step("the input and the registry are as an earlier import left them: nothing to read")
        result.report_path = _write_report(result, report_path, dry_run)
        return result
    stored = _stored()
    step("read the registry's current state")
    sc = spark_context(master or settings.SPARK_MASTER)
    try:
        step(f"Spark started ({sc.master})")
        lines = [f for f in files if f.endswith((".jsonl", ".ndjson"))]
        documents = [f for f in files if f not in lines]
        parts = []
        if documents:
            parts.append(
                sc.parallelize(documents, max(1, min(len(documents), sc.defaultParallelism * 4))).flatMap(
                    entities.read_file
                )
            )
        for path in lines:
            parts.append(
                sc.textFile(path, sc.defaultParallelism * 2).flatMap(
                    lambda line, p=path: entities.records_from_line(line, p) if line.strip() else []
                )
            )
        if not parts:
            records_rdd = sc.parallelize([])
        else:
            records_rdd = parts[0] if len(parts) == 1 else sc.union(parts)
        records_rdd = records_rdd.cache()
        index = records_rdd.mapPartitionsWithIndex(
            lambda n, part: ((n, *item) for item in entities.index_partition(part))
        ).collect()
        step("indexed the input")
        input_groups = [item for _n, kind, item in index if kind == "group"]
        partitions_of: dict[str, set[int]] = {}  # resource path -> numbers of the partitions holding its records
        for n, kind, item in index:
            if kind == "resource":
                partitions_of.setdefault(item, set()).add(n)
        if records_rdd.getNumPartitions() < sc.defaultParallelism:
            keyed = set(partitions_of)
        else:
            keyed = {path for path, numbers in partitions_of.items() if len(numbers) > 1}
        known = {tuple(p.strip("/").split("/")) for p in stored.pks if p.count("/") == 2}
        context = sc.broadcast(
            entities.CheckContext(
                known_groups=known | {(g.group_type, g.gid) for g in input_groups},
                group_attributes={**stored.group_attributes, **{g.path: g.attributes for g in input_groups}},
                stored_resources={p: stored.resources[p] for p in partitions_of if p in stored.resources},
                stored_groups={
                    g.path: (stored.group_attributes[g.path], stored.group_counts.get(g.path, {}))
                    for g in input_groups
                    if g.path in stored.group_attributes
                },
                stored_prints=stored.prints,
                keyed=keyed,
                changed_groups={
                    g.path
                    for g in input_groups
                    if not g.implicit and stored.prints.get(g.path) != entities.fingerprint(g)
                },
            )
        )
        step("validating on the executors")
        checked = records_rdd.mapPartitions(lambda part: entities.check_partition(part, context.value))
        if keyed:
            checked = checked.union(
                records_rdd.filter(lambda r: r.resource_path in context.value.keyed)
                .map(lambda r: (r.resource_path, r))
                .groupByKey(sc.defaultParallelism * 2)
                .flatMap(lambda item: entities.check_resource(list(item[1]), context.value))
            )
        classified = checked.collect()
    finally:
        sc.stop()
    step(f"{len(classified)} entities checked")
    classified = _check_references(classified, stored.pks, force, result)
    # `actor`: the user the import runs as (registry/access/permissions.py decides each entity); None: the system
    ctx = WriteContext(user=user or (actor.get_username() if actor is not None else None), actor=actor, door="spark")
    known = authorization.Owners(stored.group_attributes)
    _cascade_and_write(result, classified, stored.pks, dry_run, ctx, step, origins=stored.origins, known=known)
    after = selectors.change_marker()
    if not dry_run and not result.rejected and _changes(after) == _changes(marker) + ctx.changes:
        # nobody else committed a change while this import ran: the registry is what the input says
        ImportedInput.objects.update_or_create(
            fingerprint=fingerprint,
            defaults={"marker": after, "entities": result.created + result.updated + result.unchanged},
        )
    result.report_path = _write_report(result, report_path, dry_run)
    return result


def _check_references(classified: list, pks: dict, force: bool, result: ImportResult) -> list:
    """The classified records with those to be written whose references name nothing (in the input or the registry;
    a `:Name` naming nothing in its version's document) rejected, naming each; `force`: kept, each reference a warning
    of the result. Unchanged entities write nothing and are not checked (their documents did not travel back)."""
    accepted = [(s, r) for s, r in classified if s != "rejected"]
    present = set(pks) | {r.path for _s, r in accepted}
    records = {r.path: r for _s, r in accepted}
    versions_of: dict[str, list[EntityRecord]] = {}  # resource path -> its versions' records (a look-up, not a scan)
    for r in records.values():
        if r.kind == "version" and r.resource_path is not None:
            versions_of.setdefault(r.resource_path, []).append(r)

    def exists(segments: list[str]) -> bool:
        gt = registry_model.get(segments[0]) if segments else None
        if gt is None or len(segments) == 1:
            return gt is not None or not segments
        if len(segments) in (3, 5):  # a collection: its parent, and a collection's name of its type
            named = segments[2] in gt.resources_by_plural if len(segments) == 3 else segments[4] == "versions"
            return named and exists(segments[:-1])
        return "/" + "/".join(segments) in present

    def version_of(segments: list[str]):
        path = "/" + "/".join(segments)
        record = records.get(path) if len(segments) == 6 else None
        if len(segments) == 4:
            record = max(versions_of.get(path, []), key=lambda r: version_sort_key(r.vid), default=None)
            stored = stored_version(segments) if path in pks else None
            if stored is not None and (record is None or version_sort_key(stored[2]) > version_sort_key(record.vid)):
                return stored[:2]
        if record is None or record.document is None:  # (unchanged: its document is the stored one)
            found = stored_version(segments)
            return found[:2] if found is not None else None
        owner = records.get(record.resource_path)
        return {**(owner.attributes if owner is not None else {}), **record.attributes}, record.document

    out = []
    for status, record in classified:
        if status not in ("new", "changed"):
            out.append((status, record))
            continue
        strings = list(references_in(record.attributes, record.path))
        rt = registry_model[record.group_type].resource_type(record.resource_type) if record.resource_type else None
        if record.kind == "version" and rt is not None and rt.shared_attributes and record.document is not None:
            try:
                strings += references_in(json.loads(record.document), record.path)
            except ValueError:
                pass
        found = {(u.path, u.reference): u for u in unresolved(iter(strings), "", exists=exists, version_of=version_of)}
        if not found:
            out.append((status, record))
        elif force:
            result.warnings += [u.as_warning() for u in found.values()]
            out.append((status, record))
        else:
            record.error = "; ".join(f"{u.path}: {u.as_error()['reason']}" for u in found.values())
            out.append(("rejected", record))
    return out


def _cascade_and_write(
    result: ImportResult,
    classified,
    pks,
    dry_run: bool,
    ctx: WriteContext,
    step,
    *,
    origins: dict[str, str],
    known: authorization.Owners,
) -> None:
    # a resource named by several version lines arrives once per line: keep one
    unique: dict = {}
    for status, record in classified:
        if record.implicit and record.path in unique:
            continue  # an explicit record, or the first implicit one, stands
        unique[record.path] = (status, record)
    with_versions = {r.resource_path for s, r in unique.values() if r.kind == "version" and s != "rejected"}
    # an implicit resource whose only versions were rejected is not created empty; an explicit new one is
    # rejected with them: a resource and its versions are written together or not at all
    classified = []
    for status, record in unique.values():
        if record.kind == "resource" and record.path not in with_versions and record.path not in pks:
            if record.implicit:
                continue
            if status != "rejected":
                status, record.error = (
                    "rejected",
                    "a new resource needs a version, and none of its versions in the input was accepted",
                )
        classified.append((status, record))
    rejected_paths = {r.path for s, r in classified if s == "rejected"}
    present = set(pks) | {r.path for _s, r in classified}
    order = {"group": 0, "resource": 1, "version": 2, "invalid": 3}
    writes: dict[str, list] = {}
    for status, record in sorted(classified, key=lambda item: (order[item[1].kind], item[1].path)):
        if status == "rejected":
            _reject(result, record, record.error or "invalid")
            continue
        parents = [record.group_path] + ([record.resource_path] if record.kind == "version" else [])
        failed = next((p for p in parents if p in rejected_paths), None)
        missing = next((p for p in parents if p not in present), None)
        if failed or missing:
            rejected_paths.add(record.path)
            _reject(result, record, f"{failed} was rejected" if failed else f"{missing} does not exist")
            continue
        if status == "unchanged":
            result.unchanged += 1
            continue
        synced = bulk_refusal(ctx=ctx, record=record, origins=origins) or authorization.refusal(
            ctx, status, record, known
        )
        if synced:
            rejected_paths.add(record.path)
            _reject(result, record, synced)
            continue
        if status == "new":
            result.created += 1
        else:
            result.updated += 1
        writes.setdefault(record.group_path, []).append((status, record))
    step(f"compared with the registry: {sum(len(w) for w in writes.values())} entities to write")
    if dry_run or not writes:
        return
    batch, size, done = [], 0, 0
    for group_path in sorted(writes):
        batch += writes[group_path]
        size += len(writes[group_path])
        if size >= BATCH_ENTITIES:
            bulk_write(ctx=ctx, records=batch, existing=pks)
            done += size
            step(f"written {done} entities")
            batch, size = [], 0
    if batch:
        bulk_write(ctx=ctx, records=batch, existing=pks)
        step(f"written {done + size} entities")


def _write_report(result: ImportResult, report_path: str | None, dry_run: bool) -> str:
    if report_path is None:
        directory = Path(settings.VAR_DIR) / "imports"
        directory.mkdir(parents=True, exist_ok=True)
        report_path = str(directory / f"{datetime.now(UTC).strftime('%Y%m%dT%H%M%S%fZ')}.json")
    report = {
        "dry_run": dry_run,
        "files": result.files,
        "created": result.created,
        "updated": result.updated,
        "unchanged": result.unchanged,
        "rejected_count": len(result.rejected),
        "rejected": result.rejected,
        "warnings": result.warnings,
    }
    Path(report_path).write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return report_path
