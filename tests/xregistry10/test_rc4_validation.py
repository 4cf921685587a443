"""rc4's compatibility levels and validation attributes through the 1.0 binding (issue 39 items 5 and 6; CONTRACT 18).

* A `compatibility` is only ever a level the versions' format offers: messages show none, a registry whose default is
  `none` shows none, and neither `none` nor a format without checks is offered in the capabilities (the reference
  server refuses `meta.compatibility: "none"` on a message: "value (none) must be one of the enum values").
"""

import base64
import json

import pytest

from tests.corpus import corpus
from tests.helpers import snapshot

from .conftest import post_json

GROUP = "Fabrikam.Watchkam"
JSON_SCHEMA = "JsonSchema/draft-07"
XSD = '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"/>'


def watchkam() -> dict:
    return json.loads(corpus("rc4", "watchkam-jsons07.xreg.json").read_text())


def xr_import(client, doc: dict):
    """`xr import`'s request: the whole document POSTed to /registry/ with no Content-Type, HTTP Basic credentials."""
    basic = "Basic " + base64.b64encode(b"writer:pw").decode()
    return client.generic("POST", "/registry/", json.dumps(doc).encode(), content_type="", HTTP_AUTHORIZATION=basic)


def details(client, path: str) -> dict:
    response = client.get(f"{path}$details")
    assert response.status_code == 200, response.content[:500]
    return response.json()


def put_schema(client, sid: str, body: dict, path: str = "/registry/schemagroups/g1") -> dict:
    response = post_json(client, f"{path}/schemas/{sid}$details", body, "put")
    assert response.status_code in (200, 201), response.content[:1000]
    return response.json()


def meta(client, sid: str) -> dict:
    return client.get(f"/registry/schemagroups/g1/schemas/{sid}/meta").json()


def test_messages_show_no_level_and_the_capabilities_offer_only_checked_levels(writer):
    assert xr_import(writer, watchkam()).status_code == 200
    exported = writer.get("/registry/export").json()
    for group in exported["messagegroups"].values():
        for message in group["messages"].values():
            assert "compatibility" not in message["meta"], message["meta"]
    levels = writer.get("/registry/capabilities").json()["compatibilities"]
    assert set(levels) == {"jsonschema*", "avro*", "protobuf*"}
    for offered in levels.values():
        assert "none" not in offered and "backward_transitive" in offered
    model = writer.get("/registry/model").json()["groups"]
    message_meta = model["messagegroups"]["resources"]["messages"]["metaattributes"]["compatibility"]
    assert "default" not in message_meta and not message_meta.get("required")
    assert model["schemagroups"]["resources"]["schemas"]["metaattributes"]["compatibility"]["default"] == (
        "backward_transitive"
    )


def test_a_registry_whose_default_is_none_shows_no_level(writer, settings):
    settings.REGISTRY_DEFAULT_COMPATIBILITY = "none"
    assert xr_import(writer, watchkam()).status_code == 200
    exported = writer.get("/registry/export").json()
    assert '"compatibility"' not in json.dumps(exported)
    model = writer.get("/registry/model").json()["groups"]
    assert "default" not in model["schemagroups"]["resources"]["schemas"]["metaattributes"]["compatibility"]


def test_a_format_without_compatibility_checks_shows_no_level(writer):
    assert post_json(writer, "/registry/schemagroups/g1", {}, "put").status_code == 201
    put_schema(writer, "unknown", {"format": "Custom/1", "schema": "anything"})
    put_schema(writer, "xsd", {"format": "XSD/1.1", "schema": XSD})
    put_schema(writer, "json", {"format": JSON_SCHEMA, "schema": {"type": "object"}})
    assert "compatibility" not in meta(writer, "unknown")
    assert "compatibility" not in meta(writer, "xsd")
    assert meta(writer, "json")["compatibility"] == "backward_transitive"


@pytest.mark.parametrize("where", ["message", "xsd"])
def test_a_level_the_format_does_not_offer_is_refused_and_nothing_written(writer, where):
    if where == "message":
        assert xr_import(writer, watchkam()).status_code == 200
        path = f"/registry/messagegroups/{GROUP}/messages/Fabrikam.Watchkam.MotionDetected/meta"
    else:
        assert post_json(writer, "/registry/schemagroups/g1", {}, "put").status_code == 201
        put_schema(writer, "xsd", {"format": "XSD/1.1", "schema": XSD})
        path = "/registry/schemagroups/g1/schemas/xsd/meta"
    before = snapshot()
    refused = post_json(writer, path, {"compatibility": "backward"}, "patch")
    assert refused.status_code == 400, refused.content[:500]
    assert "compatibility" in refused.json()["detail"]
    assert snapshot() == before


def test_a_message_level_in_a_document_is_refused_and_nothing_written(writer):
    doc = watchkam()
    message = doc["messagegroups"][GROUP]["messages"]["Fabrikam.Watchkam.MotionDetected"]
    message["meta"] = {"compatibility": "backward"}
    before = snapshot()
    refused = xr_import(writer, doc)
    assert refused.status_code == 400, refused.content[:500]
    assert "compatibility" in refused.json()["detail"]
    assert snapshot() == before
    message["meta"] = {"compatibility": "none"}  # what this server exported before: no level, accepted
    assert xr_import(writer, doc).status_code == 200
