"""The shared helpers (tests/helpers.py) with JSON Schema documents as defaults instead of their `Custom/1`
text, for the core binding's tests of schemas."""

import json

from tests import helpers

SCHEMA_V1 = {"type": "object", "properties": {"id": {"type": "string"}}}
SCHEMA_V2 = {"type": "object", "properties": {"id": {"type": "string"}, "note": {"type": "string"}}}


def _document(body, default) -> bytes | str:
    return body if isinstance(body, bytes | str) else json.dumps(body or default)


def post_schema(su, gid="g1", sid="s1", body=None, content_type="application/json", **headers):
    """`helpers.post_schema` of a JSON Schema (no format unless given); the caller checks the answer."""
    return helpers.post_schema(
        su,
        gid,
        sid,
        _document(body, SCHEMA_V1),
        content_type,
        fmt=headers.pop("format", None),
        expect=None,
        **headers,
    )


def new_version(su, gid="g1", sid="s1", body=None, content_type="application/json", **headers):
    """`helpers.new_version` of a JSON Schema; the caller checks the answer."""
    return helpers.new_version(su, gid, sid, _document(body, SCHEMA_V2), content_type, expect=None, **headers)
