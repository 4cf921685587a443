"""A document is served back under the media type it was sent with, so what is declared must be true: a
document sent as YAML must be YAML (schemathesis found binary bytes stored as text/vnd.yaml and served back
unreadable). A registry document's own top-level attributes follow the common rules. 400, nothing written."""

import json

import pytest

from tests.helpers import assert_problem, make_group, send, snapshot

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "media_type", ["application/yaml", "text/vnd.yaml", "application/x-yaml", "application/example+yaml"]
)
@pytest.mark.parametrize(
    "body, mention",
    [
        (b"PK\x03\x04\x14\x00\x00\x00binary", "YAML"),
        (b"a: [1, 2", "YAML"),
        (b"\xff\xfe not utf-8", "UTF-8"),
    ],
)
def test_a_document_declared_yaml_must_be_yaml(su, media_type, body, mention):
    make_group(su)
    before = snapshot()
    assert_problem(
        send(su, "POST", "/schemaGroups/g1/schemas", body, media_type, id="s", format="Custom/1"), 400, mention
    )
    assert snapshot() == before


def test_yaml_documents_are_kept_as_sent(su):
    make_group(su)
    text = b"openapi: 3.0.0\ninfo: &i {title: t}\ncopy: *i\n---\nsecond: document\n"
    assert (
        send(su, "POST", "/schemaGroups/g1/schemas", text, "application/yaml", id="s", format="Custom/1").status_code
        == 201
    )
    response = su.get("/schemaGroups/g1/schemas/s")
    assert response.content == text and response["Content-Type"].startswith("application/yaml")


@pytest.mark.parametrize(
    "top, mention",
    [
        ({"$schema": 5}, "$schema"),
        ({"specversion": []}, "specversion"),
        ({"tags": {"a b": "x"}}, "tags"),
        ({"docs": "ftp://x/"}, "docs"),
        ({"name": ""}, "name"),
    ],
)
def test_a_registry_documents_top_level_attributes_are_checked(su, top, mention):
    before = snapshot()
    doc = {**top, "schemaGroups": {"g": {}}}
    assert_problem(su.generic("POST", "/", json.dumps(doc), content_type="application/json"), 400, mention)
    assert snapshot() == before
