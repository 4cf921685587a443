"""rc4's compatibility levels and validation attributes through the 1.0 binding (issue 39 items 5 and 6; CONTRACT 18).

* A `compatibility` is only ever a level the versions' format offers: messages show none, a registry whose default is
  `none` shows none, and neither `none` nor a format without checks is offered in the capabilities (the reference
  server refuses `meta.compatibility: "none"` on a message: "value (none) must be one of the enum values").
* `formatvalidated`, `compatibilityvalidated` and their reasons as rc4 core requires them of a schema (its model's
  `validateformat` and `validatecompatibility` are true, `strictvalidation` false): a version accepted without a
  check says so; an import's history says it was not checked; the doc view (and the export) leaves them out.
"""

import base64
import json

import pytest

from registry.models import Version
from tests.corpus import corpus
from tests.helpers import snapshot

from .conftest import post_json

GROUP = "Fabrikam.Watchkam"
SCHEMA = "Fabrikam.Watchkam.MotionDetectedEventData"
SCHEMA_PATH = f"/registry/schemagroups/{GROUP}/schemas/{SCHEMA}"
HISTORY_REASON = "imported together with its resource, as history"
VALIDATION = {"formatvalidated", "formatvalidatedreason", "compatibilityvalidated", "compatibilityvalidatedreason"}
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


def assert_history(version: dict) -> None:
    assert version["formatvalidated"] is True and "formatvalidatedreason" not in version, version
    assert version["compatibilityvalidated"] is False, version
    assert version["compatibilityvalidatedreason"].startswith(HISTORY_REASON), version


def test_an_imports_history_says_it_was_not_checked(writer):
    assert xr_import(writer, watchkam()).status_code == 200
    for vid in ("1", "2"):
        assert_history(details(writer, f"{SCHEMA_PATH}/versions/{vid}"))
    assert_history(details(writer, SCHEMA_PATH))  # the resource shows its default version's
    document = writer.get(SCHEMA_PATH)  # a document GET says it in headers
    assert document["xRegistry-compatibilityvalidated"] == "false"
    assert document["xRegistry-formatvalidated"] == "true"
    # a single write after it is checked, and says so
    v3 = json.loads(writer.get(f"{SCHEMA_PATH}/versions/2").content)
    v3["required"].remove("motionType")
    created = post_json(writer, f"{SCHEMA_PATH}$details", {"schema": v3, "format": JSON_SCHEMA})
    assert created.status_code == 201, created.content[:1000]
    assert created.json()["formatvalidated"] is True and created.json()["compatibilityvalidated"] is True
    assert not VALIDATION & {"formatvalidatedreason", "compatibilityvalidatedreason"} & set(created.json())


def test_the_doc_view_and_the_export_leave_them_out(writer):
    """core/spec.md "Doc Flag": MUST remove the Version `formatvalidated` and `compatibilityvalidated` attributes."""
    assert xr_import(writer, watchkam()).status_code == 200
    for path in ("/registry/export", "/registry/schemagroups?doc&inline=*", f"{SCHEMA_PATH}$details?doc&inline=*"):
        text = writer.get(path).content.decode()
        assert all(f'"{name}"' not in text for name in VALIDATION), path
    assert "formatvalidated" in writer.get("/registry/schemagroups?inline=*").content.decode()


def test_versions_accepted_without_a_check_say_so(writer, settings):
    assert post_json(writer, "/registry/schemagroups/g1", {}, "put").status_code == 201
    checked = put_schema(writer, "checked", {"format": JSON_SCHEMA, "schema": {"type": "object"}})
    assert checked["formatvalidated"] is True and checked["compatibilityvalidated"] is True
    assert not {"formatvalidatedreason", "compatibilityvalidatedreason"} & set(checked)

    unknown = put_schema(writer, "unknown", {"format": "Custom/1", "schema": "anything"})
    assert unknown["formatvalidated"] is False and "Custom/1" in unknown["formatvalidatedreason"]
    assert "compatibilityvalidated" not in unknown  # no level applies: none stated

    elsewhere = put_schema(writer, "elsewhere", {"format": JSON_SCHEMA, "schemaurl": "https://example.com/s.json"})
    assert elsewhere["formatvalidated"] is False and "outside the registry" in elsewhere["formatvalidatedreason"]
    assert elsewhere["compatibilityvalidated"] is False and elsewhere["compatibilityvalidatedreason"]

    xsd = put_schema(writer, "xsd", {"format": "XSD/1.1", "schema": XSD})
    assert xsd["formatvalidated"] is True and "compatibilityvalidated" not in xsd

    unformatted = put_schema(writer, "unformatted", {"schema": {"type": "object"}})
    assert not VALIDATION & set(unformatted)  # no format: no format validation (rc4 core `format`)

    settings.REGISTRY_DEFAULT_COMPATIBILITY = "none"
    unlevelled = put_schema(writer, "unlevelled", {"format": JSON_SCHEMA, "schema": {"type": "object"}})
    assert unlevelled["formatvalidated"] is True and "compatibilityvalidated" not in unlevelled
    # written while no level applied, then a level set: it was not checked at that level
    patched = post_json(
        writer, "/registry/schemagroups/g1/schemas/unlevelled/meta", {"compatibility": "backward"}, "patch"
    )
    assert patched.status_code == 200, patched.content[:500]
    version = details(writer, "/registry/schemagroups/g1/schemas/unlevelled/versions/1")
    assert version["compatibilityvalidated"] is False
    assert "no compatibility level applied" in version["compatibilityvalidatedreason"]


def test_validation_attributes_are_the_servers(writer):
    """Read-only: sent by a client they are ignored, never stored."""
    assert post_json(writer, "/registry/schemagroups/g1", {}, "put").status_code == 201
    body = {"format": JSON_SCHEMA, "schema": {"type": "object"}, "compatibilityvalidated": False, "formatvalidated": 1}
    version = put_schema(writer, "s", body)
    assert version["formatvalidated"] is True and version["compatibilityvalidated"] is True
    stored = Version.objects.get(resource__rid="s")
    assert "formatvalidated" not in stored.extensions and "compatibilityvalidated" not in stored.extensions


def test_messages_show_no_validation_attributes(writer):
    """rc4's message model validates no format (`validateformat` is not set): none shown."""
    assert xr_import(writer, watchkam()).status_code == 200
    message = details(writer, f"/registry/messagegroups/{GROUP}/messages/Fabrikam.Watchkam.MotionDetected")
    assert not VALIDATION & set(message)
