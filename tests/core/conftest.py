"""Helpers for the core binding tests: a writer client and quick ways to make groups and schemas."""
import json

import pytest

SCHEMA_V1 = {"type": "object", "properties": {"id": {"type": "string"}}}
SCHEMA_V2 = {"type": "object", "properties": {"id": {"type": "string"}, "note": {"type": "string"}}}


@pytest.fixture
def writer(editor_client):
    return editor_client


@pytest.fixture
def group(writer):
    response = writer.post("/schemaGroups", {"id": "g1", "description": "first"}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def post_schema(writer, gid="g1", sid="s1", body=None, content_type="application/json", **headers):
    data = body if isinstance(body, bytes | str) else json.dumps(body or SCHEMA_V1)
    extra = {f"HTTP_REGISTRY_{k.upper()}": v for k, v in headers.items()}
    return writer.generic("POST", f"/schemaGroups/{gid}/schemas", data, content_type=content_type,
                          **({"HTTP_REGISTRY_ID": sid} if sid else {}), **extra)


def new_version(writer, gid="g1", sid="s1", body=None, content_type="application/json", **headers):
    data = body if isinstance(body, bytes | str) else json.dumps(body or SCHEMA_V2)
    extra = {f"HTTP_REGISTRY_{k.upper()}": v for k, v in headers.items()}
    return writer.generic("POST", f"/schemaGroups/{gid}/schemas/{sid}", data, content_type=content_type, **extra)
