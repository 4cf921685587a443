"""Confluent's error dialect: `{"error_code": N, "message": "..."}` with Confluent's codes (docs/confluent.md).

`ConfluentError` is a kernel `Problem` that carries its own Confluent code: this API's own rules (42xxx, 404xx)
raise it. Every other problem (the kernel's: a malformed body, auth, an unknown path, a method; the registry's
services': a refused write, the check's budget; handler404/handler500) gets the code `code_of` gives its kind, here
and nowhere else. `confluent.api.binding` writes either as Confluent's error document.
"""

from __future__ import annotations

from registry.domain.errors import Problem

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
TOO_LARGE = 42209
INVALID_RULE_SET = 42210
INVALID_CONFIG = 422  # a /config member of another JSON type: Confluent answers its body reader's 422
UNAUTHORIZED = 40101
FORBIDDEN = 40301
STORE_ERROR = 50001
TIMEOUT = 50002  # the store busy or down (503 with Retry-After), or a check past REGISTRY_CHECK_SECONDS (503)
FORWARDING = 50003  # never answered: there is no primary to forward to (every worker writes the one database)

# the kernel's problem kinds (registry.domain.errors.KINDS) in Confluent's codes; a kind not listed keeps its HTTP status
# as its code (400 malformed body, 404 unknown path, 405, 406, 411, 412, 415, 429), as Confluent answers those
KIND_CODES = {
    "unauthorized": UNAUTHORIZED,
    "forbidden": FORBIDDEN,
    "too-large": TOO_LARGE,
    "incompatible-version": INCOMPATIBLE,
    "invalid-attribute": INVALID_SCHEMA,  # the registry's check of a registered document (catalog's hook)
    "invalid-document": INVALID_SCHEMA,
    "id-exists": INVALID_SUBJECT,  # a subject differing only by case from an existing one (ids ignore case)
    "conflict": NOT_PERMITTED,
    "server-error": STORE_ERROR,
    "service-unavailable": TIMEOUT,
}
# HTTP status of a ConfluentError -> the kernel's kind it stands for (audit, logs)
STATUS_KINDS = {
    400: "bad-request",
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    406: "not-acceptable",
    409: "incompatible-version",
    413: "too-large",
    415: "unsupported-media-type",
    422: "invalid-document",
    500: "server-error",
}


def code_of(problem: Problem, *, entity: str | None = None) -> int:
    """The Confluent code of a problem: its own (a ConfluentError), else its kind's. `entity`: what the problem's
    subject (a store path) is, `context`, `subject` or `version`: a subject or version not found is 40401 / 40402,
    a subject that exists differing only by case 42208; any other id that exists is a concurrent write's (409)."""
    if isinstance(problem, ConfluentError):
        return problem.code
    if problem.kind == "not-found" and entity in ("subject", "version"):
        return SUBJECT_NOT_FOUND if entity == "subject" else VERSION_NOT_FOUND
    if problem.kind == "id-exists" and entity == "version":
        return 409
    return KIND_CODES.get(problem.kind, problem.status)


class ConfluentError(Problem):
    """A refusal by one of this API's rules: Confluent `code`, a `message` naming what is wrong, its HTTP `status`
    (by default the code's first three digits). The message is written as it is (no placeholders)."""

    def __init__(self, code: int, message: str, status: int | None = None):
        status = status or (code if code < 1000 else code // 100)
        self.code = code
        self.message = message
        super().__init__(STATUS_KINDS.get(status, "bad-request"), message, status=status)

    def detail_in(self, path_name, attribute_name=None) -> str:
        return self.message

    def as_json(self, instance: str | None = None) -> dict:
        return {"error_code": self.code, "message": self.message}


def subject_not_found(subject: str) -> ConfluentError:
    return ConfluentError(SUBJECT_NOT_FOUND, f"Subject '{subject}' not found.")


def version_not_found(subject: str, version) -> ConfluentError:
    return ConfluentError(VERSION_NOT_FOUND, f"Version {version} not found for subject '{subject}'.")


def schema_not_found(detail: str = "Schema not found") -> ConfluentError:
    return ConfluentError(SCHEMA_NOT_FOUND, detail)


def invalid_schema(detail: str) -> ConfluentError:
    return ConfluentError(INVALID_SCHEMA, f"Invalid schema: {detail}")
