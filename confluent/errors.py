"""Confluent's error dialect: `{"error_code": N, "message": "..."}` with Confluent's codes (docs/confluent.md).

Services and views raise `ConfluentError`; `confluent.api.base` renders it, and maps the registry's own problems
(a refused write of the shared store) and DRF's auth failures to the nearest Confluent code, in one place.
"""

from __future__ import annotations

SUBJECT_NOT_FOUND = 40401
VERSION_NOT_FOUND = 40402
SCHEMA_NOT_FOUND = 40403
SUBJECT_SOFT_DELETED = 40404
SUBJECT_NOT_SOFT_DELETED = 40405
VERSION_SOFT_DELETED = 40406
VERSION_NOT_SOFT_DELETED = 40407
SUBJECT_COMPATIBILITY_NOT_CONFIGURED = 40408
SUBJECT_MODE_NOT_CONFIGURED = 40409
INCOMPATIBLE = 409
INVALID_SCHEMA = 42201
INVALID_VERSION = 42202
INVALID_COMPATIBILITY = 42203
INVALID_MODE = 42204
NOT_PERMITTED = 42205
REFERENCE_EXISTS = 42206
ID_MISMATCH = 42207
INVALID_SUBJECT = 42208
STORE_ERROR = 50001
TIMEOUT = 50002
FORWARDING = 50003  # never raised: there is no primary to forward to (every worker writes the one database)


class ConfluentError(Exception):
    """An error answer: HTTP `status`, Confluent `code`, a message naming what is wrong."""

    def __init__(self, code: int, message: str, status: int | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status or (code if code < 1000 else code // 100)

    def as_json(self) -> dict:
        return {"error_code": self.code, "message": self.message}


def subject_not_found(subject: str) -> ConfluentError:
    return ConfluentError(SUBJECT_NOT_FOUND, f"Subject '{subject}' not found.")


def version_not_found(subject: str, version) -> ConfluentError:
    return ConfluentError(VERSION_NOT_FOUND, f"Version {version} not found for subject '{subject}'.")


def schema_not_found(detail: str = "Schema not found") -> ConfluentError:
    return ConfluentError(SCHEMA_NOT_FOUND, detail)


def invalid_schema(detail: str) -> ConfluentError:
    return ConfluentError(INVALID_SCHEMA, f"Invalid schema: {detail}")
