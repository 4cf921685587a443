"""The checks before shipping for CI pipelines (CONTRACT section 12): what `manage.py validate_messages` and
`manage.py check_schema` do, against the local store (the same service functions as the views, no HTTP) or
against another server of this kind (`--registry URL`, through its validate and compatibility endpoints).

Message files: JSON lines (one message a line; blank lines skipped) or one JSON message per file (it may span
lines). A message is a structured CloudEvent or an envelope `{"headers": ..., "body": ...}`, as the validate
endpoints take it, optionally wrapped `{"definition": "G/D", "message": {...}}` to name its definition. A message
nested deeper than registry.domain.json_text.MAX_DEPTH levels is not read (Python's parser would recurse past its
limit): it is reported as not checked.

An outcome is `unchecked` when a check could not run (an error the verdict marks `"unchecked": true`, the check
budget's 503, a message too deep to read): the command then exits 2, not 1, since that is no verdict (issue 24).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.core import checks

from catalog import checks as schema_checks
from catalog import message_checks
from catalog.validators.shapes import as_array
from registry.domain.errors import Problem
from registry.domain.json_text import MAX_DEPTH, nesting_exceeds
from registry.models import Group
from registry.services import VersionInput, WriteContext

STRUCTURED = "application/cloudevents+json"
# the system checks the two commands run first (`requires_system_checks`): Django's, less those of the URLs, the
# admin and the templates, which import every view, admin module and template tag library (most of a command's
# start-up) for pages these commands do not serve; `manage.py check` runs them all
SYSTEM_CHECKS = sorted(
    value
    for name, value in vars(checks.Tags).items()
    if not name.startswith("_") and value not in (checks.Tags.urls, checks.Tags.admin, checks.Tags.templates)
)
ENVELOPE = "application/json"


class UsageError(Exception):
    """A problem with the command's arguments or its target (exit status 2), not with a message."""


@dataclass
class Entry:
    """One message read from a file: where it is, its definition if named, the message or why it is unreadable."""

    file: str
    line: int
    message: object = None
    definition: str | None = None
    problem: str | None = None
    unchecked: bool = False  # the problem is that the message could not be read for a check (too deep)


@dataclass
class Outcome:
    """The verdict on one message: problems as (path, reason); notes (what was not checked)."""

    problems: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    definition: str | None = None
    unchecked: bool = False  # a check could not run: no verdict (exit 2)


def read_messages(path: Path) -> Iterator[Entry]:
    """The messages of a file: the whole file as one JSON value when it is one, else one per non-blank line."""
    text = path.read_text(encoding="utf-8")
    name = str(path)
    whole = None
    if not nesting_exceeds(text, MAX_DEPTH):
        try:
            whole = json.loads(text)
        except ValueError:
            pass
    if isinstance(whole, dict):
        yield _entry(name, 1, whole)
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if nesting_exceeds(line, MAX_DEPTH):
            yield Entry(name, number, problem=f"not checked: nested deeper than {MAX_DEPTH} levels", unchecked=True)
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            yield Entry(name, number, problem=f"not JSON: {exc}")
            continue
        yield _entry(name, number, value)


def _entry(name: str, number: int, value) -> Entry:
    if isinstance(value, dict) and "definition" in value and "message" in value:
        definition = value["definition"]
        if not isinstance(definition, str) or definition.count("/") != 1 or "" in definition.split("/"):
            return Entry(name, number, problem=f"definition must be 'GROUP/DEFINITION', not {definition!r}")
        return Entry(name, number, value["message"], definition)
    return Entry(name, number, value)


def content_type(message) -> str:
    """How the message is sent: a structured CloudEvent when it has a specversion and no headers."""
    if isinstance(message, dict) and "headers" not in message and "specversion" in message:
        return STRUCTURED
    return ENVELOPE


def split_definition(value: str) -> tuple[str, str]:
    parts = value.strip("/").split("/")
    if len(parts) != 2 or not all(parts):
        raise UsageError(f"--definition must be GROUP/DEFINITION, not {value!r}")
    return parts[0], parts[1]


# --- local: the service functions of the views --------------------------------------------------------------------


class LocalValidator:
    """Validates in this process against the local store. Definitions found are kept for the run (the
    store does not change under a check), so a file of many messages reads each definition once."""

    def __init__(self, base_url: str = ""):
        self.base_url = (base_url or settings.REGISTRY_BASE_URL).rstrip("/")
        self._documents: dict[tuple[str, str], dict] = {}
        self._by_type: dict[tuple[str | None, str], tuple[str, str, dict]] = {}
        self._groups: list[str] | None = None

    def _document(self, gid: str, did: str) -> dict:
        key = (gid, did)
        if key not in self._documents:
            self._documents[key] = message_checks.definition_document(gid, did)
        return self._documents[key]

    def _group_ids(self) -> list[str]:
        if self._groups is None:
            self._groups = list(
                Group.objects.filter(group_type="definitionGroups").order_by("gid").values_list("gid", flat=True)
            )
        return self._groups

    def has_group(self, gid: str) -> bool:
        """Whether a definition group with this id exists (--group names one)."""
        return gid in self._group_ids()

    def _for_type(self, group: str | None, event_type) -> tuple[str, str, dict]:
        if not isinstance(event_type, str):
            raise Problem("bad-request", "the message has no CloudEvents type (a string) to pick a definition by")
        key = (group, event_type)
        if key not in self._by_type:
            if group is not None:
                did, doc = message_checks.definition_for_type(group, event_type)
                self._by_type[key] = (group, did, doc)
            else:
                for gid in self._group_ids():
                    try:
                        did, doc = message_checks.definition_for_type(gid, event_type)
                    except Problem as problem:
                        if problem.status != 404:
                            raise
                        continue
                    self._by_type[key] = (gid, did, doc)
                    break
                else:
                    raise Problem(
                        "not-found", f"no definition group declares the CloudEvents type {event_type[:200]!r}"
                    )
        return self._by_type[key]

    def check(self, entry: Entry, *, group: str | None = None, definition: str | None = None) -> Outcome:
        try:
            message = message_checks.parse_message(content_type(entry.message), entry.message)
            named = entry.definition or definition
            if named:
                gid, did = split_definition(named)
                doc = self._document(gid, did)
            else:
                gid, did, doc = self._for_type(group, message_checks.event_type(message))
            verdict = message_checks.check_message(doc, message, self.base_url)
        except Problem as problem:  # 503: the check budget ran out, no verdict
            return Outcome([("message", problem.detail)], unchecked=problem.status >= 500)
        except UsageError as exc:
            return Outcome([("message", str(exc))])
        return _outcome(verdict, f"{gid}/{did}")


def _outcome(verdict: dict, definition: str) -> Outcome:
    errors = [e for e in verdict.get("errors", []) if isinstance(e, dict)]
    return Outcome(
        [(e.get("path"), e.get("reason")) for e in errors],
        verdict.get("notes", []),
        definition,
        unchecked=any(e.get("unchecked") is True for e in errors),
    )


def local_compatibility(target: str, document: bytes, media_type: str | None, fmt: str | None) -> dict:
    """The dry run verdict of `document` as a new version of schema `target` (GROUP/SCHEMA); Problem on 4xx."""
    gid, sid = split_target(target)
    inp = VersionInput(document=document, media_type=media_type, attributes={"format": fmt} if fmt else {})
    return schema_checks.schema_compatibility(WriteContext(user=None), gid, sid, inp)


def split_target(target: str) -> tuple[str, str]:
    parts = target.strip("/").split("/")
    if len(parts) == 4 and parts[0] == "schemaGroups" and parts[2] == "schemas":
        parts = [parts[1], parts[3]]
    if len(parts) != 2 or not all(parts):
        raise UsageError(f"the schema must be named GROUP/SCHEMA, not {target!r}")
    return parts[0], parts[1]


def media_type_for(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in (".json", ".avsc", ".jsonschema"):
        return "application/json"
    if suffix in (".xsd", ".xml"):
        return "application/xml"
    return "text/plain; charset=utf-8"


# --- remote: another server's endpoints ---------------------------------------------------------------------------


class RemoteError(Exception):
    """The server answered a problem that is no verdict on a message (401, 403, 5xx...), or is unreachable."""


def _client(token: str | None, timeout: float = 30.0):
    # here: httpx loads only for a check against another server (--registry URL), not for a local one
    import httpx

    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    return httpx.Client(headers=headers, timeout=timeout)


def _problem_text(response) -> tuple[str, list]:
    try:
        body = response.json()
    except ValueError:
        return f"HTTP {response.status_code}: {response.text[:300]}", []
    if isinstance(body, dict):
        errors = as_array(body.get("errors"))
        return str(body.get("detail") or body.get("title") or f"HTTP {response.status_code}"), errors
    return f"HTTP {response.status_code}", []


class RemoteValidator:
    """Validates by POSTing each message to another server's validate endpoints (no local database)."""

    def __init__(self, url: str, token: str | None = None):
        self.url = url.rstrip("/")
        self.client = _client(token)
        self._by_type: dict[str, str] = {}
        self._groups: list[str] | None = None

    def close(self) -> None:
        self.client.close()

    def _post(self, path: str, message):
        # here: httpx loads only for a check against another server (--registry URL), not for a local one
        import httpx

        try:
            response = self.client.post(
                self.url + path, content=json.dumps(message).encode(), headers={"Content-Type": content_type(message)}
            )
        except httpx.HTTPError as exc:
            raise RemoteError(f"{self.url}: {exc}") from exc
        if response.status_code in (200, 400, 404, 413, 415, 503):  # 503: the check's budget, for this message
            return response
        detail, _errors = _problem_text(response)
        raise RemoteError(f"{self.url}{path}: HTTP {response.status_code}: {detail}")

    def _group_ids(self) -> list[str]:
        # here: httpx loads only for a check against another server (--registry URL), not for a local one
        import httpx

        if self._groups is None:
            groups: set[str] = set()
            url: str | None = self.url + "/definitionGroups"
            while url:  # pages: the Link header's rel="next"
                try:
                    response = self.client.get(url)
                except httpx.HTTPError as exc:
                    raise RemoteError(f"{self.url}: {exc}") from exc
                if response.status_code != 200:
                    raise RemoteError(
                        f"{self.url}/definitionGroups: HTTP {response.status_code}: {_problem_text(response)[0]}"
                    )
                groups.update(response.json())
                url = response.links.get("next", {}).get("url")
            self._groups = sorted(groups)
        return self._groups

    def has_group(self, gid: str) -> bool:
        """Whether a definition group with this id exists (--group names one)."""
        return gid in self._group_ids()

    def check(self, entry: Entry, *, group: str | None = None, definition: str | None = None) -> Outcome:
        named = entry.definition or definition
        if named:
            try:
                gid, did = split_definition(named)
            except UsageError as exc:
                return Outcome([("message", str(exc))])
            response = self._post(f"/definitionGroups/{gid}/definitions/{did}/validate", entry.message)
        elif group is not None:
            response = self._post(f"/definitionGroups/{group}/validate", entry.message)
        else:
            event_type = entry.message.get("type") if isinstance(entry.message, dict) else None
            known = self._by_type.get(event_type) if isinstance(event_type, str) else None
            candidates = [known] if known else self._group_ids()
            response = None
            for gid in candidates:
                response = self._post(f"/definitionGroups/{gid}/validate", entry.message)
                if response.status_code != 404:
                    if isinstance(event_type, str):
                        self._by_type[event_type] = gid
                    break
            if response is None or response.status_code == 404:
                return Outcome(
                    [("message", f"no definition group declares the CloudEvents type {str(event_type)[:200]!r}")]
                )
        if response.status_code != 200:
            return Outcome([("message", _problem_text(response)[0])], unchecked=response.status_code == 503)
        body = response.json()
        return _outcome(
            body, str(body.get("definition", "")).removeprefix("/definitionGroups/").replace("/definitions/", "/")
        )


def remote_compatibility(
    url: str, token: str | None, target: str, document: bytes, media_type: str | None, fmt: str | None
) -> dict:
    """The verdict from another server's `POST .../compatibility`; Problem-like 4xx raised as Problem."""
    # here: httpx loads only for a check against another server (--registry URL), not for a local one
    import httpx

    gid, sid = split_target(target)
    headers = {"Content-Type": media_type or "application/octet-stream"}
    if fmt:
        headers["Registry-format"] = fmt
    with _client(token) as client:
        try:
            response = client.post(
                f"{url.rstrip('/')}/schemaGroups/{gid}/schemas/{sid}/compatibility", content=document, headers=headers
            )
        except httpx.HTTPError as exc:
            raise RemoteError(f"{url}: {exc}") from exc
    if response.status_code == 200:
        return response.json()
    detail, errors = _problem_text(response)
    raise RemoteError(
        "\n".join(
            [f"HTTP {response.status_code}: {detail}"]
            + [f"  {e.get('path')}: {e.get('reason')}" if isinstance(e, dict) else f"  {e}" for e in errors]
        )
    )
