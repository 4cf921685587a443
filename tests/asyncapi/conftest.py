"""Helpers of the AsyncAPI tests: the documents written by others (documents/README.md says where each comes
from), and imports through `POST /registry/asyncapi`."""

from __future__ import annotations

import json
from pathlib import Path

DOCUMENTS = Path(__file__).with_name("documents")
REAL = sorted(p.name for p in DOCUMENTS.glob("*.yml") if "adeo" not in p.name)  # adeo holds remote $refs


def document(name: str) -> bytes:
    return (DOCUMENTS / name).read_bytes()


def post_asyncapi(client, body, content_type="application/yaml", query=""):
    """POST /registry/asyncapi with a raw body (bytes, or a dict sent as JSON)."""
    if isinstance(body, dict):
        body, content_type = json.dumps(body).encode(), "application/json"
    return client.generic("POST", f"/registry/asyncapi{query}", body, content_type=content_type)


def get_json(client, path, **headers):
    response = client.get(path, headers=headers)
    assert response.status_code == 200, (path, response.status_code, response.content[:2000])
    return response.json()
