"""The bulk import (driver side): expand the inputs, let Spark parse, validate and fingerprint every entity
on the executors, compare with the registry, then write what is new or changed in batches.

Unlike `POST /` and `import_registry` (one document, all or nothing), entities are rejected one by one: a
rejected group takes its resources and versions with it, a rejected resource its versions.
"""
from __future__ import annotations

import glob
import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings

from registry.documents.flatten import EntityRecord
from registry.models import Group, Resource, Version
from registry.services import WriteContext
from registry.services.resources import resource_attributes, version_attributes

from . import writer
from .spark import entities

INPUT_SUFFIXES = (".cereg", ".cereg.yaml", ".cereg.yml", ".json", ".yaml", ".yml", ".jsonl", ".ndjson")
BATCH_ENTITIES = 20_000


@dataclass
class ImportResult:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    rejected: list[dict] = field(default_factory=list)
    report_path: str = ""
    files: int = 0

    def summary(self) -> str:
        return (f"created {self.created}, updated {self.updated}, unchanged {self.unchanged}, "
                f"rejected {len(self.rejected)}")


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


def _stored() -> tuple[dict[str, int], dict[str, str], dict[str, dict], dict[str, dict], dict[str, list]]:
    """What the registry holds: path -> pk, path -> fingerprint, group and resource attributes, and the
    stored versions (vid, format, content hex) of each resource."""
    pks, prints, group_attrs, resource_attrs, versions = {}, {}, {}, {}, {}
    groups = {}
    for group in Group.objects.all():
        path = group.path
        groups[group.pk] = path
        attrs = {k: getattr(group, k) for k in ("name", "description", "docs") if getattr(group, k) is not None}
        if group.tags:
            attrs["tags"] = group.tags
        attrs.update(group.extensions)
        pks[path], group_attrs[path] = group.pk, attrs
        prints[path] = entities.fingerprint(EntityRecord(path, "group", group.group_type, group.gid, attributes=attrs))
    resources = {}
    for resource in Resource.objects.all():
        path = f"{groups[resource.group_id]}/{resource.resource_type}/{resource.rid}"
        resources[resource.pk] = path
        attrs = resource_attributes(resource)
        pks[path], resource_attrs[path] = resource.pk, attrs
        prints[path] = entities.fingerprint(EntityRecord(path, "resource", "", "", attributes=attrs))
    for version in Version.objects.all().iterator(chunk_size=2000):
        rpath = resources[version.resource_id]
        path = f"{rpath}/versions/{version.vid}"
        content = bytes(version.content) if version.content is not None else None
        record = EntityRecord(path, "version", "", "", attributes=version_attributes(version), document=content,
                              media_type=version.media_type, resource_uri=version.resource_uri)
        pks[path], prints[path] = version.pk, entities.fingerprint(record)
        fmt = version.extensions.get("format") or resource_attrs[rpath].get("format")
        versions.setdefault(rpath, []).append((version.vid, fmt, content.hex() if content is not None else None))
    return pks, prints, group_attrs, resource_attrs, versions


def _reject(result: ImportResult, record: EntityRecord, reason: str) -> None:
    result.rejected.append({"path": record.path, "reason": reason})


def run_spark_import(paths: list[str], *, master: str | None = None, dry_run: bool = False,
                     report_path: str | None = None, user: str | None = None, progress=None) -> ImportResult:
    from .spark.session import spark_session

    step = progress or (lambda message: None)
    files = expand_inputs(paths)
    result = ImportResult(files=len(files))
    step(f"{len(files)} input file(s)")
    pks, prints, group_attrs, resource_attrs, stored_versions = _stored()
    step("read the registry's current state")
    spark = spark_session(master or settings.SPARK_MASTER)
    try:
        sc = spark.sparkContext
        lines = [f for f in files if f.endswith((".jsonl", ".ndjson"))]
        documents = [f for f in files if f not in lines]
        parts = []
        if documents:
            parts.append(sc.parallelize(documents, max(1, min(len(documents), sc.defaultParallelism * 4)))
                         .flatMap(entities.read_file))
        for path in lines:
            parts.append(sc.textFile(path, sc.defaultParallelism * 2)
                         .flatMap(lambda line, p=path: entities.records_from_line(line, p) if line.strip() else []))
        if not parts:
            records_rdd = sc.parallelize([])
        else:
            records_rdd = parts[0] if len(parts) == 1 else sc.union(parts)
        records_rdd = records_rdd.cache()
        input_groups = records_rdd.filter(lambda r: r.kind == "group").collect()
        known = {tuple(p.strip("/").split("/")) for p in pks if p.count("/") == 2}
        known |= {(r.group_type, r.gid) for r in input_groups}
        known_b = sc.broadcast(known)
        input_resources = records_rdd.filter(lambda r: r.kind == "resource").collect()
        group_ctx = {**group_attrs, **{r.path: r.attributes for r in input_groups}}
        resource_ctx = {**resource_attrs, **{r.path: r.attributes for r in input_resources}}
        input_versions = set(records_rdd.filter(lambda r: r.kind == "version").map(lambda r: r.path).collect())
        context = {}
        for rpath in {r.resource_path for r in input_resources} | {p.rsplit("/versions/", 1)[0] for p in input_versions}:
            stored = [(fmt, content) for vid, fmt, content in sorted(stored_versions.get(rpath, []),
                                                                     key=lambda v: (len(v[0]), v[0]))
                      if content is not None and f"{rpath}/versions/{vid}" not in input_versions]
            context[rpath] = (resource_ctx.get(rpath, {}), group_ctx.get(rpath.rsplit("/", 2)[0], {}), stored)
        context_b = sc.broadcast(context)
        step("validating on the executors")
        checked_groups = records_rdd.filter(lambda r: r.kind == "group").map(
            lambda r: entities.validate_group(r, known_b.value))
        checked_resources = records_rdd.filter(lambda r: r.kind == "resource").map(entities.validate_resource)
        checked_versions = (records_rdd.filter(lambda r: r.kind == "version").map(lambda r: (r.resource_path, r))
                            .groupByKey()
                            .map(lambda kv: ((kv[0], context_b.value.get(kv[0], ({}, {}, []))), list(kv[1])))
                            .flatMap(entities.validate_versions))
        invalid = records_rdd.filter(lambda r: r.kind == "invalid")
        prints_b = sc.broadcast(prints)

        def classify(record):
            if record.error:
                return "rejected", record
            digest = prints_b.value.get(record.path)
            if digest is None:
                return "new", record
            if record.implicit:
                return "unchanged", record
            return ("unchanged" if digest == entities.fingerprint(record) else "changed"), record

        classified = sc.union([checked_groups, checked_resources, checked_versions, invalid]).map(classify).collect()
    finally:
        spark.stop()
    step(f"{len(classified)} entities checked")
    _cascade_and_write(result, classified, pks, dry_run, user, step)
    result.report_path = _write_report(result, report_path, dry_run)
    return result


def _cascade_and_write(result: ImportResult, classified, pks, dry_run: bool, user, step) -> None:
    # a resource named by several version lines arrives once per line: keep one
    unique: dict = {}
    for status, record in classified:
        if record.implicit and record.path in unique:
            continue  # an explicit record, or the first implicit one, stands
        unique[record.path] = (status, record)
    with_versions = {r.resource_path for s, r in unique.values() if r.kind == "version" and s != "rejected"}
    # an implicit resource whose only versions were rejected is not created empty
    classified = [(s, r) for s, r in unique.values() if not (r.implicit and r.path not in with_versions)]
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
        if status == "new":
            result.created += 1
        else:
            result.updated += 1
        writes.setdefault(record.group_path, []).append((status, record))
    if dry_run or not writes:
        return
    ctx = WriteContext(user=user)
    batch, size, done = [], 0, 0
    for group_path in sorted(writes):
        batch += writes[group_path]
        size += len(writes[group_path])
        if size >= BATCH_ENTITIES:
            writer.write_batch(ctx, batch, pks)
            done += size
            step(f"written {done} entities")
            batch, size = [], 0
    if batch:
        writer.write_batch(ctx, batch, pks)
        step(f"written {done + size} entities")


def _write_report(result: ImportResult, report_path: str | None, dry_run: bool) -> str:
    if report_path is None:
        directory = Path(settings.VAR_DIR) / "imports"
        directory.mkdir(parents=True, exist_ok=True)
        report_path = str(directory / f"{datetime.now(UTC).strftime('%Y%m%dT%H%M%S%fZ')}.json")
    report = {"dry_run": dry_run, "files": result.files, "created": result.created, "updated": result.updated,
              "unchanged": result.unchanged, "rejected_count": len(result.rejected), "rejected": result.rejected}
    Path(report_path).write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return report_path
