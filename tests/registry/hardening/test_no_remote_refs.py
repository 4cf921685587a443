"""Issue 37 item 2, CONTRACT.md section 19: nothing the registry checks is fetched from the network.

A schema holding `{"$ref": "http://127.0.0.1:PORT/x"}` made every anonymous message check GET that URL (jsonschema's
default registry: urllib, no timeout, no size cap) and answer with what it served. Here a real HTTP server on a
loopback port records every request and serves a schema that would change the verdict (an enum of a marker value):
through every door that checks a schema (message validation in both bindings, by definition and by type; the
compatibility dry run, the diff, Confluent's compatibility test and registration, the CI commands; writes of JSON
Schema, Avro, Protobuf and XSD documents through the bindings and a document import) it is never asked for anything,
the answer names the reference as unresolvable, and the marker appears nowhere. References inside the registry still
resolve: inside the document, and to JSON Schemas stored here (by registry path or by this server's URL), read with
the caller's read scope.
"""

from __future__ import annotations

import base64
import http.server
import io
import json
import threading
import time

import pytest
from django.contrib.auth.models import Group as Team
from django.core.management import call_command

from tests.conftest import token_client
from tests.helpers import definition, make_definition_group, make_group, post_definition, post_schema, snapshot

MARKER = "FETCHED-FROM-THE-NETWORK"
JS7 = "JsonSchema/draft-07"
CE = "application/cloudevents+json"


@pytest.fixture
def remote():
    """A loopback HTTP server: `(base URL, the paths it was asked for)`; every answer is a JSON Schema that would
    refuse the test's data (`{"enum": [MARKER]}`)."""
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            body = json.dumps({"enum": [MARKER], "definitions": {"x": {"enum": [MARKER]}}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", hits
    server.shutdown()
    server.server_close()


def post(client, path: str, body, content_type: str = CE, **headers):
    data = body if isinstance(body, bytes | str) else json.dumps(body)
    return client.generic("POST", path, data, content_type=content_type, **headers)


def event(data, type_="com.example.order") -> dict:
    return {"specversion": "1.0", "type": type_, "id": "1", "source": "/orders", "data": data}


def by_url(type_: str, url: str, fmt: str = JS7) -> dict:
    """A CloudEvents definition of `type_` whose data's schema is at `url`."""
    return definition(type_, schemaurl=url, schemaformat=fmt)


def check_everywhere(client, gid: str, did: str, message: dict) -> list[dict]:
    """The verdicts on `message` through the four doors of the check: 0.5 and 1.0, by definition and by type."""
    paths = (
        f"/definitionGroups/{gid}/definitions/{did}/validate",
        f"/definitionGroups/{gid}/validate",
        f"/registry/messagegroups/{gid}/messages/{did}/validate",
        f"/registry/messagegroups/{gid}/validate",
    )
    verdicts = []
    for path in paths:
        response = post(client, path, message)
        assert response.status_code == 200, (path, response.status_code, response.content)
        assert MARKER not in response.content.decode(), response.content
        verdicts.append(response.json())
    return verdicts


def assert_unresolvable(verdict: dict, ref: str, path: str = "data.id") -> None:
    assert verdict["valid"] is False, verdict
    found = [e for e in verdict["errors"] if ref.lower() in e["reason"].lower()]  # 1.0 words: /schemagroups/
    assert found, verdict
    assert found[0]["path"] == path and found[0].get("unchecked") is True, found
    assert "cannot be resolved" in found[0]["reason"] and "nothing is fetched" in found[0]["reason"], found


def store_schema(client, sid: str, schema, fmt: str = JS7, gid: str = "g") -> None:
    content = schema if isinstance(schema, bytes) else json.dumps(schema).encode()
    media = "application/json" if fmt.startswith(("Json", "Avro")) else "text/plain"
    post_schema(client, gid, sid, content, media, fmt=fmt)


def referring(ref: str, draft: str = "draft-07") -> dict:
    dialect = {
        "draft-07": "http://json-schema.org/draft-07/schema#",
        "2020-12": "https://json-schema.org/draft/2020-12/schema",
    }[draft]
    return {"$schema": dialect, "type": "object", "properties": {"id": {"$ref": ref}}}


@pytest.mark.parametrize("draft", ["draft-07", "2020-12"])
@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_message_checks_fetch_no_remote_ref_through_either_binding(su, anon, remote, draft, host):
    base, hits = remote
    ref = base.replace("127.0.0.1", host) + "/x"
    make_group(su, "g")
    store_schema(su, "s", referring(ref, draft), fmt=f"JsonSchema/{draft}")
    make_definition_group(su, "dg")
    post_definition(su, "dg", "d", by_url("com.example.order", "/schemaGroups/g/schemas/s"))
    before = snapshot()
    for verdict in check_everywhere(anon, "dg", "d", event({"id": 5})):
        assert_unresolvable(verdict, ref)
    assert hits == [] and snapshot() == before


def test_inline_schemas_and_json_pointers_fetch_nothing(su, anon, remote):
    base, hits = remote
    make_definition_group(su, "dg")
    inline = definition("com.example.order", schema=referring(f"{base}/inline"), schemaformat=JS7)
    post_definition(su, "dg", "inline", inline)
    for verdict in check_everywhere(anon, "dg", "inline", event({"id": 5})):
        assert_unresolvable(verdict, f"{base}/inline")
    # a `:pointer` into a stored schema whose subschema refers out (its own `$ref`s resolve against the whole)
    make_group(su, "g")
    store_schema(su, "p", {"definitions": {"order": referring(f"{base}/pointer#/definitions/x")}})
    doc = by_url("com.example.pointed", "/schemaGroups/g/schemas/p:definitions/order")
    post_definition(su, "dg", "pointed", doc)
    verdict = post(anon, "/definitionGroups/dg/definitions/pointed/validate", event({"id": 5})).json()
    assert_unresolvable(verdict, f"{base}/pointer#/definitions/x")
    # a remote metaschema is not read either: the document is checked as draft-07
    store_schema(su, "meta", {"$schema": f"{base}/meta", "type": "object", "properties": {"id": {"type": "string"}}})
    post_definition(su, "dg", "meta", by_url("com.example.meta", "/schemaGroups/g/schemas/meta"))
    verdict = post(anon, "/definitionGroups/dg/definitions/meta/validate", event({"id": 5}, "com.example.meta"))
    assert verdict.json()["errors"] == [{"path": "data.id", "reason": "5 is not of type 'string'"}]
    assert hits == []


def test_references_inside_the_registry_still_resolve(su, anon, remote):
    """To a place in the document, and to a JSON Schema stored here: by registry path (either binding's words) or by
    this server's URL, the latest version or a given one. Anything else is unresolvable, as is a stored schema of
    another format."""
    base, hits = remote
    make_group(su, "g")
    sku = {"definitions": {"sku": {"type": "string", "pattern": "^SKU-"}}}
    store_schema(su, "common", sku)
    store_schema(su, "avro", {"type": "record", "name": "R", "fields": []}, fmt="Avro/1.11.0")
    refs = {
        "local": "#/definitions/sku",
        "path": "/schemaGroups/g/schemas/common#/definitions/sku",
        "version": "/schemaGroups/g/schemas/common/versions/1#/definitions/sku",
        "url": "http://testserver/schemaGroups/g/schemas/common#/definitions/sku",
        "xr10": "http://testserver/registry/schemagroups/g/schemas/common#/definitions/sku",
    }
    make_definition_group(su, "dg")
    for name, ref in refs.items():
        schema = {**sku, **referring(ref)}
        store_schema(su, name, schema)
        doc = by_url(f"com.example.{name}", f"/schemaGroups/g/schemas/{name}")
        post_definition(su, "dg", name, doc)
        good = check_everywhere(anon, "dg", name, event({"id": "SKU-1"}, f"com.example.{name}"))
        assert all(v["valid"] and v["errors"] == [] for v in good), (name, good)
        bad = check_everywhere(anon, "dg", name, event({"id": "X-1"}, f"com.example.{name}"))
        for verdict in bad:
            assert verdict["errors"] == [{"path": "data.id", "reason": "'X-1' does not match '^SKU-'"}], (name, verdict)
    unresolvable = {
        "missing": "/schemaGroups/g/schemas/nothing",
        "other-format": "/schemaGroups/g/schemas/avro",
        "other-host": f"{base}/schemaGroups/g/schemas/common",
        "relative": "common",
    }
    for name, ref in unresolvable.items():
        store_schema(su, name, referring(ref))
        post_definition(su, "dg", name, by_url(f"com.example.{name}", f"/schemaGroups/g/schemas/{name}"))
        for verdict in check_everywhere(anon, "dg", name, event({"id": 5}, f"com.example.{name}")):
            assert_unresolvable(verdict, ref)
    assert hits == []


def test_a_schema_the_caller_may_not_read_is_not_read_for_them(su, settings, django_user_model):
    """With public reads off, a definition the caller may read that names (by `schemaurl` or by `$ref`) a schema in a
    group hidden from them is checked as if that schema were not there."""
    settings.REGISTRY_PUBLIC_READ = False
    Team.objects.get_or_create(name="team-secret")
    make_group(su, "secret", owners={"team-secret": "owner"})
    store_schema(su, "s", {"type": "object", "properties": {"id": {"enum": [MARKER]}}}, gid="secret")
    make_group(su, "open")
    store_schema(su, "r", referring("/schemaGroups/secret/schemas/s#/properties/id"), gid="open")
    make_definition_group(su, "dg")
    post_definition(su, "dg", "direct", by_url("com.example.direct", "/schemaGroups/secret/schemas/s"))
    post_definition(su, "dg", "ref", by_url("com.example.ref", "/schemaGroups/open/schemas/r"))
    bob = token_client(django_user_model.objects.create_user("bob", password="pw"))
    direct = post(bob, "/definitionGroups/dg/definitions/direct/validate", event({"id": 5}, "com.example.direct"))
    assert direct.status_code == 200 and MARKER not in direct.content.decode(), direct.content
    assert direct.json()["valid"] is True
    assert direct.json()["notes"] == [
        "data not checked: schema /schemaGroups/secret/schemas/s does not exist in this registry"
    ]
    ref = post(bob, "/registry/messagegroups/dg/messages/ref/validate", event({"id": 5}, "com.example.ref"))
    assert ref.status_code == 200 and MARKER not in ref.content.decode(), ref.content
    assert_unresolvable(ref.json(), "/schemaGroups/secret/schemas/s#/properties/id")
    # the owners' team reads it: the same checks then apply the schema
    member = django_user_model.objects.create_user("carl", password="pw")
    member.groups.add(Team.objects.get(name="team-secret"))
    carl = token_client(member)
    for path, type_ in (
        ("/definitionGroups/dg/definitions/direct/validate", "direct"),
        ("/registry/messagegroups/dg/messages/ref/validate", "ref"),
    ):
        verdict = post(carl, path, event({"id": 5}, f"com.example.{type_}")).json()
        assert verdict["valid"] is False and MARKER in json.dumps(verdict["errors"]), verdict


def test_compatibility_diff_and_commands_fetch_nothing_and_name_the_reference(su, anon, remote, tmp_path):
    base, hits = remote
    make_group(su, "g")
    store_schema(su, "s", referring(f"{base}/v1"))
    candidate = json.dumps(referring(f"{base}/v2"))
    response = post(
        anon, "/schemaGroups/g/schemas/s/compatibility", candidate, "application/json", HTTP_REGISTRY_FORMAT=JS7
    )
    assert response.status_code == 200, response.content
    verdict = response.json()
    assert verdict["compatible"] is False, verdict
    assert [(i["path"], i["change"]) for i in verdict["incompatibilities"]] == [
        ("properties.id", f"$ref '{base}/v2' in the new schema, not followed")
    ]
    assert "nothing is fetched" in verdict["incompatibilities"][0]["reason"]
    same = post(
        anon,
        "/schemaGroups/g/schemas/s/compatibility",
        json.dumps(referring(f"{base}/v1")),
        "application/json",
        HTTP_REGISTRY_FORMAT=JS7,
    )
    assert same.json()["compatible"] is True, same.content  # the same reference names the same schema
    # a schema without a compatibility policy takes both versions; the diff names both references
    post_schema(
        su, "g", "d", json.dumps(referring(f"{base}/v1")).encode(), "application/json", fmt=JS7, compatibility="none"
    )
    response = post(su, "/schemaGroups/g/schemas/d", candidate, "application/json", HTTP_REGISTRY_FORMAT=JS7)
    assert response.status_code == 201, response.content
    diff = anon.get("/schemaGroups/g/schemas/d/versions/1/diff/2")
    assert diff.status_code == 200, diff.content
    change = next(c for c in diff.json() if c["path"] == "properties.id")
    assert change["old"] == {"$ref": f"{base}/v1"} and change["new"] == {"$ref": f"{base}/v2"}
    assert change["backward"] is False
    # the CI commands over the local store
    file = tmp_path / "candidate.json"
    file.write_text(json.dumps(referring(f"{base}/v3")))
    out = io.StringIO()
    with pytest.raises(SystemExit) as exit_code:
        call_command("check_schema", "g/s", str(file), "--format", JS7, stdout=out, stderr=io.StringIO())
    assert exit_code.value.code == 1 and f"{base}/v3" in out.getvalue(), out.getvalue()
    make_definition_group(su, "dg")
    post_definition(su, "dg", "d", by_url("com.example.order", "/schemaGroups/g/schemas/s"))
    messages = tmp_path / "events.jsonl"
    messages.write_text(json.dumps(event({"id": 5})) + "\n")
    out = io.StringIO()
    with pytest.raises(SystemExit) as exit_code:
        call_command("validate_messages", str(messages), stdout=out, stderr=io.StringIO())
    assert exit_code.value.code == 2 and f"{base}/v1" in out.getvalue() and MARKER not in out.getvalue()  # not run: 2
    assert hits == []


def test_confluent_checks_and_registrations_fetch_nothing(su, anon, remote):
    base, hits = remote
    first = json.dumps(referring(f"{base}/v1"))
    response = su.post("/confluent/subjects/js/versions", {"schema": first, "schemaType": "JSON"}, format="json")
    assert response.status_code == 200, response.content
    body = {"schema": json.dumps(referring(f"{base}/v2")), "schemaType": "JSON"}
    response = anon.post("/confluent/compatibility/subjects/js/versions/latest?verbose=true", body, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["is_compatible"] is False and f"{base}/v2" in json.dumps(response.json())
    assert MARKER not in response.content.decode()
    assert hits == []


def test_schema_writes_of_every_format_fetch_nothing(su, anon, remote):
    """JSON Schema (a remote `$schema` and `$ref`), Avro (a named type no reference brings), Protobuf (an import of
    a URL) and XSD (an import and an include by URL) through the 0.5 and 1.0 bindings and a document import; then
    the checks of a message against each."""
    base, hits = remote
    make_group(su, "g")
    store_schema(su, "json", {"$schema": f"{base}/meta", "$ref": f"{base}/x"})
    avro = {"type": "record", "name": "R", "fields": [{"name": "f", "type": "com.example.Remote"}]}
    before = snapshot()
    refused = su.generic(
        "POST",
        "/schemaGroups/g/schemas",
        json.dumps(avro),
        content_type="application/json",
        HTTP_REGISTRY_FORMAT="Avro/1.11.0",
        HTTP_REGISTRY_ID="avro",
    )
    assert refused.status_code == 400 and "com.example.Remote" in refused.content.decode(), refused.content
    assert snapshot() == before
    proto = f'syntax = "proto3";\nimport "{base}/remote.proto";\nmessage M {{ string id = 1; }}\n'.encode()
    store_schema(su, "proto", proto, fmt="Protobuf/3")
    xsd = (
        '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">'
        f'<xs:import namespace="urn:remote" schemaLocation="{base}/remote.xsd"/>'
        '<xs:element name="order" type="xs:string"/></xs:schema>'
    )
    store_schema(su, "xsd", xsd.encode(), fmt="XSD/1.1")
    before = snapshot()
    include = xsd.replace("<xs:element", f'<xs:include schemaLocation="{base}/include.xsd"/><xs:element')
    refused = su.generic(
        "POST", "/schemaGroups/g/schemas", include, content_type="text/xml", HTTP_REGISTRY_FORMAT="XSD/1.1"
    )
    assert refused.status_code == 400 and f"{base}/include.xsd" in refused.content.decode(), refused.content
    assert snapshot() == before
    # the 1.0 binding and a document import
    response = su.put("/registry/schemagroups/g/schemas/json10/versions/1", referring(f"{base}/x10"), format="json")
    assert response.status_code in (200, 201), response.content
    document = {
        "schemaGroups": {
            "imported": {
                "id": "imported",
                "schemas": {
                    "s": {
                        "id": "s",
                        "format": JS7,
                        "versions": {"1": {"id": "1", "schema": referring(f"{base}/imported")}},
                    }
                },
            }
        }
    }
    response = su.post("/", document, format="json")
    assert response.status_code == 200, response.content
    make_definition_group(su, "dg")
    for name, fmt, data in (
        ("json", JS7, {"id": 1}),
        ("proto", "Protobuf/3", base64.b64encode(b"\x0a\x01a").decode()),
        ("xsd", "XSD/1.1", "<order>x</order>"),
    ):
        url = f"/schemaGroups/g/schemas/{name}" + (":M" if name == "proto" else "")
        post_definition(su, "dg", name, by_url(f"com.example.{name}", url, fmt))
        message = event(data, f"com.example.{name}")
        if name != "json":
            message["datacontenttype"] = "application/xml" if name == "xsd" else "application/protobuf"
        response = post(anon, f"/definitionGroups/dg/definitions/{name}/validate", message)
        assert response.status_code == 200 and MARKER not in response.content.decode(), (name, response.content)
    assert hits == []


# --- the one fetch: an AsyncAPI import's remote `$ref`s, from the prefixes the operator lists -----------------------

TRAIT_NAME = "cloudevents-headers-kafka-binary.yaml"


@pytest.fixture
def trait_host():
    """A loopback server of the CloudEvents trait an AsyncAPI example refers to: `/traits/...` serves it,
    `/redirect/...` redirects there, `/big/...` sends 200,000 bytes, `/slow/...` a byte every 0.1 s; `(base, hits)`."""
    from tests.asyncapi.conftest import DOCUMENTS

    trait = (DOCUMENTS / "cloudevents" / TRAIT_NAME).read_bytes()
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            kind = self.path.split("/")[1]
            try:
                if kind == "redirect":
                    self.send_response(302)
                    self.send_header("Location", f"/traits/{TRAIT_NAME}")
                    self.end_headers()
                    return
                self.send_response(200)
                self.end_headers()
                if kind == "big":
                    self.wfile.write(b"#" * 200_000)
                elif kind == "slow":
                    for _ in range(50):
                        self.wfile.write(b"#")
                        self.wfile.flush()
                        time.sleep(0.1)
                else:
                    self.wfile.write(trait)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", hits
    server.shutdown()
    server.server_close()


def light_switch(url: str) -> bytes:
    """The CloudEvents specification's AsyncAPI example, its trait's `$ref` pointing at `url`."""
    from tests.asyncapi.conftest import DOCUMENTS

    original = (DOCUMENTS / "cloudevents" / "light-switch-events-binary-kafka.yaml").read_bytes()
    remote = b"https://raw.githubusercontent.com/cloudevents/spec/main/cloudevents/working-drafts/asyncapi-traits/"
    return original.replace(remote + TRAIT_NAME.encode(), url.encode())


def import_refused(client, url: str, status: int, mention: str) -> None:
    from tests.asyncapi.conftest import post_asyncapi

    before = snapshot()
    response = post_asyncapi(client, light_switch(url))
    assert response.status_code == status, response.content[:2000]
    assert mention in response.content.decode(), response.content[:2000]
    assert snapshot() == before


def test_asyncapi_remote_refs_are_matched_against_the_prefixes_as_parsed_urls(su, settings, trait_host):
    """A prefix is compared as a URL (scheme, host, port, path at a segment boundary), not as text: user info, a
    neighbouring path and percent-encoded dot segments were read as being under it."""
    base, hits = trait_host
    port = base.rsplit(":", 1)[1]
    settings.REGISTRY_ASYNCAPI_REMOTE_REFS = base  # no slash: any path of this host and port
    import_refused(su, f"{base}@localhost:{port}/traits/{TRAIT_NAME}", 400, "REGISTRY_ASYNCAPI_REMOTE_REFS")
    settings.REGISTRY_ASYNCAPI_REMOTE_REFS = f"{base}/traits"
    import_refused(su, f"{base}/traits-private/{TRAIT_NAME}", 400, "REGISTRY_ASYNCAPI_REMOTE_REFS")
    import_refused(su, f"{base}/traits/%2e%2e/private/{TRAIT_NAME}", 400, "REGISTRY_ASYNCAPI_REMOTE_REFS")
    import_refused(su, f"http://localhost:{port}/traits/{TRAIT_NAME}", 400, "REGISTRY_ASYNCAPI_REMOTE_REFS")
    assert hits == []
    from tests.asyncapi.conftest import post_asyncapi

    response = post_asyncapi(su, light_switch(f"{base}/traits/{TRAIT_NAME}"), query="?dryrun=true")
    assert response.status_code == 200, response.content[:2000]
    assert hits == [f"/traits/{TRAIT_NAME}"]


def test_asyncapi_remote_reads_follow_no_redirect_and_are_bounded(su, settings, trait_host, monkeypatch):
    base, hits = trait_host
    settings.REGISTRY_ASYNCAPI_REMOTE_REFS = f"{base}/"
    import_refused(su, f"{base}/redirect/{TRAIT_NAME}", 400, "answered 302: redirects are not followed")
    assert hits == [f"/redirect/{TRAIT_NAME}"]  # the target it names is not read
    settings.REGISTRY_MAX_BODY_BYTES = 100_000
    import_refused(su, f"{base}/big/{TRAIT_NAME}", 400, "is larger than 100000 bytes")
    monkeypatch.setattr("asyncapi.sources.REMOTE_TIMEOUT", 1.0)
    started = time.monotonic()
    import_refused(su, f"{base}/slow/{TRAIT_NAME}", 400, "was not read within 1 s")
    assert time.monotonic() - started < 3


def test_a_signed_in_reader_cannot_make_an_import_read_remote_refs(db, settings, trait_host, django_user_model):
    base, hits = trait_host
    settings.REGISTRY_ASYNCAPI_REMOTE_REFS = f"{base}/"
    reader = token_client(django_user_model.objects.create_user("reader", password="pw"))
    import_refused(reader, f"{base}/traits/{TRAIT_NAME}", 403, "needs the right to write")
    assert hits == []


def test_every_module_that_builds_json_schema_validators_uses_the_one_registry():
    """jsonschema's default registry and its RefResolver fetch remote references: every module of the project that
    imports jsonschema, jsonschema-rs or referencing takes its registry (or retriever) from
    catalog.validators.json_references, and none names the fetching ones."""
    import ast
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    listed = subprocess.run(["git", "ls-files", "*.py"], cwd=root, capture_output=True, text=True, check=True)
    libraries = {"jsonschema", "jsonschema_rs", "referencing"}
    offenders = []
    for relative in sorted(listed.stdout.split()):
        if relative.startswith("tests/") or relative == "catalog/validators/json_references.py":
            continue
        text = (root / relative).read_text(encoding="utf-8-sig")
        if "RefResolver" in text or "_REMOTE_WARNING_REGISTRY" in text:
            offenders.append(f"{relative}: names a fetching resolver")
        imported = set()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                imported.add(("." * node.level) + (node.module or ""))
        uses = {name.split(".")[0] for name in imported} & libraries
        one_registry = any(name.endswith("json_references") for name in imported)
        if uses and not one_registry:
            offenders.append(f"{relative}: imports {sorted(uses)} without catalog.validators.json_references")
    assert offenders == []
