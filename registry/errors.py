"""Problem errors: every failure the engine reports, as an RFC 9457 problem kind with its status.

Services and selectors raise `Problem`; the HTTP layer renders it as `application/problem+json`.
"""

from __future__ import annotations

PROBLEM_BASE = "urn:problem-type:cloudevents-registry:"

# kind -> (status, title)
KINDS = {
    "bad-request": (400, "Bad request"),
    "malformed-json": (400, "Malformed JSON"),
    "unknown-flag": (400, "Unknown query parameter"),
    "invalid-id": (400, "Invalid id"),
    "invalid-attribute": (400, "Invalid attribute"),
    "invalid-document": (400, "Invalid document"),
    "too-many-entities": (400, "Response too large"),
    "unauthorized": (401, "Authentication required"),
    "forbidden": (403, "Permission denied"),
    "not-found": (404, "Not found"),
    "method-not-allowed": (405, "Method not allowed"),
    "not-acceptable": (406, "Not acceptable"),
    "id-exists": (409, "Id exists"),
    "epoch-mismatch": (409, "Epoch mismatch"),
    "conflict": (409, "Conflict"),
    "incompatible-version": (409, "Incompatible version"),
    "precondition-failed": (412, "Precondition failed"),
    "too-large": (413, "Request body too large"),
    "uri-too-long": (414, "URI too long"),
    "expectation-failed": (417, "Expectation failed"),
    "header-fields-too-large": (431, "Request header fields too large"),
    "unsupported-media-type": (415, "Unsupported media type"),
    "too-many-requests": (429, "Too many requests"),
    "server-error": (500, "Internal server error"),
    "not-implemented": (501, "Not implemented"),
    "service-unavailable": (503, "Service unavailable"),
}


class Problem(Exception):
    """A failure with a problem kind, a detail naming what is wrong, and optional per-item errors."""

    def __init__(
        self,
        kind: str,
        detail: str,
        *,
        errors: list | None = None,
        headers: dict | None = None,
        status: int | None = None,
        members: dict | None = None,
    ):
        self.kind = kind
        default_status, self.title = KINDS[kind]
        self.status = status or default_status
        self.detail = detail
        self.errors = errors or []
        self.headers = headers or {}
        self.members = members or {}  # extra members of the problem document (`referencedby`)
        super().__init__(detail)

    @property
    def type_uri(self) -> str:
        return PROBLEM_BASE + self.kind

    def as_json(self, instance: str | None = None) -> dict:
        body = {"type": self.type_uri, "title": self.title, "status": self.status, "detail": self.detail}
        if instance is not None:
            body["instance"] = instance
        if self.errors:
            body["errors"] = self.errors
        for name, value in self.members.items():
            body.setdefault(name, value)
        return body


def not_found(path: str) -> Problem:
    return Problem("not-found", f"{path} does not exist")


def epoch_mismatch(path: str, given, current: int) -> Problem:
    return Problem("epoch-mismatch", f"{path}: epoch {given} does not match the current epoch {current}")
