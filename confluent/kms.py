"""The KMS the DEK registry reaches for a shared KEK (docs/data-contracts.md, "The DEK registry"), and the DEKs it makes.

A shared KEK (`shared: true`) tells the registry it may reach the KEK's KMS: it then makes the DEKs itself (a new key
of the DEK's algorithm, wrapped by the KMS) and unwraps them for the authorised callers who read them. The one KMS
this server reaches is the local KMS of Confluent's clients (`kmsType` `local-kms`), keyed by the operator's secret
`REGISTRY_LOCAL_KMS_SECRET`: the key encryption key is HKDF-SHA256 of the secret (no salt, no info, 16 bytes), used as
AES128-GCM in Tink's raw format, exactly as the clients' local driver derives and uses it, so a DEK wrapped here
unwraps with the clients' driver given the same secret, and the other way round. The key id (`local-kms://ID`) does
not select a key: one secret, one key, as in the clients.

DEK key material is what the clients' Tink primitives take: the serialized Tink key (an `AesGcmKey` for AES128_GCM
and AES256_GCM, an `AesSivKey` of 64 bytes for AES256_SIV), made by Tink's own key manager from the templates the
clients use. Crypto is Tink's and `cryptography`'s (HKDF); nothing here is hand-written.

A cloud KMS (AWS, GCP, Azure, HashiCorp Vault) would be one more driver here: its client library, the KEK's
`kms_key_id` as the key's URI or ARN, and credentials for the registry, from its environment (an IAM role, a workload
identity) or from the KEK's `kmsProps` (which answers never show). Until one exists, a KEK of another KMS can be
kept (its DEKs wrapped by the clients, `shared: false`) but not shared: `reachable` says which.
"""

from __future__ import annotations

import base64
import binascii

from django.conf import settings

LOCAL_KMS = "local-kms"
# the KMS types as Confluent normalizes them (a type starting with aws/azure/gcp is named so)
NORMALIZED = (("aws", "aws-kms"), ("azure", "azure-kms"), ("gcp", "gcp-kms"))


class KmsError(Exception):
    """The KMS could not wrap or unwrap a key (no secret, a ciphertext another key made). Its message never holds
    key material."""


def normalize_type(kms_type: str) -> str:
    lowered = kms_type.lower()
    for prefix, name in NORMALIZED:
        if lowered.startswith(prefix):
            return name
    return kms_type


def reachable(kms_type: str) -> str | None:
    """None when the registry can wrap and unwrap with this KMS, else why not (shown to the caller)."""
    if kms_type != LOCAL_KMS:
        return f"this registry reaches only the local KMS ({LOCAL_KMS}), not {kms_type}"
    if not settings.REGISTRY_LOCAL_KMS_SECRET:
        return "the local KMS has no secret (REGISTRY_LOCAL_KMS_SECRET is not set on the server)"
    return None


def _tink():
    """Tink's AEAD and deterministic AEAD, registered once (Tink keeps a process-wide registry)."""
    # here: Tink loads with the first data encryption key, not at the start-up of every process
    from tink import aead, daead

    aead.register()
    daead.register()
    return aead, daead


def _local_aead():
    """The local KMS's AEAD: AES128-GCM (raw) with the key the clients' local driver derives from the secret."""
    # here: Tink and cryptography load with the first data encryption key, not at every process's start-up
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF
    from tink.core import Registry
    from tink.proto import aes_gcm_pb2, tink_pb2

    aead, _daead = _tink()
    secret = settings.REGISTRY_LOCAL_KMS_SECRET
    if not secret:
        raise KmsError(reachable(LOCAL_KMS))
    key = HKDF(algorithm=hashes.SHA256(), length=16, salt=None, info=b"").derive(secret.encode("utf-8"))
    key_data = tink_pb2.KeyData(
        type_url=aead.aead_key_templates.AES128_GCM_RAW.type_url,
        value=aes_gcm_pb2.AesGcmKey(version=0, key_value=key).SerializeToString(),
        key_material_type=tink_pb2.KeyData.SYMMETRIC,
    )
    return Registry.primitive(key_data, aead.Aead)


def _aead(kms_type: str):
    why = reachable(kms_type)
    if why is not None:
        raise KmsError(why)
    return _local_aead()


def _template(algorithm: str):
    # here: Tink loads with the first data encryption key, not at the start-up of every process
    from tink.proto import aes_siv_pb2, tink_pb2

    aead, daead = _tink()
    if algorithm == "AES128_GCM":
        return aead.aead_key_templates.AES128_GCM_RAW
    if algorithm == "AES256_GCM":
        return aead.aead_key_templates.AES256_GCM_RAW
    # the clients' AES256_SIV: two 256-bit keys, raw output (Tink names no such template)
    return tink_pb2.KeyTemplate(
        type_url=daead.deterministic_aead_key_templates.AES256_SIV.type_url,
        output_prefix_type=tink_pb2.RAW,
        value=aes_siv_pb2.AesSivKeyFormat(key_size=64).SerializeToString(),
    )


def new_dek(kms_type: str, algorithm: str) -> str:
    """A new DEK of `algorithm`, wrapped by the KMS: its `encryptedKeyMaterial` (base64)."""
    # here: Tink loads with the first data encryption key, not at the start-up of every process
    from tink import TinkError
    from tink.core import Registry

    try:
        raw = Registry.new_key_data(_template(algorithm)).value
        return base64.b64encode(_aead(kms_type).encrypt(raw, b"")).decode("ascii")
    except TinkError as exc:
        raise KmsError(f"the KMS could not wrap a new key: {exc}") from None


def unwrap(kms_type: str, encrypted: str) -> str:
    """The plain key (base64) of a DEK's `encryptedKeyMaterial`; KmsError when this KMS did not wrap it."""
    # here: Tink loads with the first data encryption key, not at the start-up of every process
    from tink import TinkError

    try:
        wrapped = base64.b64decode(encrypted, validate=True)
    except (binascii.Error, ValueError):
        raise KmsError("the encrypted key material is not base64") from None
    try:
        return base64.b64encode(_aead(kms_type).decrypt(wrapped, b"")).decode("ascii")
    except TinkError:
        raise KmsError("the KMS could not unwrap the key material (wrapped by another key?)") from None
