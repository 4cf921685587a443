"""A new version's format against the schema's earlier versions (catalog.hooks): a format of another family is
refused at every compatibility level, `none` included (where the earlier versions' documents are not read, only
their formats); another version of the same family is accepted; nothing is written by a refusal."""

import json

import pytest

from tests.helpers import make_group, new_version, post_schema, snapshot

JSON_V1 = json.dumps({"type": "object", "properties": {"a": {"type": "string"}}}).encode()
JSON_V2 = json.dumps({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}).encode()
AVRO = json.dumps({"type": "record", "name": "R", "fields": [{"name": "a", "type": "string"}]}).encode()


@pytest.mark.parametrize("level", ["none", "backward", "full_transitive"])
def test_another_format_family_is_refused_at_every_level(su, level):
    make_group(su, "g1")
    post_schema(su, "g1", "s1", JSON_V1, "application/json", fmt="JsonSchema/draft-07", compatibility=level)
    before = snapshot()
    refused = new_version(su, "g1", "s1", AVRO, "application/json", format="Avro/1.11.0", expect=400)
    assert "differs from the format 'JsonSchema/draft-07' of the schema's other versions" in refused.json()["detail"]
    assert snapshot() == before
    new_version(su, "g1", "s1", JSON_V2, "application/json", format="JsonSchema/2020-12", expect=201)
