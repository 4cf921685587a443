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
    "length-required": (411, "Length required"),
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


SUBJECT = "{subject}"
PATHS = "{paths}"
ERRORS = "{errors}"


class Finding(str):
    """One validation error about one attribute: the text is the attribute's dotted path in the store's names
    followed by `rest` (`format 'x' must be NAME/VERSION`). A binding writes the attribute in its own names
    (`written`: xRegistry 1.0 says `envelope 'x' ...` of a message), so no binding rewrites a validator's text.
    `value`: the attribute's value, when its name in another binding depends on it."""

    attribute: str
    rest: str
    value: object

    def __new__(cls, attribute: str, rest: str, value: object = None):
        finding = super().__new__(cls, f"{attribute}{rest}")
        finding.attribute, finding.rest, finding.value = attribute, rest, value
        return finding

    def written(self, attribute_name) -> str:
        return f"{attribute_name(self.attribute, self.value)}{self.rest}"


def at(attribute: str, rest: str, value: object = None) -> Finding:
    """A validation error about `attribute` (see Finding): `at("format", f" {v!r} must be NAME/VERSION", v)`."""
    return Finding(attribute, rest, value)


def same_name(attribute: str, _value=None) -> str:
    return attribute


class Problem(Exception):
    """A failure with a problem kind, a detail naming what is wrong, and optional per-item errors.

    `subject` is the store path of the entity the problem is about (`/definitionGroups/g/definitions/d`), when
    there is one; the detail names it with the placeholder `{subject}`, which each binding fills with that
    entity's path in its own names (`/messagegroups/g/messages/d` in xRegistry 1.0), so a problem is written in
    the words of the binding that answers, with no rewriting of text. `paths` are more store paths the detail lists
    at its `{paths}` placeholder (the referrers of a refused delete). `detail` is the text in the store's names
    (logs, commands, the admin).
    """

    def __init__(
        self,
        kind: str,
        detail: str,
        *,
        subject: str | None = None,
        paths: list[str] | None = None,
        values: dict | None = None,
        errors: list | None = None,
        headers: dict | None = None,
        status: int | None = None,
        members: dict | None = None,
    ):
        self.kind = kind
        default_status, self.title = KINDS[kind]
        self.status = status or default_status
        self.template = detail
        self.subject = subject
        self.paths = paths or []
        self.values = values or {}  # values a binding's error titles may name (the epochs of an epoch mismatch)
        self.errors = errors or []
        self.headers = headers or {}
        self.members = members or {}  # extra members of the problem document (`referencedby`)
        super().__init__(self.detail)

    @property
    def detail(self) -> str:
        return self.detail_in(str)

    def errors_in(self, attribute_name=same_name) -> list:
        """The listed errors with each Finding's attribute written by `attribute_name` (a binding's name of it)."""
        return [e.written(attribute_name) if isinstance(e, Finding) else e for e in self.errors]

    def detail_in(self, path_name, attribute_name=same_name) -> str:
        """The detail with its subject written by `path_name` (a binding's name of a store path) and the errors it
        lists (`{errors}`) with their attributes written by `attribute_name`."""
        text = self.template
        if ERRORS in text:
            text = text.replace(ERRORS, "; ".join(str(e) for e in self.errors_in(attribute_name)))
        if self.subject is not None and SUBJECT in text:
            text = text.replace(SUBJECT, path_name(self.subject))
        if PATHS in text:
            text = text.replace(PATHS, ", ".join(path_name(p) for p in self.paths))
        return text

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
    return Problem("not-found", "{subject} does not exist", subject=path)


def epoch_mismatch(path: str, given, current: int) -> Problem:
    return Problem(
        "epoch-mismatch",
        f"{{subject}}: epoch {given} does not match the current epoch {current}",
        subject=path,
        values={"bad_epoch": str(given), "epoch": str(current)},
    )
