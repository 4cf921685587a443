"""Versions of a resource: their attributes, a new version built and validated (through the resource type's
registered hook), an existing one replaced, the latest-version rule and retention.

The latest version (CONTRACT 18, the seed) is the one whose id is the greatest after every id of the resource is
left-padded with spaces to one length (`attributes.version_sort_key`), unless a sticky default version (1.0 `meta`)
names another; `Resource.latest` points at it, and every write that adds or removes a version moves the pointer
(`refresh_latest`, `latest_after_insert`, `write_new_version`). A new version is compared with the versions
created before it (`attributes.version_order`), whatever their ids.

Every write path (the services in resources.py that both bindings call, the document importer, the Spark
import's retention) builds and checks versions here, so validation, epochs and change events are the same whichever
door a version comes in by. These functions run inside the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, connections, transaction
from django.db.models.fields.json import KT

from ..compiled_reads import prepared_cursor
from ..documents.formats import is_yaml_media_type, yaml_document_problem
from ..domain import extension_attributes
from ..domain.attributes import (
    Attributes,
    check_common,
    check_id,
    link_error,
    text_of,
    unstorable,
    version_attribute_names,
    version_order,
    version_order_sql,
    version_sort_key,
)
from ..domain.errors import Problem
from ..domain.json_text import json_document_problem
from ..domain.model import HISTORY, ResourceType
from ..domain.referenced_documents import resolve as resolve_referenced
from ..domain.validation import Invalid, VersionCheck
from ..models import Resource, Version
from ..representations import is_json_media_type
from ..sent_together import Part, execute_parts, insert_returning_part
from ..store import audit
from ..store.earlier_documents import earlier_documents
from ..store.selectors import entity_attributes, exists_ignoring_case, reference_resolves
from .context import WriteContext
from .events import emit_deleted, emit_updated
from .groups import group_exists
from .inputs import UNSET, VersionInput
from .integrity import insert_refused
from .references import base_urls

COMMON_COLUMNS = ("name", "description", "tags", "docs")


def version_attributes(version: Version) -> Attributes:
    """A version's own metadata as one dict (common columns and extensions)."""
    attrs = {k: getattr(version, k) for k in COMMON_COLUMNS if getattr(version, k) not in (None, {})}
    attrs.update(version.extensions)
    return attrs


def resource_attributes(resource: Resource) -> Attributes:
    """A resource's own attributes as one dict (common columns and extensions)."""
    attrs = {k: getattr(resource, k) for k in COMMON_COLUMNS if getattr(resource, k) not in (None, {})}
    attrs.update(resource.extensions)
    return attrs


TEXT_COLUMNS = ("name", "description", "docs")


def set_resource_attributes(resource: Resource, attrs: Attributes) -> None:
    """Store a resource's attributes: the common ones in their columns, the others as extensions."""
    for column in TEXT_COLUMNS:  # (whatever the attributes hold: the columns store its text)
        setattr(resource, column, attrs.get(column))
    resource.tags = attrs.get("tags") or {}
    resource.extensions = {k: v for k, v in attrs.items() if k not in COMMON_COLUMNS}


def set_version_attributes(version: Version, attrs: Attributes) -> None:
    """Store a version's attributes: the common ones in their columns, the others (not null) as extensions."""
    for column in TEXT_COLUMNS:  # (whatever the attributes hold: the columns store its text)
        setattr(version, column, attrs.get(column))
    version.tags = attrs.get("tags") or {}
    version.extensions = {k: v for k, v in attrs.items() if k not in COMMON_COLUMNS and v is not None}


def validate_version(
    ctx: WriteContext,
    resource: Resource,
    rt: ResourceType,
    version: Version,
    attrs: Attributes,
    is_update: bool,
    stored_document: bytes | None = None,
    referenced_documents: tuple[bytes, ...] = (),
    *,
    history: bool = False,
) -> None:
    """The common attribute rules, a JSON or YAML document that must parse, then the type's registered hook
    (format, schema validity, compatibility with the earlier versions, references): a Problem naming what is
    wrong. `stored_document`: an update's document before the write (a hook keeps what was already stored).
    `history`: an import's version made with its resource, checked alone
    (VersionCheck.history). Sets how the version's compatibility was checked (`Version.compatibility_check`: the
    hook's level, `HISTORY`, or None), stored with the version's row."""
    path = f"{resource.path}/versions/{version.vid}"
    document = bytes(version.content) if version.content is not None else None
    _check_common_rules(rt, path, attrs, version)
    version.compatibility_check = HISTORY if history and rt.compatibility_levels is not None else None
    if rt.validate is None:
        return
    r_attrs = resource_attributes(resource)
    # the resource's format (a string: the types' hooks refuse any other), for the versions that name none
    r_format = text_of(r_attrs, "format")
    read: Sequence[tuple[str | None, bytes]] | None = None

    def previous() -> Sequence[tuple[str | None, bytes]]:
        # oldest first (`version_order`: created_on, pk), the format as text (formats are strings), the resource's
        # when a version has none: a transitive check reads every version, kept per process
        # (registry/store/earlier_documents.py); read once per check
        nonlocal read
        if read is None:
            documents = earlier_documents(resource.pk, version.pk)
            read = [(fmt or r_format, content) for fmt, content in documents]
        return read

    def previous_formats() -> list[str | None]:
        # the same versions' formats, each once, documents unread (a check under the level `none` compares nothing)
        rows = (
            Version.objects.filter(resource=resource, content__isnull=False)
            .exclude(pk=version.pk)
            .order_by()
            .values_list(KT("extensions__format"), flat=True)
            .distinct()
        )
        return [fmt or r_format for fmt in rows]

    check = VersionCheck(
        group_type=resource.group.group_type,
        group_id=resource.group.gid,
        resource_type=rt.plural,
        resource_id=resource.rid,
        version_id=version.vid,
        document=document,
        media_type=version.media_type,
        resource_uri=version.resource_uri,
        attributes={**r_attrs, **attrs},
        resource_attributes=r_attrs,
        group_attributes={**resource.group.extensions},
        base_url=ctx.base_url,
        previous_documents=previous,
        previous_formats=previous_formats,
        is_update=is_update,
        group_exists=group_exists,
        lookup=entity_attributes,
        dangling_references=ctx.dangling_references,
        resolves=lambda reference: reference_resolves(reference, base_urls(ctx.base_url)),
        stored_document=stored_document,
        referenced_documents=referenced_documents,
        history=history,
    )
    try:
        check.referenced_documents = resolve_referenced(check)  # the writer's, else the attributes'
        rt.validate(check)
        if check.checked_level is not None:
            version.compatibility_check = check.checked_level
    except Invalid as exc:
        # incompatibilities are listed with their details (path, change, reason); other errors as the hook gave them
        detail = "{subject}: " + "; ".join(exc.errors) if exc.details else "{subject}: {errors}"
        # `from exc`: a document import tells an unresolved reference (validation.Unresolved) by the cause
        raise Problem(exc.kind, detail, subject=path, errors=exc.details or exc.errors, status=exc.status) from exc


def _check_common_rules(rt: ResourceType, path: str, attrs: Attributes, version: Version) -> None:
    """The rules of every version, whatever its type: the common attributes, a storable value, a link that is one, a
    JSON or YAML document that parses (a Problem listing what is wrong). They read these arguments alone."""
    errors = check_common(attrs, known=version_attribute_names(rt))
    errors += extension_attributes.version_errors_of(rt.plural, attrs)  # those apps give a meaning to
    if version.resource_uri and (error := link_error(rt.uri_attribute, version.resource_uri)):
        errors.append(error)
    problem = unstorable(attrs)
    if problem:
        errors.append(problem)
    if version.content and is_json_media_type(version.media_type):
        # what is stored as JSON is served and exported as JSON: it must parse strictly and be storable
        problem = json_document_problem(bytes(version.content))
        if problem:
            errors.append(f"{problem} (sent as {version.media_type})")
    elif version.content and is_yaml_media_type(version.media_type):
        problem = yaml_document_problem(bytes(version.content))
        if problem:
            errors.append(f"{problem} (sent as {version.media_type})")
    if errors:
        raise Problem("invalid-attribute", "{subject}: {errors}", subject=path, errors=errors)


def merge_attributes(base: Attributes, inp: VersionInput) -> Attributes:
    """Base attributes (the latest version's, for a new one) with the input's: an empty or null value removes
    one; ids, epoch and self are not attributes to merge."""
    attrs = dict(base)
    for key, value in inp.attributes.items():
        if key in ("id", "version", "epoch", "self"):
            continue
        if value is None or value == "":
            attrs.pop(key, None)
        else:
            attrs[key] = value
    return attrs


FORM_MEDIA_TYPE = "application/x-www-form-urlencoded"


def refuse_form_body(inp: VersionInput) -> None:
    """A document sent as a form (curl's `-d` without `-H` sends its bytes as application/x-www-form-urlencoded, which
    is no document's media type) is refused (415) with the hint of how to send it, before anything is read: stored,
    it would be served back as a form. A body sent with no media type at all stays accepted (`xr`)."""
    if inp.document is None or not isinstance(inp.media_type, str):
        return
    if inp.media_type.split(";")[0].strip().lower() == FORM_MEDIA_TYPE:
        raise Problem(
            "unsupported-media-type",
            f"a document sent as {FORM_MEDIA_TYPE} (curl -d without a Content-Type) is a form, not a document: send "
            "it with its media type, e.g. curl -H 'Content-Type: application/json' --data-binary @schema.json",
        )


def apply_input(
    version: Version, rt: ResourceType, inp: VersionInput, base: Attributes, *, replace_document: bool
) -> Attributes:
    """Merge the input into base attributes; set document/URI on the version; return the new attributes. A document
    sent as a form is refused (`refuse_form_body`)."""
    refuse_form_body(inp)
    attrs = merge_attributes(base, inp)
    if inp.resource_uri is not UNSET:
        version.resource_uri = inp.resource_uri if isinstance(inp.resource_uri, str) and inp.resource_uri else None
        if inp.resource_uri:
            version.content = None
            version.media_type = None
    uri_given = inp.resource_uri not in (UNSET, None, "")
    if replace_document and inp.document is not None and not (uri_given and not inp.document):
        version.content = inp.document
        version.media_type = inp.media_type or "application/octet-stream"
        if inp.resource_uri is UNSET:
            version.resource_uri = None
    set_version_attributes(version, attrs)
    return attrs


NEXT_ID_CANDIDATES = 8  # the numbers after the counter that one query asks about (given ids rarely take them)


def next_version_id(resource: Resource, *, numbers_free: bool = False) -> str:
    """The first number after the resource's counter that no version of it holds as its id (the counter moved to it
    in memory). A number's lowercase is itself, so an exact match is the case-insensitive one; the few numbers
    after the counter are looked up by the (resource, vid) index, not every id of a long history read.
    `numbers_free`: known with the resource's lock that no version's id is a number above the counter (the next
    number is free: no query)."""
    counter = resource.version_counter
    if numbers_free:
        resource.version_counter = counter + 1
        return str(counter + 1)
    while True:
        candidates = [str(n) for n in range(counter + 1, counter + 1 + NEXT_ID_CANDIDATES)]
        taken = taken_ids(resource.pk, candidates, counter)
        for candidate in candidates:
            if candidate not in taken:
                resource.version_counter = int(candidate)
                return candidate
        counter += NEXT_ID_CANDIDATES


def taken_ids(resource_id: int, candidates: list[str], after: int) -> set[str]:
    """Which of these numbers (those after `after`) the resource's versions hold as ids. On PostgreSQL the resource's
    row answers first: when no version id is a number above `after` (`highest_numeric_vid`, kept by a trigger:
    migration 0013), no version is read, whatever the planner knows of the table."""
    connection = connections[DEFAULT_DB_ALIAS]
    qn = connection.ops.quote_name
    above, params = "", [resource_id, *candidates]
    if connection.vendor == "postgresql":
        above = f" AND EXISTS (SELECT FROM {qn(Resource._meta.db_table)} WHERE id = %s AND highest_numeric_vid > %s)"
        params += [resource_id, after]
    with prepared_cursor(connection) as cursor:  # written out: the ORM's compilation cost more than the query
        cursor.execute(
            f"SELECT vid FROM {qn(Version._meta.db_table)} WHERE resource_id = %s "
            f"AND vid IN ({', '.join(['%s'] * len(candidates))}){above}",
            params,
        )
        return {vid for (vid,) in cursor.fetchall()}


def refresh_latest(resource: Resource) -> None:
    """Point the resource at its latest (default) version: the one a sticky default names (xRegistry 1.0 `meta`),
    else the one whose id is the greatest (`attributes.version_sort_key`), so every binding serves the same version
    as the resource's. Reads the ids of every version (a delete, a sticky default's write: after a new version,
    `latest_after_insert` compares two)."""
    versions = Version.objects.filter(resource=resource)
    sticky = resource.extensions.get("defaultversionid") if resource.extensions.get("defaultversionsticky") else None
    latest_pk = versions.filter(vid=sticky).values_list("pk", flat=True).first() if sticky else None
    if latest_pk is None:
        latest_pk = _greatest_pk(resource.pk)
    if resource.latest_id != latest_pk:
        resource.latest_id = latest_pk
        resource.save(update_fields=["latest"])


def _greatest_pk(resource_id: int) -> int | None:
    """The row id of the resource's version with the greatest id (`attributes.version_sort_key`), None without one."""
    qn = connection.ops.quote_name
    length, vid = version_order_sql(connection.vendor, qn("vid"))
    with connection.cursor() as cursor:  # (the ORM's Collate names no collation SQLite and PostgreSQL share)
        cursor.execute(
            f"SELECT id FROM {qn(Version._meta.db_table)} WHERE resource_id = %s ORDER BY {length} DESC, {vid} DESC "
            "LIMIT 1",
            [resource_id],
        )
        row = cursor.fetchone()
    return row[0] if row is not None else None


def is_later(vid: str, than: Version | None) -> bool:
    """Whether a version `vid` comes after `than` (the resource's latest: None when it has none) in the order of the
    latest version (`attributes.version_sort_key`)."""
    return than is None or version_sort_key(vid) > version_sort_key(than.vid)


def latest_after_insert(resource: Resource, new: Version) -> None:
    """After `new` was inserted: the resource points at it when its id comes after the latest's (`is_later`), without
    reading the other versions; under a sticky default, `refresh_latest`."""
    if resource.extensions.get("defaultversionsticky"):
        refresh_latest(resource)
        return
    current = resource.latest if resource.latest_id is not None else None
    if is_later(new.vid, current):
        resource.latest = new
        resource.save(update_fields=["latest"])


def write_new_version(resource: Resource, version: Version, parts: list[Part]) -> None:
    """Write `version`'s row, the statements `parts` (its event, audit row and change count: `parts_collected()` around
    `emit_updated`) and the resource's counter, modification and latest version by `refresh_latest`'s rule (`version`
    when its id comes after the latest's, read with the resource's lock): on PostgreSQL one statement
    (registry/sent_together.py), elsewhere one after the other. A sticky default version is saved through the ORM
    after it. A unique violation of the version's id raises IntegrityError."""
    connection = connections[DEFAULT_DB_ALIAS]
    qn = connection.ops.quote_name
    resources, versions = qn(Resource._meta.db_table), qn(Version._meta.db_table)
    if connection.vendor == "postgresql":  # (the statement's CTEs are not seen by its own subqueries' snapshot)
        new_id, new_params = "(SELECT id FROM new_version)", []
    else:
        new_id, new_params = (
            f"(SELECT id FROM {versions} WHERE resource_id = %s AND vid = %s)",
            [resource.pk, version.vid],
        )
    sticky = resource.extensions.get("defaultversionsticky")
    later = not sticky and is_later(version.vid, resource.latest if resource.latest_id is not None else None)
    latest, latest_params = (new_id, new_params) if later else ("latest_id", [])
    modified_on = connection.ops.adapt_datetimefield_value(resource.modified_on)
    update = (
        None,
        f"UPDATE {resources} SET version_counter = %s, modified_on = %s, modified_by = %s, latest_id = {latest} "
        f"WHERE id = %s RETURNING {new_id}, latest_id",
        [resource.version_counter, modified_on, resource.modified_by, *latest_params, resource.pk, *new_params],
    )
    row = execute_parts([insert_returning_part(version, "new_version"), *parts, update])
    assert row is not None  # (the resource's row is locked: the UPDATE returns it)
    version.pk, latest_id = row
    version._state.adding, version._state.db = False, connection.alias  # as Model.save() leaves it
    if resource.latest_id != latest_id:
        resource.latest_id = latest_id  # (a different id: the cached `latest` object is dropped with it)
        if latest_id == version.pk:
            resource.latest = version
    if sticky:
        refresh_latest(resource)


def apply_retention(ctx: WriteContext, resource: Resource, rt: ResourceType) -> bool:
    """Delete versions beyond the type's `versions`; True when some were deleted. A type that keeps one version keeps
    the one created last (the new version: rc4's `maxversions` 1, the 0.5 definitions); otherwise the latest
    (`Resource.latest`) is kept and the others go from the lowest id up (`attributes.version_sort_key`, rc4: "the
    oldest Version first, skipping the default")."""
    if rt.versions < 0:
        return False
    # whole rows, for the audit trail's "what was there" (a type that keeps a bounded number has few)
    versions = sorted(Version.objects.filter(resource=resource), key=version_order)
    keep = rt.versions + 1
    if keep == 1:
        excess = versions[:-1]
    else:
        others = sorted((v for v in versions if v.pk != resource.latest_id), key=lambda v: version_sort_key(v.vid))
        excess = others[: max(0, len(versions) - keep)]
    for version in excess:
        path = f"{resource.path}/versions/{version.vid}"
        gone = audit.changes(audit.state(version, path), None)
        version.delete()
        emit_deleted(ctx, path, epoch=version.epoch, changes=gone)
    return bool(excess)


def new_version(
    ctx: WriteContext, resource: Resource, rt: ResourceType, inp: VersionInput, base: Attributes, vid: str | None
) -> Version:
    """A new version of `resource`, validated and inserted; the resource's counter and modification saved."""
    version = prepared_version(ctx, resource, rt, inp, base, vid)
    try:
        with transaction.atomic():
            version.save()
    except IntegrityError as exc:
        raise insert_refused(exc, constraint="version_id_unique_ci", path=f"{resource.path}/versions/{version.vid}")
    resource.save(update_fields=["version_counter", "modified_on", "modified_by"])
    return version


def not_older_than_latest(ctx: WriteContext, resource: Resource) -> None:
    """Under the resource's lock, before a new version is made: when the latest version (read with the lock) was
    stamped after this write's time, this write's time moves just after it. A write's time is taken when its request
    starts, and the writes of one resource take its lock in turn: one that started later but took the lock first
    stamped its version later, and the next version, numbered after it, would sort before it in creation order
    (`version_order`: created_on, id), the order a new version's check reads the earlier ones in. Equal times are
    left alone (the id breaks the tie). The latest is the newest whenever ids grow (the usual case: numbers given
    by the server)."""
    latest = resource.latest if resource.latest_id is not None else None
    if latest is not None and latest.created_on > ctx.now:
        ctx.now = latest.created_on + timedelta(microseconds=1)


def prepared_version(
    ctx: WriteContext,
    resource: Resource,
    rt: ResourceType,
    inp: VersionInput,
    base: Attributes,
    vid: str | None,
    *,
    numbers_free: bool = False,
) -> Version:
    """A new version of `resource`, validated and not saved (its id taken, the counter moved in memory;
    `numbers_free`: see `next_version_id`)."""
    if vid is None:
        vid = next_version_id(resource, numbers_free=numbers_free)
    else:
        check_id(vid, "version")
        if exists_ignoring_case(Version.objects.filter(resource=resource), "vid", vid):
            raise Problem("id-exists", "{subject} already exists", subject=f"{resource.path}/versions/{vid}")
        if vid.isdigit():
            resource.version_counter = max(resource.version_counter, int(vid))
    version, attrs = unsaved_version(ctx, resource, rt, inp, base, vid)
    validate_version(
        ctx,
        resource,
        rt,
        version,
        attrs,
        is_update=False,
        referenced_documents=inp.referenced_documents,
        history=inp.history,
    )
    return version


def unsaved_version(
    ctx: WriteContext, resource: Resource, rt: ResourceType, inp: VersionInput, base: Attributes, vid: str
) -> tuple[Version, Attributes]:
    """A new version `vid` of `resource` as `inp` makes it from the `base` attributes, not checked, and its
    attributes (`apply_input`)."""
    version = Version(
        resource=resource,
        vid=vid,
        epoch=1,
        created_by=ctx.user,
        created_on=ctx.now,
        modified_by=ctx.user,
        modified_on=ctx.now,
    )
    if inp.document is None and inp.resource_uri in (UNSET, None, ""):
        inp.document = b""
    return version, apply_input(version, rt, inp, base, replace_document=True)


def replace_version(*, ctx: WriteContext, resource: Resource, rt: ResourceType, vid: str, inp: VersionInput) -> str:
    """Make version `vid` exactly `inp` (a registry document's version): "created", "updated" or "unchanged".
    A synced resource changes only through its sync; the version is validated like any other write."""
    path = f"{resource.path}/versions/{vid}"
    version = Version.objects.select_for_update().filter(resource=resource, vid=vid).first()
    if version is None:
        ctx.guard(resource.path, resource.group, resource)
        ctx.authorize("version", "create", path)
        version = new_version(ctx, resource, rt, inp, {}, vid)
        created = audit.changes(None, audit.state(version, path))
        emit_updated(ctx, path, version.modified_on, created=True, epochs=(None, version.epoch), changes=created)
        latest_after_insert(resource, version)
        return "created"
    new_attrs = {k: v for k, v in inp.attributes.items() if v is not None}
    uri = inp.resource_uri if isinstance(inp.resource_uri, str) else None
    same = (
        version_attributes(version) == new_attrs
        and version.resource_uri == uri
        and (
            uri is not None
            or (bytes(version.content or b"") == (inp.document or b"") and version.media_type == inp.media_type)
        )
    )
    if same:
        return "unchanged"
    ctx.guard(resource.path, resource.group, resource)
    ctx.authorize("version", "update", path)
    stored = bytes(version.content) if version.content is not None else None
    before = audit.state(version, path)
    version.resource_uri = uri
    version.content = None if uri else inp.document
    version.media_type = None if uri else inp.media_type
    set_version_attributes(version, new_attrs)
    validate_version(ctx, resource, rt, version, new_attrs, is_update=True, stored_document=stored)
    version.epoch += 1
    version.modified_by, version.modified_on = ctx.user, ctx.now
    version.save()
    changes = audit.changes(before, audit.state(version, path))
    emit_updated(ctx, path, version.modified_on, epochs=(version.epoch - 1, version.epoch), changes=changes)
    return "updated"
