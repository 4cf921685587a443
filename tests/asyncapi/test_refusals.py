"""Bad AsyncAPI input: every refusal is a 4xx problem naming the place (`FILE#/pointer`), and nothing is written
(checked with the suite's snapshot of the store). Invalid documents (the official JSON Schema), versions the
registry does not import, `$ref` cycles, remote `$ref`s (refused, and read only from the prefixes the setting
lists), 10,000 channels (413 before anything is validated), NUL and lone surrogates, payloads that are not valid
schemas of their own format, media types, auth."""

import copy
import http.server
import json
import threading

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile

from registry.models import Version
from tests.helpers import snapshot

from .conftest import DOCUMENTS, document, get_json, post_asyncapi

STREETLIGHTS = yaml.safe_load(document("3.0-streetlights-kafka.yml"))


def refused(response, status: int, *places: str, error: str | None = None) -> dict:
    assert response.status_code == status, response.content[:3000]
    assert response["Content-Type"].startswith("application/problem+json")
    body = response.json()
    if error:
        assert body["type"].endswith(f"#{error}"), body["type"]
    text = json.dumps(body)
    for place in places:
        assert place in text, (place, body)
    return body


def streetlights(**changes) -> dict:
    doc = copy.deepcopy(STREETLIGHTS)
    for path, value in changes.items():
        target = doc
        keys = path.split("__")
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value
    return doc


def test_invalid_documents_name_each_error(su):
    before = snapshot()
    doc = streetlights(info__x_bad=1)
    doc["info"]["unknown"] = 1
    doc["channels"]["lightTurnOn"]["address"] = 5
    doc["operations"]["turnOn"]["action"] = "publish"
    body = refused(post_asyncapi(su, doc), 400, error="format_violation")
    paths = {e["path"] for e in body["errors"]}
    assert {"document#/info", "document#/channels/lightTurnOn/address", "document#/operations/turnOn/action"} <= paths
    assert snapshot() == before


@pytest.mark.parametrize("version", ["2.5.0", "3.2.0", "1.2.0", None])
def test_versions_the_official_schemas_do_not_know_are_refused(su, version):
    before = snapshot()
    doc = streetlights(asyncapi=version)
    refused(post_asyncapi(su, doc), 400, "document#/asyncapi", "2.6.0, 3.0.0, 3.1.0")
    assert snapshot() == before


@pytest.mark.parametrize(
    ("body", "content_type", "status", "mention"),
    [
        (b"", "application/yaml", 400, "AsyncAPI document"),
        (b"asyncapi: [", "application/yaml", 400, "not valid YAML"),
        (b'{"asyncapi": "3.0.0",', "application/json", 400, "not valid JSON"),
        (b"- a\n- b\n", "application/yaml", 400, "one object"),
        (b'{"a": 1, "a": 2}', "application/json", 400, "duplicate key"),
        (b"asyncapi: 3.0.0", "text/plain", 415, "JSON or YAML"),
        (b"\xff\xfe", "application/yaml", 400, "UTF-8"),
    ],
)
def test_bodies_that_are_no_document(su, body, content_type, status, mention):
    before = snapshot()
    refused(post_asyncapi(su, body, content_type=content_type), status, mention)
    assert snapshot() == before


def test_nul_and_lone_surrogates_are_refused(su):
    before = snapshot()
    for text in ('"light \\u0000 measured"', '"light \\ud800 measured"'):
        raw = json.dumps(STREETLIGHTS).replace('"Light measured"', text).encode()
        refused(post_asyncapi(su, raw, content_type="application/json"), 400, "title")
    raw = document("3.0-streetlights-kafka.yml").replace(b"title: Light measured", b'title: "Light \\0 measured"')
    refused(post_asyncapi(su, raw), 400, "NUL")
    assert snapshot() == before


def test_a_ref_cycle_is_refused_with_its_chain(su):
    before = snapshot()
    doc = streetlights()
    doc["components"]["messages"]["a"] = {"$ref": "#/components/messages/b"}
    doc["components"]["messages"]["b"] = {"$ref": "#/components/messages/a"}
    doc["channels"]["lightTurnOn"]["messages"]["turnOn"] = {"$ref": "#/components/messages/a"}
    body = refused(post_asyncapi(su, doc), 400, "$ref cycle", "document#/components/messages/a")
    assert "document#/channels/lightTurnOn/messages/turnOn" in body["detail"]
    assert snapshot() == before


def test_a_schema_that_refers_to_itself_is_kept_with_its_references(su):
    doc = streetlights()
    doc["components"]["schemas"]["node"] = {
        "type": "object",
        "properties": {"value": {"type": "string"}, "next": {"$ref": "#/components/schemas/node"}},
    }
    doc["components"]["schemas"]["dimLightPayload"]["properties"]["chain"] = {"$ref": "#/components/schemas/node"}
    assert post_asyncapi(su, doc, query="?prefix=t").status_code == 200
    schema = get_json(su, "/registry/schemagroups/t/schemas/dimLightPayload/versions/1.0.0")
    assert schema["properties"]["chain"] == {"$ref": "#/definitions/node"}
    assert schema["definitions"]["node"]["properties"]["next"] == {"$ref": "#/definitions/node"}


def test_an_exponential_fan_out_of_refs_is_refused(su):
    before = snapshot()
    doc = streetlights()
    schemas = doc["components"]["schemas"]
    schemas["s0"] = {"type": "string"}
    for level in range(1, 25):  # 2^24 values once inlined
        schemas[f"s{level}"] = {
            "type": "object",
            "properties": {
                "a": {"$ref": f"#/components/schemas/s{level - 1}"},
                "b": {"$ref": f"#/components/schemas/s{level - 1}"},
            },
        }
    schemas["dimLightPayload"]["properties"]["big"] = {"$ref": "#/components/schemas/s24"}
    refused(post_asyncapi(su, doc), 400, "once its $refs are inlined", "document#/components/schemas/dimLightPayload")
    assert snapshot() == before


def test_remote_refs_are_refused(su):
    """The AsyncAPI specification's Adeo example holds remote Avro schemas (a message's Kafka key, payloads):
    refused, naming the first place read."""
    before = snapshot()
    body = refused(
        post_asyncapi(su, document("3.0-adeo-kafka-request-reply.yml")), 400, "REGISTRY_ASYNCAPI_REMOTE_REFS"
    )
    assert body["errors"][0]["path"] == "document#/components/messages/costingResponse/bindings/kafka/key"
    assert "/resources/casestudies/adeo/CostingResponseKey.avsc" in body["detail"]
    body = refused(
        post_asyncapi(su, document("3.1-adeo-kafka-request-reply.yml")), 400, "REGISTRY_ASYNCAPI_REMOTE_REFS"
    )
    assert body["errors"][0]["path"] == "document#/components/messages/costingRequestV1/payload/schema"
    assert "https://www.asyncapi.com/resources/casestudies/adeo/CostingRequestPayload.avsc" in body["detail"]
    assert snapshot() == before


@pytest.fixture
def trait_server():
    """A local HTTP server with the CloudEvents trait of the CloudEvents specification's AsyncAPI example."""
    trait = (DOCUMENTS / "cloudevents" / "cloudevents-headers-kafka-binary.yaml").read_bytes()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            found = self.path == "/traits/cloudevents-headers-kafka-binary.yaml"
            self.send_response(200 if found else 404)
            self.end_headers()
            if found:
                self.wfile.write(trait)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def remote_document(base: str) -> bytes:
    original = (DOCUMENTS / "cloudevents" / "light-switch-events-binary-kafka.yaml").read_bytes()
    remote = b"https://raw.githubusercontent.com/cloudevents/spec/main/cloudevents/working-drafts/asyncapi-traits/"
    return original.replace(remote, f"{base}/traits/".encode())


def test_remote_refs_are_read_from_the_prefixes_the_setting_lists(su, settings, trait_server):
    doc = remote_document(trait_server)
    before = snapshot()
    refused(post_asyncapi(su, doc), 400, "REGISTRY_ASYNCAPI_REMOTE_REFS")
    settings.REGISTRY_ASYNCAPI_REMOTE_REFS = "https://schemas.example.com/, http://127.0.0.1:1/"
    refused(post_asyncapi(su, doc), 400, "REGISTRY_ASYNCAPI_REMOTE_REFS")  # another prefix: still refused
    assert snapshot() == before
    settings.REGISTRY_ASYNCAPI_REMOTE_REFS = f"https://schemas.example.com/,{trait_server}/traits/"
    assert post_asyncapi(su, doc, query="?prefix=remote").status_code == 200
    message = get_json(su, "/registry/messagegroups/remote.officeLightSwitchChanged/messages/lightSwitchChanged")
    assert message["envelope"] == "CloudEvents/1.0" and "type" in message["envelopemetadata"]
    # a listed prefix that answers 404
    settings.REGISTRY_ASYNCAPI_REMOTE_REFS = f"{trait_server}/"
    refused(post_asyncapi(su, doc.replace(b"/traits/", b"/gone/")), 400, "answered 404")


def test_a_ref_to_a_file_needs_the_file(su):
    before = snapshot()
    doc = (DOCUMENTS / "cloudevents" / "light-switch-events-binary-kafka-local.yaml").read_bytes()
    refused(post_asyncapi(su, doc), 400, "cloudevents-headers-kafka-binary.yaml", "multipart")
    with open(DOCUMENTS / "cloudevents" / "light-switch-events-binary-kafka-local.yaml", "rb") as handle:
        refused(su.post("/registry/asyncapi", {"document": handle}, format="multipart"), 400, "cannot be read")
    traversal = doc.replace(b"cloudevents-headers-kafka-binary.yaml", b"../../etc/passwd")
    upload = SimpleUploadedFile("d.yaml", traversal)
    refused(su.post("/registry/asyncapi", {"document": upload}, format="multipart"), 400, "outside")
    upload = SimpleUploadedFile("d.yaml", doc)
    refused(su.post("/registry/asyncapi", {"file": upload}, format="multipart"), 400, "`document` part")
    assert snapshot() == before


def test_ten_thousand_channels_get_a_413_before_anything_is_validated(su):
    before = snapshot()
    doc = {"asyncapi": "3.0.0", "info": {"title": "big", "version": "1"}, "channels": {}}
    for i in range(10_000):
        doc["channels"][f"c{i}"] = {
            "address": f"topic.{i}",
            "messages": {"m": {"payload": {"type": "object", "properties": {"n": {"type": "integer"}}}}},
        }
    response = post_asyncapi(su, doc)
    refused(response, 413, "REGISTRY_IMPORT_MAX_ENTITIES", error="too_large")
    assert snapshot() == before


@pytest.mark.parametrize(
    ("schema_format", "schema", "mention"),
    [
        (
            "application/vnd.apache.avro;version=1.9.0",
            {"type": "record", "name": "X", "fields": [{"name": "a", "type": "nosuch"}]},
            "nosuch",
        ),
        ("application/vnd.google.protobuf;version=3", 'syntax = "proto3"; message X { string a = ; }', "schema"),
        ("application/schema+json;version=draft-07", {"type": "objekt"}, "objekt"),
        ("application/x-unknown", {"type": "object"}, "application/x-unknown"),
    ],
)
def test_payloads_that_are_no_valid_schema_of_their_format(su, schema_format, schema, mention):
    before = snapshot()
    doc = streetlights()
    doc["components"]["messages"]["dimLight"]["payload"] = {"schemaFormat": schema_format, "schema": schema}
    body = refused(post_asyncapi(su, doc), 400, mention)
    assert any(e["path"].startswith("document#/components/messages/dimLight/payload") for e in body["errors"]), body
    assert snapshot() == before


def test_a_message_that_is_no_valid_definition_names_its_place(su):
    """A CloudEvents header declaring `specversion` 2.0: the message's place, the registry's reason."""
    before = snapshot()
    doc = streetlights()
    doc["components"]["messageTraits"]["commonHeaders"]["headers"]["properties"]["ce-specversion"] = {"const": "2.0"}
    body = refused(post_asyncapi(su, doc), 400, "specversion")
    assert body["errors"][0]["path"] == "document#/components/messages/lightMeasured"
    assert body["errors"][0]["entity"].endswith("/messages/lightMeasured")
    assert snapshot() == before


def test_anonymous_and_read_only_users_cannot_import(anon, db, django_user_model):
    from tests.conftest import token_client

    before = snapshot()
    refused(post_asyncapi(anon, document("3.0-simple.yml")), 401)
    reader = token_client(django_user_model.objects.create_user("reader", password="pw"))
    refused(post_asyncapi(reader, document("3.0-simple.yml")), 403)
    assert snapshot() == before


def test_dry_run_answers_and_writes_nothing(su):
    before = snapshot()
    response = post_asyncapi(su, document("3.0-simple.yml"), query="?dryrun=true")
    assert response.status_code == 200, response.content
    assert response.json()["dryrun"] is True and response.json()["created"]
    assert snapshot() == before
    assert not Version.objects.exists()
    refused(post_asyncapi(su, document("3.0-simple.yml"), query="?dryrun=maybe"), 400, "dryrun", error="bad_flag")
    refused(post_asyncapi(su, document("3.0-simple.yml"), query="?prefix=a/b"), 400, "prefix")
    refused(post_asyncapi(su, document("3.0-simple.yml"), query="?other=1"), 400, "other", error="bad_flag")
    assert snapshot() == before


def test_odd_shapes_in_files_beside_the_document_are_refused_not_failed(su):
    """A file a `$ref` names is not checked against the official schema: what it holds is checked where it is read."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    before = snapshot()
    doc = streetlights()
    doc["channels"]["lightsDim"] = {"$ref": "channels.yaml#/dim"}
    del doc["operations"]["dimLight"]
    for content, mention in (
        (b"dim:\n  address: x\n  messages: [1, 2]\n", "channels.yaml#/dim/messages"),
        (b"dim:\n  address: x\n  servers: {a: 1}\n", "channels.yaml#/dim/servers"),
        (b"dim: [1]\n", "a Channel Object"),
        (b"dim:\n  1: x\n", "not a string"),
    ):
        response = su.post(
            "/registry/asyncapi",
            {
                "document": SimpleUploadedFile("doc.json", json.dumps(doc).encode()),
                "file": SimpleUploadedFile("channels.yaml", content),
            },
            format="multipart",
        )
        refused(response, 400, mention)
    assert snapshot() == before


def test_a_multipart_upload_of_more_files_than_django_reads_is_a_problem_document(su, client, superuser):
    """Django reads at most DATA_UPLOAD_MAX_NUMBER_FILES (100) files of a multipart body; more were answered with
    Django's HTML 400 page (issue 37). Now a problem document in the binding's words, naming the limit, with
    nothing written: through the API and the admin's import page."""
    before = snapshot()
    doc = SimpleUploadedFile("d.yaml", yaml.safe_dump(STREETLIGHTS).encode())
    files = [SimpleUploadedFile(f"f{n}.yaml", b"a: 1") for n in range(100)]  # with the document: 101
    body = refused(
        su.post("/registry/asyncapi", {"document": doc, "file": files}, format="multipart"),
        400,
        "100",
        "DATA_UPLOAD_MAX_NUMBER_FILES",
        error="bad_request",
    )
    assert body["status"] == 400
    client.force_login(superuser)
    doc.seek(0)
    for item in files:
        item.seek(0)
    page = client.post("/admin/asyncapi/import/", {"documents": [doc], "files": files, "group_prefix": "p"})
    assert page.status_code == 400 and page["Content-Type"].startswith("application/problem+json")
    assert "DATA_UPLOAD_MAX_NUMBER_FILES" in page.json()["detail"]
    assert snapshot() == before
    doc.seek(0)  # and 100 files are read: the document is imported
    files[0].seek(0)
    response = su.post("/registry/asyncapi", {"document": doc, "file": files[:1]}, format="multipart")
    assert response.status_code == 200, response.content[:2000]
