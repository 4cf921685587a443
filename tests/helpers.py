"""The suite's shared helpers for HTTP tests of the registry: requests with `Registry-*` headers, groups,
schemas and definitions made through the API, the one problem-document assertion, the outbox, and a snapshot
of everything stored (to prove that a refused request wrote nothing).

Generic version/epoch/header behaviour uses schemas of a format no validator knows (`Custom/1`,
text/plain), so it holds whatever the format validators accept. Fixtures (clients) are in tests/conftest.py.
"""

from __future__ import annotations

import json
import re

from registry.models import OutboxEvent

PROBLEM_TYPE = "application/problem+json"
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")
CUSTOM = "Custom/1"
TEXT = "text/plain; charset=utf-8"
CE_FORMAT = "CloudEvents/1.0"

JSON_SCHEMA_V1 = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {"id": {"type": "string"}},
}
JSON_SCHEMA_V2 = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {"id": {"type": "string"}, "note": {"type": "string"}},
}


def registry_headers(**attrs) -> dict:
    """`Registry-ATTR` request headers from keyword arguments (`schemaURI=...`, `tags_owner=...`)."""
    out = {}
    for key, value in attrs.items():
        if value is None:
            continue
        if key.startswith("tags_"):
            out[f"Registry-tags-{key[5:]}"] = value
        else:
            out[f"Registry-{key}"] = value
    return out


def send(client, method, path, body=b"", content_type=TEXT, **attrs):
    """A request with a raw body and `Registry-*` headers."""
    if isinstance(body, dict | list):
        body = json.dumps(body)
    return client.generic(method, path, body, content_type=content_type, headers=registry_headers(**attrs))


def send_json(client, method, path, body=None):
    data = "" if body is None else (body if isinstance(body, str | bytes) else json.dumps(body))
    return client.generic(method, path, data, content_type="application/json")


def put_json(client, path: str, body) -> object:
    """PUT `body` (JSON text, or a value to write as JSON) as application/json through an httpx client (a live
    server's)."""
    content = body if isinstance(body, str | bytes) else json.dumps(body)
    return client.put(path, content=content, headers={"Content-Type": "application/json"})


def make_group(client, gid="g1", plural="schemaGroups", **attrs):
    response = send_json(client, "POST", f"/{plural}", {"id": gid, **attrs})
    assert response.status_code == 201, response.content
    return response.json()


def make_definition_group(client, gid="dg1", **attrs):
    return make_group(client, gid, "definitionGroups", format=CE_FORMAT, **attrs)


def post_schema(client, gid="g1", sid="s1", body=b"first document", content_type=TEXT, fmt=CUSTOM, expect=201, **attrs):
    """POST /schemaGroups/gID/schemas: a schema with its first version (format Custom/1 by default)."""
    headers = {"format": fmt, **attrs}
    if sid is not None:
        headers["id"] = sid
    response = send(client, "POST", f"/schemaGroups/{gid}/schemas", body, content_type, **headers)
    if expect is not None:
        assert response.status_code == expect, response.content
    return response


def new_version(client, gid="g1", sid="s1", body=b"next document", content_type=TEXT, expect=201, **attrs):
    """POST /schemaGroups/gID/schemas/sID: a new version."""
    response = send(client, "POST", f"/schemaGroups/{gid}/schemas/{sid}", body, content_type, **attrs)
    if expect is not None:
        assert response.status_code == expect, response.content
    return response


def definition(type_="com.example.x", **extra) -> dict:
    return {"format": CE_FORMAT, "metadata": {"attributes": {"type": {"value": type_}}}, **extra}


def post_definition(client, gid="dg1", did="d1", doc=None, expect=201, **attrs):
    headers = dict(attrs)
    if did is not None:
        headers["id"] = did
    response = send(
        client, "POST", f"/definitionGroups/{gid}/definitions", doc or definition(), "application/json", **headers
    )
    if expect is not None:
        assert response.status_code == expect, response.content
    return response


def meta(client, path):
    response = client.get(path + "?meta")
    assert response.status_code == 200, response.content
    return response.json()


def assert_problem(response, status: int, *mentions: str, kind: str | None = None) -> dict:
    """The suite's one check of a problem document (RFC 9457): this status, every member, the request's path
    as `instance`, the problem type `kind` when given, and a detail (or errors) naming each of `mentions`."""
    assert response.status_code == status, (response.status_code, response.content)
    assert response["Content-Type"].startswith(PROBLEM_TYPE), response["Content-Type"]
    body = response.json()
    for key in ("type", "title", "status", "detail", "instance"):
        assert key in body, (key, body)
    assert body["status"] == status and body["detail"]
    assert isinstance(body["type"], str) and body["type"].startswith("urn:problem-type:"), body["type"]
    if kind is not None:
        assert body["type"].endswith(f":{kind}"), (kind, body["type"])
    assert body["instance"] == response.wsgi_request.path
    for mention in mentions:
        assert mention in body["detail"] or mention in json.dumps(body.get("errors", [])), (mention, body)
    return body


def without_request_id(response) -> dict:
    """A response's headers but `X-Request-ID` (new for every request): a HEAD and its GET answer the same."""
    return {k: v for k, v in response.items() if k.lower() != "x-request-id"}


def outbox(since: int = 0) -> list[tuple[str, str]]:
    """(type, subject) of the outbox rows, oldest first, skipping the first `since`."""
    rows = list(OutboxEvent.objects.order_by("created_at", "subject").values_list("type", "subject"))
    return rows[since:]


def snapshot():
    """Everything the registry stores, to prove that a failed request wrote nothing."""
    from registry.models import AuditRecord, Group, Resource, Version

    return (
        sorted(
            (
                g.group_type,
                g.gid,
                g.epoch,
                g.name,
                g.description,
                g.modified_on,
                json.dumps(g.extensions, sort_keys=True),
                g.origin,
            )
            for g in Group.objects.all()
        ),
        sorted(
            (
                r.rid,
                r.latest.vid if r.latest else None,
                r.version_counter,
                json.dumps(r.extensions, sort_keys=True),
                r.origin,
            )
            for r in Resource.objects.select_related("latest")
        ),
        sorted(
            (
                v.resource.rid,
                v.vid,
                v.epoch,
                bytes(v.content or b""),
                v.media_type,
                v.resource_uri,
                json.dumps(v.extensions, sort_keys=True),
                v.description,
                v.name,
            )
            for v in Version.objects.select_related("resource")
        ),
        OutboxEvent.objects.count(),
        AuditRecord.objects.count(),
    )


def cache_use(name: str) -> tuple[float, float]:
    """(look-ups, entries) of the per-process cache `name` as /metrics reports them (registry/store/bounded_cache.py):
    look-ups are its hits and misses so far."""
    from registry.store.bounded_cache import CACHE_METRICS

    def sample(metric: str) -> float:
        return CACHE_METRICS.get_sample_value(metric, {"cache": name}) or 0.0

    return sample("registry_cache_hits_total") + sample("registry_cache_misses_total"), sample("registry_cache_entries")
