"""Writes of the DEK registry (docs/data-contracts.md, "The DEK registry"), keyword-only, each in one transaction
with its audit row, with the acting user's `WriteContext`.

Who may write (registry/access/permissions.py, the same rules as every door):

- a KEK (create, update, soft or permanent delete, undelete) is its schema group's policy, as the group's own
  attributes are: the role `owner` where the group has owners, else the permission `registry.change_group`;
- a DEK (create, which is also a rotation when it is a new version; delete; undelete) is written as a schema's
  version is: the role `editor` where the group has owners, else `registry.add_version` (create, undelete) or
  `registry.delete_version` (delete), so producers that register versions make their DEKs;
- a KEK whose context has no schema group, or whose group was deleted since, and its DEKs: registry admins alone.

The audit trail records each change (who, the door `confluent`, the key's path `/confluent/dek-registry/keks/NAME`
or `.../deks/SUBJECT/versions/N/ALGORITHM`, create / update / delete; a soft delete and an undelete are updates) and
what it changed (`kek_changes`, `dek_changes`): never key material, wrapped or plain, nor the values of KMS
properties (each named, `***`). No change event is sent: keys are not registry entities
(nothing of them reaches events, exports or the admin's material-free pages).
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from django.db import IntegrityError, transaction

from registry.access.permissions import is_registry_admin
from registry.domain.attributes import Attributes
from registry.domain.errors import Problem
from registry.models import Group
from registry.services import WriteContext
from registry.store import audit

from . import dek_errors, dek_selectors, kms
from .dek_models import NAME_MAX_LENGTH, Dek, Kek
from .subjects import GROUPS

UNSET = object()  # a member a KEK update did not send (kept as it is)


def _masked(values: Attributes) -> Attributes:
    return {name: audit.SECRET for name in sorted(values or {})}


def _kek_state(kek: Kek | None) -> Attributes | None:
    if kek is None:
        return None
    state = {"kmsType": kek.kms_type, "kmsKeyId": kek.kms_key_id, "kmsProps": kek.kms_props or {}, "doc": kek.doc}
    return {**{k: v for k, v in state.items() if v not in (None, "", {})}, "shared": kek.shared, "deleted": kek.deleted}


def kek_changes(before: Kek | Attributes | None, after: Kek | None) -> Attributes:
    """What a KEK's change changed, for its audit row (registry/store/audit.py): its KMS properties named, their values
    never shown. `before`: the KEK's `_kek_state` before the change (None: created)."""
    old = _kek_state(before) if isinstance(before, Kek) else before
    return audit.changes(old, _kek_state(after), shown={"kmsProps": _masked})


def dek_changes(before: Attributes | None, after: Dek | None) -> Attributes:
    """What a DEK's change changed, for its audit row: whether it is deleted; its key material only as set (`***`).
    `before`: its `_dek_state` before the change (None: created)."""
    return audit.changes(before, _dek_state(after) if after is not None else None)


def _dek_state(row: Dek) -> Attributes:
    return {"encryptedKeyMaterial": audit.SECRET, "deleted": row.deleted}


def kek_path(name: str) -> str:
    return f"/confluent/dek-registry/keks/{name}"


def dek_path(row: Dek, kek_name: str) -> str:
    return f"{kek_path(kek_name)}/deks/{row.subject}/versions/{row.version}/{row.algorithm}"


def _ts(ctx: WriteContext) -> int:
    return int(ctx.now.timestamp() * 1000)


def _admins_only(ctx: WriteContext, what: str) -> None:
    if ctx.actor is not None and not is_registry_admin(ctx.actor):
        raise Problem("forbidden", f"{what}: only registry admins manage it (no schema group owns it)")


def _authorize_kek(ctx: WriteContext, group: Group | None, context: str, name: str) -> None:
    """A KEK's write: its group's owners (or `registry.change_group`), registry admins alone without a group."""
    if group is None:
        _admins_only(ctx, f"KEK '{name}' of the context whose schema group {context!r} does not exist")
        return
    ctx.authorize("group", "update", f"/{GROUPS}/{group.gid}")


def _authorize_dek(ctx: WriteContext, kek: Kek, subject: str, operation: str) -> None:
    """A DEK's write, as a write of a version of the subject's schema (editor, or add/delete_version)."""
    if kek.group is None:
        _admins_only(ctx, f"the DEKs of KEK '{kek.name}', whose schema group {kek.context!r} is gone")
        return
    found = dek_selectors.dek_subject(kek, subject)
    ctx.authorize("version", operation, f"/{GROUPS}/{kek.group.gid}/schemas/{found.resource_id}")


def _check_name(name: object) -> str:
    """Confluent's rule for a KEK name: a letter or `_`, then letters, digits, `_` or `-`, at most 256."""
    if (
        not isinstance(name, str)
        or not name
        or len(name) > NAME_MAX_LENGTH
        or not (name[0].isalpha() or name[0] == "_")
        or not all(c.isalnum() or c in "_-" for c in name[1:])
    ):
        raise dek_errors.invalid("name")
    return name


def _check_props(value: object) -> Attributes:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise dek_errors.invalid("kmsProps", "an object of strings")
    return dict(sorted(value.items()))


def _check_doc(value: object) -> str | None:
    if value is not None and not isinstance(value, str):
        raise dek_errors.invalid("doc", "a string")
    return value


def _check_shared(value: object, kms_type: str) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise dek_errors.invalid("shared", "true or false")
    if value:
        why = kms.reachable(kms_type)
        if why is not None:
            raise dek_errors.invalid("shared", why)
    return value


@dataclass
class NewKek:
    """A create request's members (`name`, `kmsType`, `kmsKeyId`, `kmsProps`, `doc`, `shared`)."""

    name: object
    kms_type: object
    kms_key_id: object
    kms_props: object = None
    doc: object = None
    shared: object = None


def _equivalent(kek: Kek, kms_type: str, inp: NewKek, props: Attributes) -> bool:
    return (kek.kms_type, kek.kms_key_id, kek.kms_props or {}, kek.doc, kek.shared) == (
        kms_type,
        inp.kms_key_id,
        props,
        inp.doc,
        bool(inp.shared),
    )


@transaction.atomic
def create_kek(*, ctx: WriteContext, data: NewKek, context: str | None = None) -> Kek:
    """POST /keks: a new KEK for the context `context` (`?context=`; absent: the default context). A KEK of that name
    soft-deleted with the same attributes is undeleted (as Confluent does); any other existing one is 40971."""
    name = _check_name(data.name)
    if not isinstance(data.kms_key_id, str) or not data.kms_key_id:
        raise dek_errors.invalid("kmsKeyId")
    if not isinstance(data.kms_type, str) or not data.kms_type:
        raise dek_errors.invalid("kmsType")
    kms_type = kms.normalize_type(data.kms_type)
    props = _check_props(data.kms_props)
    doc = _check_doc(data.doc)
    shared = _check_shared(data.shared, kms_type)
    gid = dek_selectors.context_group(context)
    group = Group.objects.filter(group_type=GROUPS, gid=gid).first()
    _authorize_kek(ctx, group, gid, name)
    existing = Kek.objects.select_for_update().filter(name=name).first()
    if existing is not None:
        if not (existing.deleted and existing.context == gid and _equivalent(existing, kms_type, data, props)):
            raise dek_errors.exists(name)
        before = _kek_state(existing)
        existing.deleted, existing.ts = False, _ts(ctx)
        existing.save(update_fields=["deleted", "ts"])
        audit.record_now(ctx, kek_path(name), "update", kek_changes(before, existing))
        return existing
    kek = Kek(
        name=name,
        context=gid,
        group=group,
        kms_type=kms_type,
        kms_key_id=data.kms_key_id,
        kms_props=props,
        doc=doc,
        shared=shared,
        ts=_ts(ctx),
    )
    try:
        with transaction.atomic():
            kek.save()
    except IntegrityError:  # made meanwhile by a concurrent request
        raise dek_errors.exists(name) from None
    audit.record_now(ctx, kek_path(name), "create", kek_changes(None, kek))
    return kek


@transaction.atomic
def update_kek(
    *,
    ctx: WriteContext,
    name: str,
    context: str | None = None,
    kms_props: object = UNSET,
    doc: object = UNSET,
    shared: object = UNSET,
) -> Kek:
    """PUT /keks/NAME: its `kmsProps`, `doc` and `shared` (a member not sent is kept; `kmsProps` sent without a
    credential it holds keeps that credential, which answers never show). 40470 for a soft-deleted KEK."""
    kek = dek_selectors.kek(name, context=context)
    kek = Kek.objects.select_for_update(of=("self",)).select_related("group").get(pk=kek.pk)
    _authorize_kek(ctx, kek.group, kek.context, name)
    props = kek.kms_props or {}
    if kms_props is not UNSET:
        sent = _check_props(kms_props)
        kept = {k: v for k, v in props.items() if k in dek_selectors.SECRET_PROPS and k not in sent}
        props = dict(sorted({**sent, **kept}.items()))
    new_doc = kek.doc if doc is UNSET else _check_doc(doc)
    new_shared = kek.shared if shared is UNSET or shared is None else _check_shared(shared, kek.kms_type)
    if (props, new_doc, new_shared) == (kek.kms_props or {}, kek.doc, kek.shared):
        return kek
    before = _kek_state(kek)
    kek.kms_props, kek.doc, kek.shared, kek.ts = props, new_doc, new_shared, _ts(ctx)
    kek.save(update_fields=["kms_props", "doc", "shared", "ts"])
    audit.record_now(ctx, kek_path(name), "update", kek_changes(before, kek))
    return kek


@transaction.atomic
def delete_kek(*, ctx: WriteContext, name: str, permanent: bool) -> None:
    """DELETE /keks/NAME: a soft delete (while no live DEK uses it), or, after one, a permanent delete (while no DEK
    at all, soft-deleted ones included, does: 42272)."""
    kek = dek_selectors.kek(name, deleted=True)
    kek = Kek.objects.select_for_update(of=("self",)).select_related("group").get(pk=kek.pk)
    _authorize_kek(ctx, kek.group, kek.context, name)
    users = kek.deks.all() if permanent else kek.deks.filter(deleted=False)
    if users.exists():
        raise dek_errors.references_exist(name)
    if permanent:
        if not kek.deleted:
            raise dek_errors.not_soft_deleted(name)
        gone = kek_changes(kek, None)
        kek.delete()
        audit.record_now(ctx, kek_path(name), "delete", gone)
    elif not kek.deleted:
        before = _kek_state(kek)
        kek.deleted, kek.ts = True, _ts(ctx)
        kek.save(update_fields=["deleted", "ts"])
        audit.record_now(ctx, kek_path(name), "update", kek_changes(before, kek))


@transaction.atomic
def undelete_kek(*, ctx: WriteContext, name: str) -> None:
    kek = dek_selectors.kek(name, deleted=True)
    kek = Kek.objects.select_for_update(of=("self",)).select_related("group").get(pk=kek.pk)
    _authorize_kek(ctx, kek.group, kek.context, name)
    if kek.deleted:
        before = _kek_state(kek)
        kek.deleted, kek.ts = False, _ts(ctx)
        kek.save(update_fields=["deleted", "ts"])
        audit.record_now(ctx, kek_path(name), "update", kek_changes(before, kek))


@dataclass
class NewDek:
    """A create request's members (`subject`, `version`, `algorithm`, `encryptedKeyMaterial`)."""

    subject: object
    version: object = None
    algorithm: object = None
    encrypted_key_material: object = None


def _check_version(value: object) -> int:
    if value is None:
        return 1
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 2**31 - 1:
        raise dek_errors.invalid("version", "an integer from 1")
    return value


def _check_material(kek: Kek, value: object) -> str:
    """Wrapped key material sent by a client: base64; under a shared KEK, one the registry's KMS unwraps."""
    if not isinstance(value, str) or not value:
        raise dek_errors.invalid("encryptedKeyMaterial", "a base64 string")
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise dek_errors.invalid("encryptedKeyMaterial", "not base64") from None
    if kek.shared:
        try:
            kms.unwrap(kek.kms_type, value)
        except kms.KmsError as exc:
            raise dek_errors.invalid("encryptedKeyMaterial", str(exc)) from None
    return value


@transaction.atomic
def create_dek(*, ctx: WriteContext, kek_name: str, data: NewDek) -> tuple[Kek, Dek]:
    """POST /keks/NAME/deks/SUBJECT: a DEK of the subject, version (default 1) and algorithm (default AES256_GCM).
    The client's `encryptedKeyMaterial` is kept as given; without it, a shared KEK's KMS makes one (a KEK not shared:
    42271). A DEK soft-deleted with the same material (or none sent) is undeleted; any other existing one is 40971."""
    kek = dek_selectors.kek(kek_name)
    subject = dek_selectors.dek_subject(kek, data.subject).name
    version = _check_version(data.version)
    algorithm = dek_selectors.algorithm_of(data.algorithm)
    _authorize_dek(ctx, kek, subject, "create")
    material = None if data.encrypted_key_material is None else _check_material(kek, data.encrypted_key_material)
    existing = (
        Dek.objects.select_for_update().filter(kek=kek, subject=subject, algorithm=algorithm, version=version).first()
    )
    if existing is not None:
        if not existing.deleted or material not in (None, existing.encrypted_key_material):
            raise dek_errors.exists(subject)
        before = _dek_state(existing)
        existing.deleted, existing.ts = False, _ts(ctx)
        existing.save(update_fields=["deleted", "ts"])
        audit.record_now(ctx, dek_path(existing, kek.name), "update", dek_changes(before, existing))
        return kek, existing
    if material is None:
        if not kek.shared:
            raise dek_errors.invalid(
                "encryptedKeyMaterial", f"KEK '{kek.name}' is not shared: the client wraps its DEKs"
            )
        try:
            material = kms.new_dek(kek.kms_type, algorithm)
        except kms.KmsError as exc:
            raise dek_errors.invalid("shared", str(exc)) from None
    row = Dek(
        kek=kek,
        subject=subject,
        algorithm=algorithm,
        version=version,
        encrypted_key_material=material,
        ts=_ts(ctx),
    )
    try:
        with transaction.atomic():
            row.save()
    except IntegrityError:  # made meanwhile by a concurrent request
        raise dek_errors.exists(subject) from None
    audit.record_now(ctx, dek_path(row, kek.name), "create", dek_changes(None, row))
    return kek, row


def _dek_rows(kek: Kek, subject: str, algorithm: str, version: int | None, every: bool) -> list[Dek]:
    """The DEKs a delete or undelete names (soft-deleted ones included): one version (None: the latest), or every
    version with `every`; 40470 naming the subject when there is none."""
    latest = dek_selectors.dek(kek, subject, algorithm, version, deleted=True)
    if not every:
        return [latest]
    return dek_selectors.deks(kek, subject, algorithm, deleted=True)


@transaction.atomic
def delete_deks(
    *,
    ctx: WriteContext,
    kek_name: str,
    subject: str,
    algorithm: str | None,
    version: int | None = None,
    every: bool,
    permanent: bool,
) -> None:
    """DELETE /keks/NAME/deks/SUBJECT (`every`: all versions) or .../versions/V: soft, or (`permanent`, every one
    named soft-deleted first: else 40471) permanent."""
    kek = dek_selectors.kek(kek_name, deleted=True)
    algorithm = dek_selectors.algorithm_of(algorithm)
    rows = _dek_rows(kek, subject, algorithm, version, every)
    _authorize_dek(ctx, kek, subject, "delete")
    if permanent:
        if any(not row.deleted for row in rows):
            raise dek_errors.not_soft_deleted(subject)
        for row in rows:
            path, gone = dek_path(row, kek.name), dek_changes(_dek_state(row), None)
            row.delete()
            audit.record_now(ctx, path, "delete", gone)
        return
    for row in rows:
        if not row.deleted:
            before = _dek_state(row)
            row.deleted, row.ts = True, _ts(ctx)
            row.save(update_fields=["deleted", "ts"])
            audit.record_now(ctx, dek_path(row, kek.name), "update", dek_changes(before, row))


@transaction.atomic
def undelete_deks(
    *, ctx: WriteContext, kek_name: str, subject: str, algorithm: str | None, version: int | None = None, every: bool
) -> None:
    """POST /keks/NAME/deks/SUBJECT/undelete (`every`) or .../versions/V/undelete; 40472 while the KEK is
    soft-deleted."""
    kek = dek_selectors.kek(kek_name, deleted=True)
    algorithm = dek_selectors.algorithm_of(algorithm)
    rows = _dek_rows(kek, subject, algorithm, version, every)
    if kek.deleted:
        raise dek_errors.soft_deleted(kek.name)
    _authorize_dek(ctx, kek, subject, "create")
    for row in rows:
        if row.deleted:
            before = _dek_state(row)
            row.deleted, row.ts = False, _ts(ctx)
            row.save(update_fields=["deleted", "ts"])
            audit.record_now(ctx, dek_path(row, kek.name), "update", dek_changes(before, row))
