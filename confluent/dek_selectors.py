"""Reads of the DEK registry (docs/data-contracts.md, "The DEK registry"): KEKs and DEKs as the API finds them, which
callers may see them, who may have a DEK's plain key material, and the answers' JSON (never a KMS secret)."""

from __future__ import annotations

from registry.access.permissions import is_registry_admin, permits

from . import dek_errors, kms
from .dek_models import ALGORITHMS, Dek, Kek
from .errors import ConfluentError
from .subjects import GROUPS, Subject, parse

DEFAULT_ALGORITHM = "AES256_GCM"
# kmsProps that hold a KMS credential (Vault's token and AppRole secret, its keystore password, AWS's secret access
# key, Azure's client secret, GCP's private key, the local KMS's secret): kept for the KMS, never answered
SECRET_PROPS = frozenset(
    {
        "token.id",
        "approle.secret.id",
        "ssl.keystore.password",
        "secret.access.key",
        "client.secret",
        "private.key",
        "secret",
    }
)


def context_group(context: str | None) -> str:
    """The schema group id of a context as the clients name it (`.ctx`, `ctx`; `.`, empty or None: the default
    context's); 42271 naming `context` when it cannot be one."""
    name = (context or "").removeprefix(".")
    if name == "":
        return parse(":.:", allow_context=True).group_id
    try:
        return parse(f":.{name}:", allow_context=True).group_id
    except ConfluentError as exc:  # the subject parser's 42208, said as the DEK registry's invalid key
        raise dek_errors.invalid("context", exc.message) from None


def dek_subject(kek: Kek, name) -> Subject:
    """The subject a DEK is for, which must be a subject of the KEK's context (the KEK serves its group's subjects);
    42271 naming `subject` otherwise."""
    if not isinstance(name, str) or not name:
        raise dek_errors.invalid("subject")
    try:
        subject = parse(name)
    except ConfluentError as exc:
        raise dek_errors.invalid("subject", exc.message) from None
    if subject.group_id != kek.context:
        raise dek_errors.invalid(
            "subject",
            f"{name!r} is a subject of the context of the schema group {subject.group_id!r}; "
            f"KEK '{kek.name}' serves the subjects of the schema group {kek.context!r}",
        )
    return subject


def algorithm_of(value) -> str:
    """`?algorithm` or a body's `algorithm`: one of Confluent's three (absent: AES256_GCM); 42271 otherwise."""
    if value is None or value == "":
        return DEFAULT_ALGORITHM
    if value not in ALGORITHMS:
        raise dek_errors.invalid("algorithm", f"one of {', '.join(ALGORITHMS)}")
    return value


def kek(name: str, *, deleted: bool = False, context: str | None = None) -> Kek:
    """The KEK `name` (soft-deleted too with `deleted`); with `context` (the clients' `?context=`), only when it
    serves that context. 40470 otherwise."""
    found = Kek.objects.select_related("group").filter(name=name).first()
    if found is None or (found.deleted and not deleted):
        raise dek_errors.not_found(name)
    if context is not None and context_group(context) != found.context:
        raise dek_errors.not_found(name)
    return found


def kek_names(*, prefixes: list[str], deleted: bool, hidden: set[str]) -> list[str]:
    """The KEKs' names (sorted); with `prefixes`, those with a DEK of a subject starting with one of them. KEKs of
    the groups in `hidden` (the caller may not read them) are left out."""
    if prefixes:
        rows = Dek.objects.filter(kek__deleted__in=[False, deleted], deleted__in=[False, deleted])
        names = {
            name
            for name, subject, context in rows.values_list("kek__name", "subject", "kek__context")
            if context not in hidden and any(subject.startswith(p) for p in prefixes)
        }
        return sorted(names)
    keks = Kek.objects.all() if deleted else Kek.objects.filter(deleted=False)
    return [name for name, context in keks.values_list("name", "context") if context not in hidden]


def dek_subjects(kek: Kek, *, deleted: bool) -> list[str]:
    rows = kek.deks.all() if deleted else kek.deks.filter(deleted=False)
    return sorted(set(rows.values_list("subject", flat=True)))


def deks(kek: Kek, subject: str, algorithm: str, *, deleted: bool) -> list[Dek]:
    """The DEKs of a subject and algorithm by version."""
    rows = kek.deks.filter(subject=subject, algorithm=algorithm).order_by("version")
    return list(rows if deleted else rows.filter(deleted=False))


def dek(kek: Kek, subject: str, algorithm: str, version: int | None, *, deleted: bool) -> Dek:
    """One DEK (`version` None: the latest); 40470 naming the subject when there is none."""
    rows = deks(kek, subject, algorithm, deleted=deleted)
    found = rows[-1] if rows and version is None else next((row for row in rows if row.version == version), None)
    if found is None:
        raise dek_errors.not_found(subject)
    return found


def visible(kek: Kek, hidden: set[str]) -> bool:
    return kek.context not in hidden


def may_read_material(user, kek: Kek) -> bool:
    """Whether `user` may have the plain key material of the KEK's DEKs: a signed-in user who may read the KEK's
    schema group (where it has owners: its teams, role reader or more), or a registry admin. Never an anonymous
    caller, whatever REGISTRY_PUBLIC_READ says; a KEK whose group is gone, registry admins alone."""
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    if is_registry_admin(user):
        return True
    if kek.group is None:
        return False
    return permits(user, "group", "read", f"/{GROUPS}/{kek.group.gid}", group=kek.group)


def key_material(kek: Kek, row: Dek) -> str:
    """The plain key (base64) of a shared KEK's DEK, unwrapped by the KMS; 50070 when it cannot be (the KMS's secret
    changed since)."""
    try:
        return kms.unwrap(kek.kms_type, row.encrypted_key_material)
    except kms.KmsError as exc:
        raise dek_errors.generation(str(exc)) from None


def kek_json(kek: Kek) -> dict:
    """A KEK as Confluent answers it, its KMS credentials left out."""
    out = {
        "name": kek.name,
        "kmsType": kek.kms_type,
        "kmsKeyId": kek.kms_key_id,
        "kmsProps": {k: v for k, v in sorted((kek.kms_props or {}).items()) if k not in SECRET_PROPS},
        "shared": kek.shared,
        "ts": kek.ts,
        "deleted": kek.deleted,
    }
    if kek.doc is not None:
        out["doc"] = kek.doc
    return out


def dek_json(kek: Kek, row: Dek, material: str | None = None) -> dict:
    """A DEK as Confluent answers it; `keyMaterial` only when the caller gives it (an authorised caller's read of a
    shared KEK's DEK)."""
    out = {
        "kekName": kek.name,
        "subject": row.subject,
        "version": row.version,
        "algorithm": row.algorithm,
        "encryptedKeyMaterial": row.encrypted_key_material,
        "ts": row.ts,
        "deleted": row.deleted,
    }
    if material is not None:
        out["keyMaterial"] = material
    return out
