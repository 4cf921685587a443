"""First pass of an import: the checks that need no database, run on the whole document before any write.

An invalid import used to be found out entity by entity, each in its own savepoint with its inserts, so a
document of 20,000 groups with one bad attribute took long before it was refused (issue 11 item 8). These
checks (shape, ids, common attribute types and names, storability, records that cannot be read) are linear
in the document and touch no table; when they find errors, the import is refused at once with all of them.
The services still validate everything again when they write: this pass only makes a bad document fail fast.
"""

from __future__ import annotations

from ..domain.attributes import attribute_names_of, check_common, check_id, unstorable
from ..domain.errors import Problem
from ..domain.model import registry_model
from .flatten import flatten

TOP_LEVEL = {"$schema", "specversion", "id", "name", "description", "docs", "tags"}


def check_shape(doc: dict) -> list[dict]:
    """Errors of the document's top level: unknown members, group maps that are not maps."""
    errors = []
    plurals = {gt.plural for gt in registry_model.group_types}
    allowed = TOP_LEVEL | plurals | {f"{p}Url" for p in plurals} | {f"{p}URL" for p in plurals}
    for key in doc:
        if key not in allowed:
            errors.append({"path": f"/{key}", "reason": f"unknown top-level attribute {key!r}"})
    for plural in plurals:
        if plural in doc and not isinstance(doc[plural], dict):
            errors.append({"path": f"/{plural}", "reason": "must be a map of id to group"})
    for key in ("specversion", "$schema"):
        if key in doc and not isinstance(doc[key], str):
            errors.append({"path": f"/{key}", "reason": "must be a string"})
    top = {key: doc[key] for key in ("name", "description", "docs", "tags") if key in doc}
    errors += [{"path": "/", "reason": reason} for reason in check_common(top)]
    return errors


def entity_count(doc: dict) -> int:
    """Groups, resources and versions in the document, counted without reading their attributes."""
    count = 0
    for gt in registry_model.group_types:
        groups = doc.get(gt.plural)
        if not isinstance(groups, dict):
            continue
        for gdata in groups.values():
            count += 1
            if not isinstance(gdata, dict):
                continue
            for rt in gt.resources:
                resources = gdata.get(rt.plural)
                if not isinstance(resources, dict):
                    continue
                for rdata in resources.values():
                    versions = rdata.get("versions") if isinstance(rdata, dict) else None
                    count += 1 + (len(versions) if isinstance(versions, dict) else 1)
    return count


def check_size(doc: dict, *, max_entities: int) -> None:
    """Refuse (413) a document with more entities than one request may import: such a request would outlive
    the worker's timeout; the bulk import (`spark_import`) takes documents of any size."""
    count = entity_count(doc)
    if count > max_entities:
        raise Problem(
            "too-large",
            f"the document holds {count} entities; one import request takes at most "
            f"{max_entities} (REGISTRY_IMPORT_MAX_ENTITIES); split it, or import it "
            "with `manage.py spark_import`",
        )


def _id_errors(record) -> list[str]:
    errors = []
    for value, what in ((record.gid, "group id"), (record.rid, "resource id"), (record.vid, "version id")):
        if value is None:
            continue
        try:
            check_id(value, what)
        except Problem as problem:
            errors.append(problem.detail)
    return errors


def precheck(doc: dict) -> list[dict]:
    """Every error this pass can find, as {path, reason}; an empty list when the document may be written."""
    errors = check_shape(doc)
    for record in flatten(registry_model, doc):
        reasons = _id_errors(record)
        if record.error:
            reasons.append(record.error)
        reasons += check_common(record.attributes, known=attribute_names_of(record.group_type, record.resource_type))
        problem = unstorable(record.attributes)
        if problem:
            reasons.append(problem)
        errors += [{"path": record.path, "reason": reason} for reason in dict.fromkeys(reasons)]
    return errors
