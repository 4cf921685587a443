"""Reads of the Confluent API over the registry's store: subjects, their numbered versions, schema ids, the
effective compatibility level and mode (docs/confluent.md)."""

from __future__ import annotations

import uuid

from django.db.models import Exists, F, OuterRef

from registry.domain.attributes import version_sort_key
from registry.domain.model import effective_compatibility as default_or
from registry.models import Group, Resource, Version

from . import subjects
from .attributes import (  # noqa: F401 - MODES: the API's
    COMPATIBILITY,
    CONFIG_ATTRIBUTES,
    DEFAULT_MODE,
    MODE,
    MODES,
    PENDING,
    VERSION_METADATA,
)
from .contracts import property_of
from .errors import ConfluentError, schema_not_found, subject_not_found, version_not_found
from .models import MAX_SCHEMA_ID, SchemaId, SubjectVersion
from .numbering import ensure_numbered
from .schema_types import REFERENCES, type_of_format
from .subjects import GROUPS, SCHEMAS, Subject

NOT_READ = object()  # a schema the caller has not looked for (None: it looked, and there is none)
_SCHEMA_BY_ID = (
    f"SELECT s.* FROM {SchemaId._meta.db_table} s WHERE s.id = %s AND EXISTS "
    f"(SELECT 1 FROM {SubjectVersion._meta.db_table} v WHERE v.schema_id_id = s.id)"
)


def find_resource(subject: Subject) -> Resource | None:
    """The schema a subject names (ids match exactly: `Foo` is not `foo`), with its group."""
    if subject.resource_id is None:
        return None
    return (
        Resource.objects.select_related("group")
        .filter(group__group_type=GROUPS, group__gid=subject.group_id, resource_type=SCHEMAS, rid=subject.resource_id)
        .first()
    )


def subject_versions(resource: Resource, *, deleted: bool = False, documents: bool = False) -> list[SubjectVersion]:
    """The subject's versions by number (soft-deleted ones only when asked), numbering new ones first; their
    documents and schema texts are read only with `documents` (a compatibility test compares them)."""
    ensure_numbered(resource)
    rows = SubjectVersion.objects.filter(resource=resource).select_related("version", "schema_id").order_by("number")
    if not documents:
        rows = rows.defer("version__content", "schema_id__schema", "schema_id__references")
    if not deleted:
        rows = rows.filter(deleted=False)
    return list(rows)


def existing_subject(subject: Subject, *, deleted: bool = False) -> tuple[Resource, list[SubjectVersion]]:
    """A subject with at least one version (soft-deleted ones count with `deleted`); 40401 otherwise. The rows
    without their documents (subject_versions)."""
    resource = find_resource(subject)
    if resource is None:
        raise subject_not_found(subject.name)
    rows = subject_versions(resource, deleted=deleted)
    if not rows:
        raise subject_not_found(subject.name)
    return resource, rows


def version_numbers(subject: Subject, *, deleted: bool = False, deleted_only: bool = False) -> list[int]:
    """The subject's version numbers in order: the live ones, all with `deleted`, the soft-deleted ones alone with
    `deleted_only`; 40401 when it has none (soft-deleted ones count with either flag). Numbers new versions first,
    then reads the numbers alone, not the rows with their versions and schema ids (a subject may have thousands)."""
    resource = find_resource(subject)
    if resource is None:
        raise subject_not_found(subject.name)
    ensure_numbered(resource)
    rows = SubjectVersion.objects.filter(resource=resource)
    if not (deleted or deleted_only):
        rows = rows.filter(deleted=False)
    found = list(rows.order_by("number").values_list("number", "deleted"))
    if not found:
        raise subject_not_found(subject.name)
    return [number for number, gone in found if gone or not deleted_only]


def _rows_of(resource: Resource):
    return SubjectVersion.objects.filter(resource=resource).select_related("version", "schema_id")


def with_content(
    resource: Resource | None, key: str, *, deleted: bool = False, newest: bool = False
) -> SubjectVersion | None:
    """The subject's first (or `newest`) version whose content has the schema id key `key`, live unless `deleted`:
    one query (the subject must have been numbered: ensure_numbered)."""
    if resource is None:
        return None
    rows = _rows_of(resource).filter(schema_id__key=key)
    if not deleted:
        rows = rows.filter(deleted=False)
    return rows.order_by("-number" if newest else "number").first()


def has_versions(resource: Resource, *, deleted: bool = False) -> bool:
    rows = SubjectVersion.objects.filter(resource=resource)
    return (rows if deleted else rows.filter(deleted=False)).exists()


def top_and_latest_type(resource: Resource | None) -> tuple[int, str | None]:
    """The highest version number the subject has given (soft-deleted versions included; 0 without one) and the
    schemaType of its newest live version (None without one): one query unless the newest is soft-deleted."""
    if resource is None:
        return 0, None
    rows = SubjectVersion.objects.filter(resource=resource).order_by("-number")
    top = rows.values_list("number", "deleted", "schema_id__schema_type").first()
    if top is None:
        return 0, None
    if not top[1]:
        return top[0], top[2]
    return top[0], rows.filter(deleted=False).values_list("schema_id__schema_type", flat=True).first()


def latest_row(resource: Resource, rows: list[SubjectVersion]) -> SubjectVersion | None:
    """Of these numbered versions of a subject, the one `versions/latest` names (CONTRACT 18): the registry's latest
    version of the schema (`Resource.latest`: the greatest version id, or a sticky default) when it is among them,
    else the one with the greatest version id (`registry.domain.attributes.version_sort_key`); None without any. The
    numbers stay in the order the versions were created in."""
    found = next((row for row in rows if row.version_id == resource.latest_id), None)
    return found or max(rows, key=lambda row: version_sort_key(row.version.vid), default=None)


def parse_version(value: str, subject_name: str | None = None) -> int | None:
    """A version in a path: a number in 1..2^31-1, or `latest` / -1 (None); 42202 otherwise."""
    if value == "latest" or value == "-1":
        return None
    if value.isascii() and value.isdigit() and len(value) <= 10 and 1 <= int(value) <= MAX_SCHEMA_ID:
        return int(value)
    shown = value.encode("utf-8", "backslashreplace").decode()[:40]
    raise ConfluentError(
        42202,
        f"The specified version '{shown}' is not a valid version id. Allowed values are between "
        f'[1, 2^31-1] and the string "latest"',
    )


def one_version(subject: Subject, version: str, *, deleted: bool = False) -> tuple[Resource, SubjectVersion]:
    """The version `version` (a number, or `latest` / -1: `latest_row`'s, of the live ones, of all with `deleted`) of
    a subject: 40401 when the subject has none, 40402 when it has not that one (or it is soft-deleted, unless
    `deleted`). One query for the row, with its document (two when the registry's latest has no number here)."""
    number = parse_version(version)
    resource = find_resource(subject)
    if resource is None:
        raise subject_not_found(subject.name)
    ensure_numbered(resource)
    rows = _rows_of(resource)
    if number is None:
        row = _latest_of(resource, rows if deleted else rows.filter(deleted=False))
        if row is None:
            raise subject_not_found(subject.name)
        return resource, row
    row = rows.filter(number=number).first()
    if row is None:
        if not has_versions(resource, deleted=True):
            raise subject_not_found(subject.name)
        raise version_not_found(subject.name, number)
    if row.deleted and not deleted:
        raise version_not_found(subject.name, number)
    return resource, row


def subject_names(*, prefix: str = "", deleted: bool = False, deleted_only: bool = False) -> list[str]:
    """Every subject of every context (schema group), sorted; soft-deleted subjects with `deleted` or alone with
    `deleted_only`. Reads only: the writes number what they write (confluent.numbering.number_written); a schema
    whose numbering has not run yet (another write held it, or a crash came between) is a subject when one of its
    versions has a document of a Confluent type (none of its versions can be soft-deleted: that takes a number)."""
    mine = SubjectVersion.objects.filter(resource=OuterRef("pk"))
    if deleted_only:
        shown = Exists(mine.filter(deleted=True))
    elif deleted:
        shown = Exists(mine)
    else:
        shown = Exists(mine.filter(deleted=False))
    candidates = shown if deleted_only else shown | ~Exists(mine)
    rows = (
        Resource.objects.filter(group__group_type=GROUPS, resource_type=SCHEMAS)
        .filter(candidates)
        .annotate(shown=shown)
        .order_by()  # sorted by name below: not by the model's ordering first
        .values_list("pk", "group__gid", "rid", "shown")
    )
    found, unnumbered = {}, []
    for pk, gid, rid, listed in rows:
        name = subjects.name_of(gid, rid)
        if name is None or not name.startswith(prefix):
            continue
        found[pk] = name
        if not listed:
            unnumbered.append(pk)
    if unnumbered:
        typed = {
            resource_id
            for resource_id, extensions, own in Version.objects.filter(
                resource_id__in=unnumbered, content__isnull=False, resource_uri__isnull=True
            ).values_list("resource_id", "extensions", "resource__extensions")
            # a version that names no format has its schema's
            if type_of_format((extensions or {}).get("format") or (own or {}).get("format")) is not None
        }
        for pk in unnumbered:
            if pk not in typed:
                del found[pk]
    return sorted(found.values())


def context_names() -> list[str]:
    gids = Group.objects.filter(group_type=GROUPS).values_list("gid", flat=True)
    return sorted({subjects.context_name(gid) for gid in gids} | {"."})


def schema_by_id(value: str) -> SchemaId:
    """The schema of an id while some version of some subject has its content (soft-deleted ones included). One
    query, written out: the ORM's compilation of the same query (an annotated EXISTS) cost twice the rest of the
    read (the API's most frequent one: deserializers look ids up)."""
    if not (value.isascii() and value.isdigit() and len(value) <= 10 and 1 <= int(value) <= MAX_SCHEMA_ID):
        raise schema_not_found(f"Schema {value[:20]} not found")
    found = next(iter(SchemaId.objects.raw(_SCHEMA_BY_ID, [int(value)])), None)
    if found is None:
        raise schema_not_found(f"Schema {value} not found")
    return found


def schema_by_guid(value: str) -> SchemaId:
    """The schema of a GUID while some version of some subject has its content (soft-deleted ones included)."""
    try:
        guid = uuid.UUID(value)
    except ValueError:
        raise schema_not_found(f"Schema {value[:40]} not found")
    found = SchemaId.objects.filter(guid=guid, subject_versions__isnull=False).first()
    if found is None:
        raise schema_not_found(f"Schema {value} not found")
    return found


def versions_of_id(schema: SchemaId, *, deleted: bool = False, subject: str | None = None) -> list[dict]:
    rows = SubjectVersion.objects.filter(schema_id=schema).select_related("resource__group")
    if not deleted:
        rows = rows.filter(deleted=False)
    out = []
    for row in rows:
        name = subjects.name_of(row.resource.group.gid, row.resource.rid)
        if name is not None and (subject is None or name == subject):
            out.append({"subject": name, "version": row.number})
    return sorted(out, key=lambda item: (item["subject"], item["version"]))


def _number_referrers() -> None:
    """Number the schemas whose versions carry references (their `references` attribute, confluent.references) but
    have no up-to-date row: written through another door since this API last read them. One query when none."""
    stale = (
        Version.objects.filter(
            resource__group__group_type=GROUPS,
            resource__resource_type=SCHEMAS,
            extensions__has_key=REFERENCES,
        )
        .exclude(confluent__epoch=F("epoch"))
        .values_list("resource_id", flat=True)
        .distinct()
    )
    for resource in Resource.objects.filter(pk__in=list(stale)):
        ensure_numbered(resource)


def referenced_by(subject_name: str, number: int) -> list[int]:
    """The schema ids whose versions reference this subject version (wherever they were written)."""
    _number_referrers()
    found = set()
    for row in SubjectVersion.objects.exclude(references=[]).only("schema_id", "references"):
        for ref in row.references or []:
            if ref.get("subject") == subject_name and ref.get("version") == number:
                found.add(row.schema_id_id)
    return sorted(found)


def group_extensions(group_id: str) -> dict | None:
    """A context's schema group's attributes (None: no such group)."""
    return Group.objects.filter(group_type=GROUPS, gid=group_id).values_list("extensions", flat=True).first()


def pending_settings(extensions: dict | None, subject: Subject) -> dict:
    """The settings kept for a subject that has no schema yet, by its group (confluent.attributes)."""
    found = ((extensions or {}).get(PENDING) or {}).get(subject.resource_id)
    return found if isinstance(found, dict) else {}


def subject_setting(subject: Subject, name: str, resource=NOT_READ) -> str | None:
    """The subject's own `compatibility` or `confluentmode`: its schema's attribute, or the one its group keeps for
    it while it has no schema (`resource`: the schema, when the caller found it)."""
    if resource is NOT_READ:
        resource = find_resource(subject)
    if resource is not None:
        return resource.extensions.get(name)
    return pending_settings(group_extensions(subject.group_id), subject).get(name)


def group_compatibility(group_id: str) -> str | None:
    return (group_extensions(group_id) or {}).get(COMPATIBILITY)


def group_mode(group_id: str) -> str | None:
    return (group_extensions(group_id) or {}).get(MODE)


def subject_compatibility(subject: Subject) -> str | None:
    """The level set for the subject itself (the schema's `compatibility`, or the one kept until it exists)."""
    return subject_setting(subject, COMPATIBILITY)


def global_compatibility() -> str:
    return default_or(group_compatibility(subjects.default_group()))


def effective_compatibility(subject: Subject) -> str:
    """The level the catalog's check applies (catalog.hooks): the schema's, else its group's, else the default; a
    context's subjects do not inherit the default context's level."""
    return default_or(subject_compatibility(subject), group_compatibility(subject.group_id))


def effective_mode(subject: Subject | None, resource=NOT_READ) -> str:
    """The mode that applies: the subject's own (its schema's `confluentmode`, or the one kept until it exists),
    else its context's (the group's `confluentmode`), else READWRITE. The global mode (`subject` None) is the default
    context's; like the level, it is not inherited by the other contexts (each its own group, its owners' to set).
    `resource`: the subject's schema with its group, when the caller found it (no query then)."""
    if subject is None:
        return group_mode(subjects.default_group()) or DEFAULT_MODE
    if subject.is_context:
        return group_mode(subject.group_id) or DEFAULT_MODE
    if resource is NOT_READ:
        resource = find_resource(subject)
    if resource is not None:
        return resource.extensions.get(MODE) or resource.group.extensions.get(MODE) or DEFAULT_MODE
    extensions = group_extensions(subject.group_id)
    return pending_settings(extensions, subject).get(MODE) or (extensions or {}).get(MODE) or DEFAULT_MODE


def _config_of(attributes: dict | None) -> dict:
    """The /config members an entity's (or a pending entry's) attributes hold, by their Confluent names."""
    attributes = attributes or {}
    return {member: attributes[name] for member, name in CONFIG_ATTRIBUTES.items() if attributes.get(name) is not None}


def own_config(subject: Subject, resource=NOT_READ) -> dict:
    """The config members set for a context (its group's attributes) or a subject itself (its schema's, or those its
    group keeps until it exists), the level among them as `compatibilityLevel` (upper case) when set."""
    if subject.is_context:
        attributes = group_extensions(subject.group_id) or {}
    else:
        if resource is NOT_READ:
            resource = find_resource(subject)
        if resource is not None:
            attributes = resource.extensions
        else:
            attributes = pending_settings(group_extensions(subject.group_id), subject)
    out = {}
    if attributes.get(COMPATIBILITY):
        out["compatibilityLevel"] = attributes[COMPATIBILITY].upper()
    out.update(_config_of(attributes))
    return out


def config_in_scope(subject: Subject | None, resource=NOT_READ) -> dict:
    """The config that applies to a subject (or a context, or with None the default context's), member by member:
    the subject's own, else its context's (its group's), the level the effective one (`compatibilityLevel`)."""
    if subject is None:
        subject = subjects.parse(":.:", allow_context=True)
    group = _config_of(group_extensions(subject.group_id))
    if subject.is_context:
        return {"compatibilityLevel": effective_compatibility(subject).upper(), **group}
    own = own_config(subject, resource)
    own.pop("compatibilityLevel", None)
    return {"compatibilityLevel": effective_compatibility(subject).upper(), **group, **own}


def latest_live(resource: Resource) -> SubjectVersion | None:
    """The subject's latest live version (`latest_row`'s), with its version (attributes), numbered: the one a
    registration inherits metadata and a rule set from."""
    return _latest_of(resource, _rows_of(resource).filter(deleted=False))


def _latest_of(resource: Resource, rows) -> SubjectVersion | None:
    """`latest_row` of the rows of a query (with their versions and schema ids), reading one row when the registry's
    latest version is among them (two queries otherwise: the rows' version ids, then the one chosen)."""
    row = rows.filter(version_id=resource.latest_id).first() if resource.latest_id is not None else None
    if row is None:  # the registry's latest has no number here (soft-deleted, not of a Confluent type)
        ids = rows.values_list("pk", "version__vid")
        chosen = max(ids, key=lambda item: version_sort_key(item[1]), default=None)
        row = rows.filter(pk=chosen[0]).first() if chosen is not None else None
    return row


def latest_with_metadata(resource: Resource, wanted: dict[str, str], *, deleted: bool = False) -> SubjectVersion | None:
    """The newest version (soft-deleted ones too with `deleted`) whose metadata properties hold every pair of
    `wanted` (GET /subjects/S/metadata, as Confluent's `getLatestWithMetadata`)."""
    rows = _rows_of(resource).defer("version__content", "schema_id__schema").order_by("-number")
    if not deleted:
        rows = rows.filter(deleted=False)
    for row in rows:
        metadata = row.version.extensions.get(VERSION_METADATA)
        if metadata and all(property_of(metadata, key) == value for key, value in wanted.items()):
            return row
    return None
