"""Writes of the Confluent API, keyword-only, each in one transaction; every change of the store goes through
`registry.services` (which writes the change events), so a registration here is the same write as any other door's.

Config and mode are attributes of the schema group or schema they describe (confluent.attributes), written through
`registry.services` like any other attribute. Soft deletes are this API's own mark (`SubjectVersion.deleted`): they
change no registry entity and emit no change event, and are authorized and audited here as the deletes they stand for
(every write of this API names its user and the door `confluent` in the audit trail). A permanent delete removes the
registry version (or the schema, with its last version) through `registry.services`, which announces it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, replace
from typing import cast

from django.db import transaction

from catalog.validators.shapes import as_object
from registry.domain.attributes import Attributes
from registry.domain.errors import Problem
from registry.models import AuditRecord, Group, Resource, Version
from registry.services import (
    EntityAddress,
    VersionInput,
    WriteContext,
    create_group,
    create_resource,
    create_version,
    delete_resource,
    delete_version,
    set_group_extensions,
    set_resource_meta,
)
from registry.services.resources import get_group, lock_resource
from registry.store import audit

from . import selectors
from .association_shapes import ATTRIBUTE as ASSOCIATIONS
from .attributes import COMPATIBILITY, MODE, PENDING, SUBJECT_SETTINGS, VERSION_METADATA, VERSION_RULE_SET
from .contracts import (
    merge_metadata,
    merge_rule_sets,
    metadata_problem,
    named,
    normal_metadata,
    normal_rule_set,
    rule_set_problem,
    with_version,
)
from .errors import (
    ID_MISMATCH,
    INCOMPATIBLE,
    INVALID_COMPATIBILITY,
    INVALID_CONFIG,
    INVALID_RULE_SET,
    INVALID_SCHEMA,
    INVALID_SUBJECT,
    NOT_PERMITTED,
    REFERENCE_EXISTS,
    SUBJECT_NOT_SOFT_DELETED,
    VERSION_NOT_SOFT_DELETED,
    ConfluentError,
    subject_not_found,
    version_not_found,
)
from .models import SubjectVersion
from .numbering import contracts_of, ensure_numbered, next_number, schema_id_for
from .references import resolve_references  # noqa: F401 - the API's
from .schema_types import REFERENCES, Prepared, prepare, referenced_documents
from .subjects import GROUPS, SCHEMAS, Subject, parse


@dataclass
class Registration:
    """A registration's body: `schema`, `schemaType`, `references`, `metadata` and `ruleSet` (checked and in their
    normal form: confluent.contracts); `id` and `version` only in IMPORT mode."""

    schema: str
    schema_type: str = "AVRO"
    references: list[Attributes] = field(default_factory=list)
    metadata: Attributes | None = None
    rule_set: Attributes | None = None
    id: int | None = None
    version: int | None = None
    guid: uuid.UUID | None = None  # an import's: the source's GUID, kept for a new content when free


def _check_mode(subject: Subject, inp: Registration | None = None, resource: object = selectors.NOT_READ) -> str:
    mode = selectors.effective_mode(subject, resource)
    if mode == "READONLY":
        raise ConfluentError(NOT_PERMITTED, f"Subject {subject.name} is in read-only mode")
    if inp is not None and mode != "IMPORT" and (inp.id is not None or inp.version is not None):
        raise ConfluentError(
            NOT_PERMITTED, f"Subject {subject.name} is not in import mode: a registration cannot give its id or version"
        )
    return mode


def _ensure_group(ctx: WriteContext, group_id: str) -> Group:
    group = Group.objects.filter(group_type=GROUPS, gid=group_id).first()
    if group is None:
        try:
            group = create_group(ctx=ctx, address=EntityAddress(GROUPS), data={"id": group_id})
        except Problem as exc:
            if exc.kind == "id-exists":  # created meanwhile by a concurrent registration (or differs by case)
                group = Group.objects.filter(group_type=GROUPS, gid=group_id).first()
                if group is not None:
                    return group
            if exc.status != 400:  # forbidden (403), the store busy (503): as for any write
                raise
            raise ConfluentError(INVALID_SUBJECT, f"the context's schema group {group_id!r}: {exc.detail}")
    return group


def _known(match: SubjectVersion | None, inp: Registration) -> SubjectVersion | None:
    """The version that answers a registration of content the subject already has live (None: not that case)."""
    if match is None or not (inp.version is None or inp.version == match.number):
        return None
    if inp.id is not None and inp.id != match.schema_id_id:
        raise ConfluentError(ID_MISMATCH, f"Schema already registered with id {match.schema_id_id} instead of {inp.id}")
    return match


def checked_contracts(inp: Registration) -> Registration:
    """The registration with its metadata and rule set in their normal form; 42201 naming the member of a metadata
    of another shape, 42210 (Confluent's invalid rule set) that of a rule set."""
    if inp.metadata is not None and (problem := metadata_problem(inp.metadata)):
        raise ConfluentError(INVALID_SCHEMA, f"Invalid schema: {named('metadata', problem)}")
    if inp.rule_set is not None and (problem := rule_set_problem(inp.rule_set)):
        raise ConfluentError(INVALID_RULE_SET, f"Invalid rule set: {named('ruleSet', problem)}")
    return replace(inp, metadata=normal_metadata(inp.metadata), rule_set=normal_rule_set(inp.rule_set))


@dataclass
class Contracts:
    """The metadata and rule set a registration stores (merged with the previous version's and the config's defaults
    and overrides), and the keys it finds a version it already has by."""

    metadata: Attributes | None
    rule_set: Attributes | None
    keys: list[str]


def _object_member(config: Attributes, name: str) -> Attributes | None:
    value = config.get(name)
    return value if isinstance(value, dict) else None  # (the config's members were checked when they were set)


def contracts(
    inp: Registration, prepared: Prepared, config: Attributes, previous: SubjectVersion | None, *, merge: bool
) -> Contracts:
    """What Confluent's registry stores for a registration (`maybeSetMetadataRuleSet`): the metadata sent, else the
    previous version's (`previous`: the subject's latest live version, None without one), under the config's
    `defaultMetadata` and over it its `overrideMetadata` (each merged member by member); the rule set likewise. Not
    merged (`merge` False: IMPORT mode) they are as sent. The keys: the content with the metadata and rule set as sent
    when the config has no defaults or overrides (Confluent looks that up first), then with the merged ones."""
    if not merge:
        return Contracts(inp.metadata, inp.rule_set, [prepared.key_with(inp.metadata, inp.rule_set)])
    earlier_metadata, earlier_rule_set = (
        contracts_of(previous.version.extensions) if previous is not None else (None, None)
    )
    specific_metadata = inp.metadata if inp.metadata is not None else earlier_metadata
    specific_rule_set = inp.rule_set if inp.rule_set is not None else earlier_rule_set
    metadata = normal_metadata(
        merge_metadata(
            merge_metadata(_object_member(config, "defaultMetadata"), specific_metadata),
            _object_member(config, "overrideMetadata"),
        )
    )
    rule_set = normal_rule_set(
        merge_rule_sets(
            merge_rule_sets(_object_member(config, "defaultRuleSet"), specific_rule_set),
            _object_member(config, "overrideRuleSet"),
        )
    )
    keys = []
    if not any(
        config.get(name) for name in ("defaultMetadata", "overrideMetadata", "defaultRuleSet", "overrideRuleSet")
    ):
        keys.append(prepared.key_with(inp.metadata, inp.rule_set))
    keys.append(prepared.key_with(metadata, rule_set))
    return Contracts(metadata, rule_set, list(dict.fromkeys(keys)))


def _has(resource: Resource, found: Contracts, inp: Registration) -> SubjectVersion | None:
    for key in found.keys:
        known = _known(selectors.with_content(resource, key), inp)
        if known is not None:
            return known
    return None


@transaction.atomic
def register(*, ctx: WriteContext, subject: Subject, data: Registration, importing: bool = False) -> SubjectVersion:
    """POST /subjects/S/versions: the subject version of the schema (its id and number), registering it as a new
    version when the subject has no live version with the same content (the API answers it: api.render.registered).
    `importing` (the import_confluent command, an operator's tool) takes a given id and version whatever the mode.

    Content the subject has is answered after a few indexed reads (the serializers register at every start); a new
    version is numbered under the schema's row lock (the lock its write takes anyway), so concurrent registrations
    to one subject get consecutive numbers, and the same content twice one version. A subject (or context) created
    by a concurrent registration meanwhile is registered to as it then exists."""
    inp = checked_contracts(data)
    if subject.resource_id is None:  # a context
        raise ConfluentError(INVALID_SUBJECT, f"{subject.name!r} names a context, not a subject")
    resource = selectors.find_resource(subject)
    mode = "IMPORT" if importing else _check_mode(subject, inp, resource)
    # IMPORT mode (and the import command) brings a subject's history: its versions are stored as given, each checked
    # alone and not against the subject's other versions (CONTRACT 18)
    history = mode == "IMPORT"
    references = resolve_references(inp.references, subject)
    prepared = prepare(inp.schema_type, inp.schema, references)
    prepared.referenced = prepared.referenced or referenced_documents(references)  # resolved here, not again
    config = selectors.config_in_scope(subject, resource)
    merge = mode != "IMPORT"  # Confluent's IMPORT mode stores a registration as it is sent
    if resource is None:
        try:
            with transaction.atomic():
                found = contracts(inp, prepared, config, None, merge=merge)
                return _write(ctx, subject, inp, prepared, None, found, history)
        except Problem as exc:
            resource = selectors.find_resource(subject) if exc.kind == "id-exists" else None
            if resource is None:
                raise
    ensure_numbered(resource)
    found = contracts(inp, prepared, config, selectors.latest_live(resource), merge=merge)
    known = _has(resource, found, inp)
    if known is not None:
        return known
    resource = lock_resource(get_group(GROUPS, subject.group_id), SCHEMAS, subject.resource_id)
    found = contracts(inp, prepared, config, selectors.latest_live(resource), merge=merge)  # as it is under the lock
    known = _has(resource, found, inp)  # registered meanwhile
    if known is not None:
        return known
    return _write(ctx, subject, inp, prepared, resource, found, history)


def _write(
    ctx: WriteContext,
    subject: Subject,
    inp: Registration,
    prepared: Prepared,
    resource: Resource | None,
    found: Contracts,
    history: bool = False,
) -> SubjectVersion:
    """A new version of the subject (its first one, creating the schema, when `resource` is None), numbered, with
    its schema id and its metadata and rule set (`found`); `history`: an import's (VersionInput.history)."""
    top, latest_type = selectors.top_and_latest_type(resource)
    if latest_type is not None and latest_type != prepared.schema_type:
        raise ConfluentError(
            INCOMPATIBLE,
            f'Schema being registered is incompatible with an earlier schema for subject "{subject.name}", '
            f"details: [schemaType {prepared.schema_type} differs from {latest_type}]",
        )
    if inp.version is not None:
        if resource is not None and SubjectVersion.objects.filter(resource=resource, number=inp.version).exists():
            raise ConfluentError(NOT_PERMITTED, f"Version {inp.version} of subject {subject.name} already exists")
        number = inp.version
    else:
        floor = max(top, resource.version_counter if resource is not None else 0)
        number = next_number({floor}, "")
    metadata = with_version(found.metadata, number)  # confluent:version, where the metadata has it
    vid: str | None = str(number)
    if inp.version is not None and resource is not None and resource.versions.filter(vid=vid).exists():
        # an IMPORT's number taken as a version id by another door: the registry picks the id (a number given here is
        # above the resource's version counter, which is above every integer version id)
        vid = None
    version_input = VersionInput(
        document=prepared.document,
        media_type=prepared.media_type,
        # the references as a version attribute, which every binding shows, exports and imports (None: none, not
        # those of the version it would inherit from)
        attributes={
            "format": prepared.format,
            REFERENCES: prepared.references or None,
            VERSION_METADATA: metadata,
            VERSION_RULE_SET: found.rule_set,
        },
        version_id=vid,
        referenced_documents=prepared.referenced,  # the catalog's check knows the referenced Avro named types
        history=history,
    )
    address = _subject_address(subject)
    # a refusal of the store (invalid, incompatible, forbidden, past the check's budget) is a Problem that the
    # binding writes in Confluent's words (confluent.errors.code_of), and the transaction rolls back
    if resource is None:
        group = _ensure_group(ctx, subject.group_id)
        pending = selectors.pending_settings(group.extensions, subject)
        resource = create_resource(ctx=ctx, address=address, data=version_input)
        version = cast(Version, resource.latest)  # (a schema created with its first version: that one)
        if pending:
            _take_pending(ctx, subject, pending)
    else:
        _resource, version = create_version(ctx=ctx, address=address, data=version_input)
    schema = schema_id_for(
        key=prepared.key_with(metadata, found.rule_set),
        schema_type=prepared.schema_type,
        text=prepared.document.decode(),
        references=prepared.references,
        metadata=metadata,
        rule_set=found.rule_set,
        given=inp.id,
        guid=inp.guid,
    )
    row = SubjectVersion.objects.create(
        version=version,
        resource=resource,
        number=number,
        schema_id=schema,
        epoch=version.epoch,
        references=prepared.references,
    )
    return row


def _soft_delete(ctx: WriteContext, resource: Resource, rows: list[SubjectVersion]) -> None:
    """Mark versions soft-deleted (the caller authorized it as their delete): this API's own mark, which changes no
    registry entity and emits no change event, with an audit row per version (an update, its epoch unchanged, what
    changed: Confluent's `deleted` mark), naming the user and the door, in this transaction."""
    SubjectVersion.objects.filter(pk__in=[row.pk for row in rows], deleted=False).update(deleted=True)
    changes = [
        (
            f"{resource.path}/versions/{row.version.vid}",
            "update",
            (row.version.epoch,) * 2,
            audit.changes({"deleted": row.deleted}, {"deleted": True}),
        )
        for row in rows
    ]
    AuditRecord.objects.bulk_create(audit.rows(ctx, changes, ctx.now))


def _referenced(subject: Subject, rows: list[SubjectVersion]) -> None:
    for row in rows:
        if selectors.referenced_by(subject.name, row.number):
            raise ConfluentError(
                REFERENCE_EXISTS,
                f"One or more references exist to the schema {{subject={subject.name}, version={row.number}}}",
            )


@transaction.atomic
def delete_subject(*, ctx: WriteContext, subject: Subject, permanent: bool) -> list[int]:
    """DELETE /subjects/S: soft-delete every version, or (`permanent`, after a soft delete) remove the schema."""
    _check_mode(subject)
    resource, rows = selectors.existing_subject(subject, deleted=True)
    if resource.extensions.get(
        ASSOCIATIONS
    ):  # a topic's subject: its associations go first (DELETE /associations/resources/{id})
        raise ConfluentError(40904, f"An association already exists for subject '{subject.name}'")
    if not permanent:
        ctx.authorize("resource", "delete", resource.path)  # as the permanent delete (registry.access.permissions)
        live = [row for row in rows if not row.deleted]
        if not live:
            raise ConfluentError(
                40404, f"Subject '{subject.name}' was soft deleted. Set permanent=true to delete permanently"
            )
        _referenced(subject, live)
        _soft_delete(ctx, resource, live)
        return [row.number for row in live]
    if any(not row.deleted for row in rows):
        raise ConfluentError(
            SUBJECT_NOT_SOFT_DELETED,
            f"Subject '{subject.name}' was not deleted first before being permanently deleted",
        )
    _referenced(subject, rows)
    delete_resource(ctx=ctx, address=_subject_address(subject))  # its settings (attributes) go with it
    return [row.number for row in rows]


@transaction.atomic
def delete_subject_version(*, ctx: WriteContext, subject: Subject, version: str, permanent: bool) -> int:
    """DELETE /subjects/S/versions/V: soft-delete it, or (`permanent`, after a soft delete) remove it (with the
    schema when it is the schema's last version)."""
    _check_mode(subject)
    number = selectors.parse_version(version)
    resource, rows = selectors.existing_subject(subject, deleted=True)
    if number is None:
        row = selectors.latest_row(resource, [row for row in rows if not row.deleted])
        if row is None:
            raise subject_not_found(subject.name)
    else:
        row = next((r for r in rows if r.number == number), None)
        if row is None:
            raise version_not_found(subject.name, number)
    if not permanent:
        ctx.authorize("version", "delete", f"{resource.path}/versions/{row.version.vid}")  # as the permanent delete
    _referenced(subject, [row])
    if not permanent:
        if row.deleted:
            raise ConfluentError(
                40406,
                f"Subject '{subject.name}' Version {row.number} was soft deleted. Set permanent=true to delete permanently",
            )
        _soft_delete(ctx, resource, [row])
        return row.number
    if not row.deleted:
        raise ConfluentError(
            VERSION_NOT_SOFT_DELETED,
            f"Subject '{subject.name}' Version {row.number} was not deleted first before being permanently deleted",
        )
    address = _subject_address(subject)
    if len(rows) == 1 and resource.versions.count() == 1:
        delete_resource(ctx=ctx, address=address)
    else:
        delete_version(ctx=ctx, address=address.version(row.version.vid))
    return row.number


def _subject_address(subject: Subject) -> EntityAddress:
    return EntityAddress(GROUPS, subject.group_id, SCHEMAS, subject.resource_id)


def _set_settings(ctx: WriteContext, subject: Subject, changes: Attributes) -> None:
    """Some of a context's or a subject's settings (confluent.attributes), each `name -> value` (None removes it): the
    group's or the schema's attributes, or the entry its group keeps for a subject without a schema; in one write of
    the entity. Written through the registry's services, which check the values (400 naming the attribute: the
    views check them first in Confluent's words), authorize the write (a group's own attribute: its owners'; a
    subject's: an editor's, as the schema's level), record its audit row and emit its event."""
    removes_only = all(value is None for value in changes.values())
    if subject.is_context:
        if removes_only and not Group.objects.filter(group_type=GROUPS, gid=subject.group_id).exists():
            return
        _ensure_group(ctx, subject.group_id)
        set_group_extensions(ctx=ctx, address=EntityAddress(GROUPS, subject.group_id), changes=dict(changes))
        return
    address = _subject_address(subject)
    resource = selectors.find_resource(subject)
    if resource is not None:
        if COMPATIBILITY in changes:
            # the schema's level: removing it takes set_resource_meta's replace (a level given equal to the one the
            # schema inherits is not kept either: it keeps inheriting), the other meta attributes kept as they are
            kept = ("defaultversionid", "defaultversionsticky", *SUBJECT_SETTINGS)
            meta = {k: v for k, v in resource.extensions.items() if k in kept and k not in changes}
            meta.update({k: v for k, v in changes.items() if v is not None})
            set_resource_meta(ctx=ctx, address=address, meta=meta, replace=True)
        else:
            set_resource_meta(ctx=ctx, address=address, meta=dict(changes))
        return
    if removes_only and not Group.objects.filter(group_type=GROUPS, gid=subject.group_id).exists():
        return
    _ensure_group(ctx, subject.group_id)

    def pending(extensions: Attributes) -> Attributes:
        kept = dict(as_object(extensions.get(PENDING)))
        entry = {k: v for k, v in as_object(kept.get(subject.resource_id)).items() if k not in changes}
        entry.update({k: v for k, v in changes.items() if v is not None})
        if entry:
            kept[subject.resource_id] = entry
        else:
            kept.pop(subject.resource_id, None)
        return {PENDING: kept or None}

    # kept by the group for the schema it becomes: authorized as the write of that schema's attribute
    set_group_extensions(
        ctx=ctx,
        address=EntityAddress(GROUPS, subject.group_id),
        changes=pending,
        authorized_as=("resource", address.path),
    )


def _take_pending(ctx: WriteContext, subject: Subject, settings: Attributes) -> None:
    """A new schema takes the settings its group kept for its subject (they leave the group)."""
    address = _subject_address(subject)
    set_resource_meta(ctx=ctx, address=address, meta=dict(settings), announced=True)

    def without(extensions: Attributes) -> Attributes:
        kept = {k: v for k, v in as_object(extensions.get(PENDING)).items() if k != subject.resource_id}
        return {PENDING: kept or None}

    set_group_extensions(
        ctx=ctx,
        address=EntityAddress(GROUPS, subject.group_id),
        changes=without,
        authorized_as=("resource", address.path),
    )


@transaction.atomic
def set_compatibility(*, ctx: WriteContext, subject: Subject | None, level: str | None) -> None:
    """PUT (level) or DELETE (None) /config[/S]: the schema's `compatibility`, the context's group's, or kept for a
    subject that does not exist yet. `subject` None is the default context (the global level)."""
    if subject is None:
        subject = parse(":.:", allow_context=True)
    set_config(ctx=ctx, subject=subject, changes={COMPATIBILITY: level})


@transaction.atomic
def set_config(*, ctx: WriteContext, subject: Subject | None, changes: Attributes) -> None:
    """PUT or DELETE /config[/S]: attributes of the config (confluent.attributes.CONFIG_SETTINGS: the level, the
    defaults and overrides, the compatibility group, normalize, validateFields) of the schema, of the context's group
    (`subject` None: the default context's, the global config), or kept for a subject that does not exist yet; each
    `name -> value`, None removing it; one write."""
    if subject is None:
        subject = parse(":.:", allow_context=True)
    if not changes:
        return
    try:
        _set_settings(ctx, subject, changes)
    except Problem as exc:
        if exc.status != 400 or exc.kind == "id-exists" or isinstance(exc, ConfluentError):
            raise
        raise ConfluentError(INVALID_COMPATIBILITY if set(changes) == {COMPATIBILITY} else INVALID_CONFIG, exc.detail)


@transaction.atomic
def set_mode(*, ctx: WriteContext, subject: Subject | None, mode: str | None, force: bool = False) -> None:
    """PUT (mode) or DELETE (None) /mode[/S]: the `confluentmode` of the schema, of the context's group (the global
    mode: the default context's), or kept for a subject that does not exist yet. IMPORT on a scope that holds
    subjects needs `force`."""
    if subject is None:
        subject = parse(":.:", allow_context=True)
    if mode == "IMPORT" and not force:
        found = [parse(name) for name in selectors.subject_names()]  # those with live versions
        holds = [s for s in found if s.group_id == subject.group_id and subject.resource_id in (None, s.resource_id)]
        if holds:
            raise ConfluentError(
                NOT_PERMITTED, "Cannot import since found existing subjects; use ?force=true to switch to IMPORT anyway"
            )
    _set_settings(ctx, subject, {MODE: mode})
