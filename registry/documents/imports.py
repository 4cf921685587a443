"""Import: create or update every entity of a registry document, all or nothing (docs/api-contract.md sections 3 and 6).

Each entity is written by the same services as the API (same validation, epochs and change events),
inside one transaction; an entity equal to what is stored is left alone (no epoch change, no event), so
importing an export changes nothing. Every invalid entity is reported (path and reason) before the whole
import is rolled back. A reference that names no entity (in the document or the store), or a `:Name` after one
that names nothing in its document, is an error naming it (CONTRACT 18), unless the import is forced (`force`: the
HTTP imports' `?force=true`, the commands' `--force`): then it is imported as written and listed in the report's
warnings (the store keeps such references after a forced delete, and a backup of it must import again).
A resource whose version's document needs another's (an Avro schema naming a type of another schema: its resolver
raises `validation.Unresolved`) and comes before it in the document is written again after the rest.

Imported history (CONTRACT 18): the versions of a resource the document creates are stored as given, each checked
alone and not against the others (`VersionInput.history`); the versions it adds to a stored resource are checked as any new version. A single write that nests entities (a group PUT
with its resources) is not an import: `history=False`.

Groups' `owners` (docs/deploy.md, docs/teams.md): kept as the document says (`keep`), the teams they name made when the
importer is a registry admin or the system (`registry/access/owners.py`; the report lists them), or left out (`drop`: a copy
into another organisation, whose teams are not this one's; a new group then gets what REGISTRY_REQUIRE_OWNERS gives
it, a stored group keeps its own).

A sync's import (its context has an origin: sync/services.py) differs in three ways (issue 37): an entity its user may
not write (403) or that exists here without the sync's origin is skipped with what it holds (nothing of it written) and
listed in the report's `skipped` instead of refusing the import; the document's `owners` are left out (`drop`:
another registry's teams are not this one's); a stored entity is never taken over (WriteContext.guard).
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models.functions import Lower

from ..access import owners as group_owners
from ..domain.attributes import check_id, split_attributes
from ..domain.errors import Finding, Problem
from ..domain.model import GroupType, ResourceType, registry_model
from ..domain.validation import Invalid, Unresolved, VersionCheck
from ..models import Group, Resource
from ..services import groups as group_services
from ..services import resources as resource_services
from ..services import versions as version_services
from ..services.context import OriginRefused, WriteContext
from ..services.inputs import VersionInput, absorb_document
from .flatten import default_media_type, flatten
from .precheck import precheck
from .references import check_references

PRELOAD_CHUNK = 500  # ids per query when the stored groups of a document are loaded and locked
OWNERS_MODES = ("keep", "drop")  # what an import does with its groups' `owners` (`?owners=`, `--owners=`)


def owners_mode(value: str | None) -> str:
    """The `owners` parameter of an import (`?owners=drop`): `keep` when absent; 400 naming it when unknown."""
    if value is None or value == "":
        return "keep"
    if value not in OWNERS_MODES:
        raise Problem(
            "bad-request",
            f"owners={value[:40]!r}: the owners parameter of an import is one of {', '.join(OWNERS_MODES)}",
        )
    return value


@dataclass
class ImportReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    warnings: list[dict] = field(default_factory=list)  # {path, reason}: references that name no entity
    teams_created: list[str] = field(default_factory=list)  # the teams its owners named that were made (empty)
    skipped: list[dict] = field(default_factory=list)  # {path, reason}: what a sync's import did not write

    def as_json(self) -> dict:
        return {
            "created": self.created,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "warnings": self.warnings,
            "teamsCreated": self.teams_created,
        }

    def merge(self, other: ImportReport) -> None:
        self.created += other.created
        self.updated += other.updated
        self.unchanged += other.unchanged
        self.warnings += other.warnings
        self.teams_created += other.teams_created
        self.skipped += other.skipped


class _Importer:
    def __init__(self, ctx: WriteContext, owners: str = "keep", history: bool = True):
        self.ctx = ctx
        self.history = history  # the versions of a resource it creates are history (`import_document`)
        self.drop_owners = owners == "drop" or bool(ctx.origin)  # a sync's: always left out
        self.report = ImportReport()
        self.errors: list[dict] = []
        self.groups: dict[tuple[str, str], Group] = {}  # the document's stored groups, loaded and locked
        self.group_ids_lower: dict[str, set[str]] = {}  # every stored group id of a type, lower case
        self.deferring = True  # a resource whose reference names nothing stored yet is tried again at the end
        self.deferred: list[tuple] = []  # the arguments of `resource` of those
        self.skipping = bool(ctx.origin)  # a sync's import skips (and reports) what it may not write
        self.skipped_paths: set[str] = set()

    def preload_groups(self, gt: GroupType, gids: list) -> None:
        """Load and lock the document's stored groups of one type in a few queries (instead of two queries a
        group), and the lower-case ids of the type for the case-insensitive uniqueness check."""
        wanted = [gid for gid in gids if isinstance(gid, str)]
        for start in range(0, len(wanted), PRELOAD_CHUNK):
            chunk = wanted[start : start + PRELOAD_CHUNK]
            for group in Group.objects.select_for_update().filter(group_type=gt.plural, gid__in=chunk):
                self.groups[(gt.plural, group.gid)] = group
        self.group_ids_lower[gt.plural] = set(
            Group.objects.filter(group_type=gt.plural).annotate(low=Lower("gid")).values_list("low", flat=True)
        )

    def report_lists(self) -> tuple[list, ...]:
        return (self.report.created, self.report.updated, self.report.unchanged)

    def retry_deferred(self) -> None:
        """Write again the resources that referenced what was not stored yet, while each round writes some; the last
        round records the failures of those that still reference nothing."""
        while self.deferred:
            pending, self.deferred = self.deferred, []
            for args in pending:
                self.resource(*args)
            if len(self.deferred) == len(pending):  # no progress: they reference nothing the document holds
                self.deferring = False
                for args in self.deferred:
                    self.resource(*args)
                self.deferred = []

    def fail(self, path: str, reason: str) -> None:
        self.errors.append({"path": path, "reason": reason})

    def attempt(self, path: str, fn, *args, later: tuple | None = None):
        """Run one entity's write in a savepoint; record the failure and go on to find every error. `later`: the
        arguments of `resource` to try it again after the document's other entities when it failed on a reference to
        nothing stored yet (validation.Unresolved: the document may define what it references further on)."""
        counts = [len(entries) for entries in self.report_lists()]
        try:
            with transaction.atomic():
                return fn(*args)
        except Problem as problem:
            for entries, count in zip(self.report_lists(), counts, strict=True):
                del entries[count:]  # what the rolled-back write reported
            if self.skipping and (problem.kind == "forbidden" or isinstance(problem, OriginRefused)):
                self.skipped_paths.add(path)  # nothing of it was written: the savepoint is rolled back
                self.report.skipped.append({"path": path, "reason": problem.detail})
                return None
            if problem.kind == "forbidden":  # not the document's fault: the whole import is refused, naming the entity
                raise
            if later is not None and self.deferring and isinstance(problem.__cause__, Unresolved):
                self.deferred.append(later)
                return None
            reasons = (
                problem.errors
                if problem.errors and all(isinstance(e, str) for e in problem.errors)
                else [problem.detail]
            )
            for reason in reasons:  # a Finding (registry.domain.errors) stays one: each binding names its attribute
                self.fail(path, reason if isinstance(reason, Finding) else reason.removeprefix(f"{path}: "))
            return None

    # groups -------------------------------------------------------------------------------------
    def group(self, gt: GroupType, gid: str, data) -> Group | None:
        path = f"/{gt.plural}/{gid}"
        if not isinstance(data, dict):
            self.fail(path, "a group must be an object")
            return None
        if "id" in data and data["id"] != gid:
            self.fail(path, f"id {data['id']!r} does not match the map key {gid!r}")
            return None
        return self.attempt(path, self._group, gt, gid, data)

    def _group(self, gt: GroupType, gid: str, data: dict) -> Group:
        check_id(gid)
        ignore = {r.plural for r in gt.resources} | {f"{r.plural}Url" for r in gt.resources} | {"type"}
        common, extensions = split_attributes(data, ignore=ignore)
        common.pop("id", None)
        group = self.groups.get((gt.plural, gid))
        path = f"/{gt.plural}/{gid}"
        if self.drop_owners:  # the document's owners are left out; a stored group keeps its own
            extensions.pop(group_owners.ATTRIBUTE, None)
            if group is not None and group_owners.ATTRIBUTE in group.extensions:
                extensions[group_owners.ATTRIBUTE] = group.extensions[group_owners.ATTRIBUTE]
        if self.ctx.origin and group is not None:
            self.ctx.guard(path, group)  # a sync never takes a stored group over, changed or not
        if group is None:
            lower_ids = self.group_ids_lower.setdefault(gt.plural, set())
            if gid.lower() in lower_ids:
                raise Problem("id-exists", "{subject} differs only by case from an existing group", subject=path)
            group = group_services.insert_group(self.ctx, gt, gid, common, extensions)
            lower_ids.add(gid.lower())
            self.report.created.append(path)
        elif group_services.update_group_attributes(self.ctx, group, common, extensions):
            self.report.updated.append(path)
        else:
            self.report.unchanged.append(path)
        return group

    def check_orphans(self, gt: GroupType, gid: str, gdata) -> None:
        """The group failed: still validate its resources (without writing) so every error is listed."""
        if not isinstance(gdata, dict):
            return

        group_attrs = {k: v for k, v in gdata.items() if k not in gt.resources_by_plural}
        for record in flatten(registry_model, {gt.plural: {gid: gdata}}):
            if record.kind != "version":
                continue
            # (a version's record names its resource and itself)
            assert record.resource_type is not None and record.rid is not None and record.vid is not None
            rt = gt.resource_type(record.resource_type)
            if record.error:
                self.fail(record.path, record.error)
                continue
            if rt.validate is None or record.document is None:
                continue
            try:
                rt.validate(
                    VersionCheck(
                        group_type=gt.plural,
                        group_id=gid,
                        resource_type=rt.plural,
                        resource_id=record.rid,
                        version_id=record.vid,
                        document=record.document,
                        media_type=record.media_type,
                        resource_uri=record.resource_uri,
                        attributes=record.attributes,
                        resource_attributes={},
                        group_attributes=group_attrs,
                        base_url=self.ctx.base_url,
                        dangling_references=True,
                    )
                )
            except Invalid as exc:
                path = record.path.rsplit("/versions/", 1)[0] if rt.shared_attributes else record.path
                for error in exc.errors:
                    self.fail(path, error)

    # resources ----------------------------------------------------------------------------------
    def resource(self, group: Group, rt: ResourceType, rid: str, data) -> None:
        path = f"{group.path}/{rt.plural}/{rid}"
        if not isinstance(data, dict):
            self.fail(path, f"a {rt.singular} must be an object")
            return
        if "id" in data and data["id"] != rid:
            self.fail(path, f"id {data['id']!r} does not match the map key {rid!r}")
            return
        later = (group, rt, rid, data)
        if rt.shared_attributes and "versions" not in data:
            self.attempt(path, self._flat_resource, group, rt, rid, data, later=later)
        else:
            self.attempt(path, self._versioned_resource, group, rt, rid, data, later=later)

    def _flat_resource(self, group: Group, rt: ResourceType, rid: str, data: dict) -> None:
        check_id(rid)
        inp = VersionInput(
            document=json.dumps(data, ensure_ascii=False).encode(), media_type="application/json", resource_id=rid
        )
        absorb_document(rt, inp, rid)
        resource = Resource.objects.select_for_update().filter(group=group, resource_type=rt.plural, rid=rid).first()
        if resource is None:
            inp.history = self.history
            resource = resource_services.insert_resource(self.ctx, group, rt, rid, inp)
            assert resource.latest is not None  # (made with its first version)
            self.report.created += [resource.path, f"{resource.path}/versions/{resource.latest.vid}"]
            return
        resource.group = group
        if self.ctx.origin:  # a sync skips what it did not bring, changed or not
            self.ctx.guard(resource.path, group, resource)
        changed = self._upsert_version(resource, rt, resource.latest.vid if resource.latest else "1", inp)
        (self.report.updated if changed else self.report.unchanged).append(resource.path)

    def _versioned_resource(self, group: Group, rt: ResourceType, rid: str, data: dict) -> None:
        check_id(rid)
        versions = data.get("versions")
        document_keys = {rt.singular, rt.base64_attribute, rt.uri_attribute, f"{rt.singular}url"}
        if versions is None:
            inline = {k: v for k, v in data.items() if k in document_keys}
            versions = {"1": inline} if inline else {}
        if not isinstance(versions, dict):
            raise Problem("invalid-document", "versions must be a map of version id to version")
        common, extensions = split_attributes(data, ignore={"versions", "versionsUrl", "type"} | document_keys)
        common.pop("id", None)
        attrs = {**{k: v for k, v in common.items() if v is not None}, **extensions}
        path = f"{group.path}/{rt.plural}/{rid}"
        resource, outcome = resource_services.replace_resource(ctx=self.ctx, group=group, rt=rt, rid=rid, attrs=attrs)
        {"created": self.report.created, "updated": self.report.updated, "unchanged": self.report.unchanged}[
            outcome
        ].append(path)
        history = self.history and outcome == "created"
        for vid in versions:  # in the document's order: the order they are created in (attributes.version_order)
            vdata = versions[vid]
            vpath = f"{path}/versions/{vid}"
            if not isinstance(vdata, dict):
                raise Problem("invalid-document", "{subject}: a version must be an object", subject=vpath)
            if "id" in vdata and vdata["id"] != vid:
                raise Problem(
                    "invalid-document", f"{{subject}}: id {vdata['id']!r} does not match the map key", subject=vpath
                )
            inp = self._version_input(rt, resource, vdata, document_keys)
            inp.history = history
            self._upsert_version(resource, rt, vid, inp)
        version_services.apply_retention(self.ctx, resource, rt)
        version_services.refresh_latest(resource)

    def _version_input(self, rt: ResourceType, resource: Resource, vdata: dict, document_keys: set) -> VersionInput:
        common, extensions = split_attributes(vdata, ignore=document_keys | {"type"})
        common.pop("id", None)
        inp = VersionInput(attributes={**common, **extensions})
        uri = vdata.get(rt.uri_attribute, vdata.get(f"{rt.singular}url"))
        if uri is not None:
            if not isinstance(uri, str):
                raise Problem("invalid-attribute", f"{rt.uri_attribute} must be a string")
            inp.resource_uri = uri
        elif rt.base64_attribute in vdata:
            try:
                inp.document = base64.b64decode(vdata[rt.base64_attribute], validate=True)
            except (ValueError, TypeError):
                raise Problem("invalid-attribute", f"{rt.base64_attribute} is not valid base64")
            inp.media_type = "application/octet-stream"
        elif rt.singular in vdata:
            value = vdata[rt.singular]
            if isinstance(value, str):
                inp.document = value.encode()
                attrs = {**version_services.resource_attributes(resource), **inp.attributes}
                guess = rt.media_type_for or (lambda _a, c: default_media_type(c))
                inp.media_type = guess(attrs, inp.document)
            else:
                inp.document = json.dumps(value, ensure_ascii=False).encode()
                inp.media_type = "application/json"
        else:
            raise Problem(
                "invalid-document", f"a version needs {rt.singular}, {rt.base64_attribute} or {rt.uri_attribute}"
            )
        return inp

    def _upsert_version(self, resource: Resource, rt: ResourceType, vid: str, inp: VersionInput) -> bool:
        """Create or update one version through the services; False when it was already as given."""
        outcome = version_services.replace_version(ctx=self.ctx, resource=resource, rt=rt, vid=vid, inp=inp)
        {"created": self.report.created, "updated": self.report.updated, "unchanged": self.report.unchanged}[
            outcome
        ].append(f"{resource.path}/versions/{vid}")
        return outcome != "unchanged"


def _import_order() -> list[GroupType]:
    """Referenced types first: the model's order reversed (schemas, definitions, endpoints)."""
    return list(reversed(registry_model.group_types))


def _refuse(errors: list[dict], *, forcible: bool = False) -> None:
    """The import's refusal listing `errors`; `forcible`: references that name nothing are among them."""
    errors = [dict(pair) for pair in dict.fromkeys(tuple(e.items()) for e in errors)]  # once each, in order
    first = errors[0]
    raise Problem(
        "invalid-document",
        f"{len(errors)} error(s) in the document, nothing was imported (each in errors, with its path); the first "
        "is at {subject}"
        + (
            ". A forced import (?force=true, --force) takes references that resolve to nothing as written"
            if forcible
            else ""
        ),
        subject=first["path"],
        errors=errors,
    )


def named_teams(doc: dict) -> set[str]:
    """The teams the `owners` of the document's groups name."""
    names: set[str] = set()
    for gt in registry_model.group_types:
        groups = doc.get(gt.plural)
        for gdata in groups.values() if isinstance(groups, dict) else ():
            owners = gdata.get(group_owners.ATTRIBUTE) if isinstance(gdata, dict) else None
            if isinstance(owners, dict):
                names.update(owners)
    return names


def import_document(
    ctx: WriteContext, doc: dict, *, owners: str = "keep", force: bool = False, history: bool = True
) -> ImportReport:
    """Create or update every entity of the document; Problem with every error (nothing written) if any fails.
    A reference that names nothing is one of them, unless `force`: then it is accepted and listed in the report's
    `warnings`. `owners`: what is done with the groups' owners (OWNERS_MODES; the module's docstring). `history` (an
    import, CONTRACT 18): the versions of a resource the document creates are its history, stored as given and not
    checked against each other (versions it adds to a stored resource are checked as any new version); False: a
    single write's nested entities (a group PUT with its resources), every version checked."""
    dangling, ctx.dangling_references = ctx.dangling_references, True  # (checked here, once, for the document)
    try:
        return _import(ctx, doc, owners, force, history)
    finally:
        ctx.dangling_references = dangling


@transaction.atomic
def _import(ctx: WriteContext, doc: dict, owners: str, force: bool, history: bool) -> ImportReport:
    importer = _Importer(ctx, owners, history)
    errors = precheck(doc)
    references = check_references(doc, ctx.base_url) if not errors or not force else []
    if errors:
        # refused before any write; the versions' own formats are still checked so that every error is listed
        importer.errors += errors + ([] if force else [r.as_error() for r in references])
        for gt in _import_order():
            groups = doc.get(gt.plural)
            for gid, gdata in (groups if isinstance(groups, dict) else {}).items():
                importer.check_orphans(gt, gid, gdata)
        _refuse(importer.errors, forcible=bool(references) and not force)
    if force:
        importer.report.warnings = [r.as_warning() for r in references]
    else:
        importer.errors += [r.as_error() for r in references]  # listed with the entities' errors, found after
    if not importer.drop_owners:  # made in this transaction: a refused import leaves none
        importer.report.teams_created = group_owners.make_missing_teams(ctx, named_teams(doc))
    for gt in _import_order():
        if isinstance(doc.get(gt.plural), dict):
            importer.preload_groups(gt, list(doc[gt.plural]))
            for gid, gdata in doc[gt.plural].items():
                group = importer.group(gt, gid, gdata)
                if group is None:
                    if f"/{gt.plural}/{gid}" not in importer.skipped_paths:
                        importer.check_orphans(gt, gid, gdata)
                    continue
                for rt in gt.resources:
                    resources = gdata.get(rt.plural) or {}
                    if not isinstance(resources, dict):
                        importer.fail(f"{group.path}/{rt.plural}", "must be a map of id to entity")
                        continue
                    for rid, rdata in resources.items():
                        importer.resource(group, rt, rid, rdata)
    importer.retry_deferred()
    if importer.errors:
        transaction.set_rollback(True)
        _refuse(importer.errors, forcible=bool(references) and not force)
    return importer.report
