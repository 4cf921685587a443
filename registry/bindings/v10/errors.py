"""The errors of the 1.0 binding that the 0.5 binding has no kind for, and a document that cannot be translated."""

from __future__ import annotations

import re

from ...domain.errors import Problem

SPEC = "https://github.com/xregistry/spec/blob/main/core/spec.md#"
HTTP_SPEC = "https://github.com/xregistry/spec/blob/main/core/http.md#"


# core/spec.md "Error Processing": the Title of each error this binding raises itself, `<...>` filled from the
# error's Args and Subject
TITLES = {
    "bad_flag": "The specified flag (<flag>) is not allowed in this context: <subject>.",
    "bad_filter": 'For "<subject>", an error was found in "filter" value (<value>): <error_detail>.',
    "bad_ignore": 'For "<subject>", an error was found in "ignore" value (<value>): <error_detail>.',
    "bad_request": "<error_detail>.",
    "bad_sort": 'For "<subject>", an error was found in "sort" value (<value>): <error_detail>.',
    "capability_error": "There was an error in the capabilities provided: <error_detail>.",
    "capability_missing_value": 'The "<name>" capability needs to contain "<value>".',
    "capability_unknown": "Unknown capability specified: <field>.",
    "capability_value": 'Invalid value (<value>) specified for capability "<field>". Allowable values include: <list>.',
    "not_found": "The targeted entity (<subject>) cannot be found.",
    "too_large": 'For "<subject>", the size of the response is too large to return in a single response.',
    "server_error": "An unexpected error occurred, please try again later.",
    "server_busy": 'Due to excessive requests, the server could not complete "<subject>", please try again later.',
    "mismatched_epoch": 'The specified epoch value (<bad_epoch>) for "<subject>" does not match its current value '
    "(<epoch>).",
    "api_not_found": "The specified API is not supported: <subject>.",
    "invalid_attribute": 'The attribute "<name>" for "<subject>" is not valid: <error_detail>.',
    "mismatched_id": 'The specified "<singular>id" value (<invalid_id>) for "<subject>" needs to be "<expected_id>".',
    "model_error": "There was an error in the model definition provided: <error_detail>.",
    "parsing_data": "There was an error parsing the data: <error_detail>.",
    "readonly": "Updating a read-only entity (<subject>) is not allowed.",
    "sort_noncollection": "Can't sort on a non-collection result set. Query path: <subject>.",
    "unknown_attribute": 'An unknown attribute (<name>) was specified for "<subject>".',
    "unknown_resource_type": 'An unknown Resource type (<name>) was specified for Group type "<group>".',
    "unsupported_specversion": 'The specified "specversion" value (<specversion>) is not supported. Supported '
    "versions: <list>.",
}
PLACEHOLDER = re.compile(r"<([a-z][a-z0-9_]*)>")


class V1Problem(Problem):
    """An error only the 1.0 binding reports (`model_error`, `capability_error`, `api_not_found` ...). `subject` is
    the entity's xid or the fixed path the spec names (`/model`, `/capabilities`), already in 1.0 names (kept as
    `v1_subject`); left out, it is the request's path. `args` are the spec's substitution values of the Title."""

    def __init__(
        self,
        error: str,
        detail: str,
        *,
        subject: str | None = None,
        http: bool = False,
        args: dict | None = None,
    ):
        super().__init__("bad-request", detail)
        self.error = error
        self.error_type = (HTTP_SPEC if http else SPEC) + error
        self.title = error.replace("_", " ").capitalize()
        self.v1_subject = subject
        # values come from requests: a lone surrogate (valid in JSON text, not in UTF-8) is written as its escape,
        # as repr() writes it in `detail`, so that the answer can be encoded
        self.title_args = {
            k: str(v).encode("utf-8", "backslashreplace").decode("utf-8") for k, v in (args or {}).items()
        }
        if error == "bad_request" and "error_detail" not in self.title_args:
            self.title_args["error_detail"] = detail.rstrip(".")

    def title_for(self, subject: str) -> str:
        """The spec's Title with its placeholders filled; the generic title when a value is missing."""
        return spec_title(self.error, {**self.title_args, "subject": subject}) or self.title


def spec_title(error: str, values: dict) -> str | None:
    """The spec's Title of `error` with its `<...>` placeholders filled from `values`; None when one is missing."""
    template = TITLES.get(error)
    if template is None or any(name not in values for name in PLACEHOLDER.findall(template)):
        return None
    return PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), template)


class DocumentError(V1Problem):
    """A 1.0 document that cannot be translated: `path` names the member, the subject of the 1.0 problem
    `bad_request` it answers."""

    def __init__(self, path: str, message: str):
        super().__init__("bad_request", f"{path}: {message}", subject=path)
