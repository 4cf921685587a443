"""The Confluent API as the kernel reads it (`registry.http.binding.Binding`), mounted at `/confluent`
(config/urls.py): every problem of a request under `/confluent` (a view's, or handler404/handler500's) is written
as Confluent's `{"error_code", "message"}` with Confluent's media type, entities named as subjects; a 401 challenges
for HTTP Basic (what the clients send); a body without a media type, or as `application/octet-stream`, is JSON; a
query parameter an operation does not take is ignored, as Confluent's REST server ignores it.
"""

from __future__ import annotations

import json

from django.http import HttpResponse

from registry.domain.errors import Problem
from registry.http.binding import Binding

from .. import subjects
from ..errors import ConfluentError, code_of

MEDIA_TYPE = "application/vnd.schemaregistry.v1+json"
# request bodies read as JSON besides application/json and */*+json (Confluent's REST server accepts these)
JSON_BODIES = ("application/octet-stream",)


def _store_path(path: str) -> tuple[str | None, str | None, str | None]:
    """(group id, schema id, version id) of a store path of a schema group, schema or version."""
    segments = path.split("/")
    if len(segments) < 3 or segments[0] != "" or segments[1] != subjects.GROUPS:
        return None, None, None
    rid = segments[4] if len(segments) >= 5 and segments[3] == subjects.SCHEMAS else None
    vid = segments[6] if rid is not None and len(segments) >= 7 and segments[5] == "versions" else None
    return segments[2], rid, vid


def path_name(path: str) -> str:
    """A store path in this API's words: `subject 'S'`, `subject 'S' (registry version v1)`, `context '.ctx'`."""
    gid, rid, vid = _store_path(path)
    if gid is None:
        return path
    if rid is None:
        return f"context '{subjects.context_name(gid)}'"
    name = subjects.name_of(gid, rid) or rid
    return f"subject '{name}'" + (f" (registry version {vid})" if vid is not None else "")


def message_of(problem: Problem) -> str:
    if problem.kind == "incompatible-version" and not isinstance(problem, ConfluentError):
        gid, rid, _vid = _store_path(problem.subject or "")
        name = (subjects.name_of(gid, rid) if gid and rid else None) or "?"
        details = [
            f"{e['path']}: {e['change']} ({e['reason']})" if isinstance(e, dict) and "change" in e else str(e)
            for e in problem.errors
        ] or [problem.detail]
        return (
            f'Schema being registered is incompatible with an earlier schema for subject "{name}", details: {details}'
        )
    return problem.detail_in(path_name)


def render_problem(problem: Problem, request=None) -> HttpResponse:
    gid, rid, vid = _store_path(problem.subject or "")
    code = code_of(problem, entity="version" if vid else "subject" if rid else "context" if gid else None)
    body = {"error_code": code, "message": message_of(problem)}
    # a message may quote client input holding a lone surrogate: escaped, the answer stays valid UTF-8
    text = json.dumps(body, ensure_ascii=False).encode("utf-8", "backslashreplace")
    response = HttpResponse(text, status=problem.status, content_type=MEDIA_TYPE)
    for name, value in problem.headers.items():  # WWW-Authenticate of a 401, Retry-After of a busy store
        response[name] = value
    return response


def ignore_unknown_flags(request, declared: frozenset[str]) -> None:
    """Confluent's REST server (Jersey) reads the query parameters an operation takes and ignores the others."""


CONFLUENT = Binding(
    name="confluent",
    render_problem=render_problem,
    bare_body_is_json=True,
    json_media_types=JSON_BODIES,
    challenge='Basic realm="registry"',
    check_flags=ignore_unknown_flags,
)
