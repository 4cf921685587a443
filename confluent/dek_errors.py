"""The DEK registry's refusals in Confluent's words: its own codes (Confluent's DekRegistryErrors) and messages, as
`ConfluentError`s the binding writes as `{"error_code", "message"}` (docs/data-contracts.md, "Errors")."""

from __future__ import annotations

from .errors import ConfluentError

KEY_NOT_FOUND = 40470  # a KEK or a DEK
KEY_NOT_SOFT_DELETED = 40471  # a permanent delete before the soft delete
KEY_SOFT_DELETED = 40472  # a DEK undeleted while its KEK is soft-deleted
KEY_EXISTS = 40971
INVALID_KEY = 42271
REFERENCE_EXISTS = 42272  # a KEK deleted while DEKs still use it
INVALID_VERSION = 42202
DEK_GENERATION = 50070  # the KMS could not unwrap a stored DEK (the secret changed)


def not_found(name: str) -> ConfluentError:
    return ConfluentError(KEY_NOT_FOUND, f"Key '{name}' not found")


def not_soft_deleted(name: str) -> ConfluentError:
    return ConfluentError(KEY_NOT_SOFT_DELETED, f"Key '{name}' was not deleted first before being permanently deleted")


def soft_deleted(name: str) -> ConfluentError:
    return ConfluentError(KEY_SOFT_DELETED, f"Key '{name}' must be undeleted first")


def exists(name: str) -> ConfluentError:
    return ConfluentError(KEY_EXISTS, f"Key '{name}' already exists; use a different value")


def invalid(field: str, why: str = "") -> ConfluentError:
    """Confluent's message for a field, and here why (Confluent says no more than the field)."""
    return ConfluentError(
        INVALID_KEY, f"Invalid or missing value for field '{field}' of key" + (f": {why}" if why else "")
    )


def references_exist(name: str) -> ConfluentError:
    return ConfluentError(REFERENCE_EXISTS, f"One or more references exist to the key '{name}'")


def generation(why: str) -> ConfluentError:
    return ConfluentError(DEK_GENERATION, f"Could not unwrap the DEK: {why}", status=500)
