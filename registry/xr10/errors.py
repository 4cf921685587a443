"""The errors of the 1.0 binding that the 0.5 binding has no kind for, and a document that cannot be translated."""
from __future__ import annotations

from ..errors import Problem

SPEC = "https://github.com/xregistry/spec/blob/main/core/spec.md#"
HTTP_SPEC = "https://github.com/xregistry/spec/blob/main/core/http.md#"


class V1Problem(Problem):
    """An error only the 1.0 binding reports (`model_error`, `capability_error`, `api_not_found` ...)."""

    def __init__(self, error: str, detail: str, *, status: int = 400, subject: str | None = None, http: bool = False):
        super().__init__("bad-request", detail, status=status)
        self.error_type = (HTTP_SPEC if http else SPEC) + error
        self.title = error.replace("_", " ").capitalize()
        self.subject = subject


class DocumentError(ValueError):
    """A 1.0 document that cannot be translated: `path` names the member."""

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}")
        self.path = path
