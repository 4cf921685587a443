"""The same message group exported as AsyncAPI by xrcg (`xrcg generate --language asyncapi`, the pinned xrcg of
tests/harness/xrcg.py reading this server's `/registry?inline=*` from a file: see `for_xrcg`) and by this server
(`/registry/messagegroups/G/asyncapi`) describes the same channels, operations, messages and payload schemas.

Both are normalized first: order does not count; a reference is replaced by what it names (xrcg writes Avro and
Protobuf schemas to files beside its document, this server writes them inline; both put JSON Schemas under
`components.schemas`); a schema format is compared by its family (xrcg writes Avro as version 1.9.0 whatever the
schema's version). Two things xrcg does not describe are left out, each for the messages concerned: the payload of
a schema kept elsewhere (a URI) and of a schema in another format than JSON Schema, Avro and Protobuf (smartoven's
XML Schema: xrcg's template has no branch for it and writes a `$ref` to a component it never writes). mqtt-sparkplugB is not compared: xrcg reads its external Protobuf schema
from GitHub to render it, and fails without the network. xrcg's channel address is
always the group's id; this server writes the topic the messages declare (or null): addresses are not compared.
"""

import json
from pathlib import Path

import pytest
import yaml

from tests.corpus import cases, documents
from tests.harness.xrcg import run_xrcg

from .conftest import document, get_json, post_asyncapi

# xrcg reads an exported file: what it writes does not depend on the database, the exports are tested on both
pytestmark = [pytest.mark.slow, pytest.mark.postgres_run]

# mqtt-sparkplugB: xrcg fetches its external Protobuf schema (GitHub) to render it and fails without the network
RC4 = cases(lambda: [p for p in documents("rc4", "*.xreg.json") if not p.name.startswith("mqtt-sparkplugB")])
ASYNCAPI = ["3.0-streetlights-kafka.yml", "2.6-streetlights-mqtt.yml", "3.0-rpc-server.yml"]


@pytest.fixture(scope="module")
def xrcg():
    from tests.harness.services import ServiceUnavailable, require_services
    from tests.harness.xrcg import ensure_xrcg

    try:
        return ensure_xrcg()
    except ServiceUnavailable as exc:
        if require_services():
            pytest.fail(f"REQUIRE_SERVICES=1 but {exc}")
        pytest.skip(str(exc))


def family(schema_format: str | None) -> str:
    text = (schema_format or "").lower()
    for name in ("avro", "protobuf", "xregistry"):
        if name in text:
            return name
    return "json"


def resolve(doc: dict, node, folder: Path | None):
    """A payload's schema: a `#/components/...` reference followed, a file reference read (xrcg's files)."""
    if isinstance(node, dict) and set(node) == {"$ref"}:
        ref = node["$ref"]
        if ref.startswith("#/"):
            target = doc
            for part in ref[2:].split("/"):
                target = target[part]
            return resolve(doc, target, folder)
        if folder is not None and (folder / ref).exists():
            text = (folder / ref).read_text()
            return json.loads(text) if ref.endswith(".avsc") else text.strip()
    if isinstance(node, str):
        return node.strip()
    return node


def normalized(doc: dict, folder: Path | None, skip_payload: set[str]) -> dict:
    def last(ref: str) -> str:
        return ref.rsplit("/", 1)[-1]

    channels = {key: sorted(channel.get("messages") or {}) for key, channel in doc["channels"].items()}
    operations = {
        key: (op["action"], last(op["channel"]["$ref"]), sorted(last(m["$ref"]) for m in op.get("messages") or []))
        for key, op in doc["operations"].items()
    }
    messages = {}
    for key, message in doc["components"]["messages"].items():
        payload = message.get("payload")
        if key in skip_payload or payload is None or payload == {"type": "object"}:  # xrcg: none
            messages[key] = None
            continue
        messages[key] = (family(payload.get("schemaFormat")), resolve(doc, payload.get("schema"), folder))
    return {"channels": channels, "operations": operations, "messages": messages}


def skipped_payloads(client, gid: str) -> set[str]:
    """Component keys of the messages whose payload xrcg does not describe (a schema kept elsewhere, XML Schema)."""
    ours = get_json(client, f"/registry/messagegroups/{gid}/asyncapi")
    out = set()
    for key, message in ours["components"]["messages"].items():
        payload = message.get("payload") or {}
        schema = payload.get("schema")
        external = isinstance(schema, dict) and str(schema.get("$ref", "")).startswith("http")
        if external or family(payload.get("schemaFormat")) == "xregistry":  # not JSON Schema, Avro, Protobuf
            out.add(key)
    return out


COLLECTIONS = ("endpoints", "messagegroups", "schemagroups", "messages", "schemas", "versions")


def for_xrcg(node):
    """The API view (`/registry?inline=*`) without the `<COLLECTION>url` and `<COLLECTION>count` of each inlined
    collection: xrcg 0.11 reads a message's attributes on the message, which the export (rc4's document view) leaves
    to its versions, and checks a file against rc4's document schema, which takes a schema's `versions` or its
    `versionsurl`, not both, as the API view shows them."""
    if not isinstance(node, dict):
        return node
    inlined = {name for name in COLLECTIONS if isinstance(node.get(name), dict)}
    return {
        key: for_xrcg(value)
        for key, value in node.items()
        if not (key.endswith("url") and key[:-3] in inlined or key.endswith("count") and key[:-5] in inlined)
    }


def compare_groups(client, tmp_path: Path):
    export = tmp_path / "export.json"
    export.write_text(json.dumps(for_xrcg(get_json(client, "/registry?inline=*"))))
    groups = list(get_json(client, "/registry/messagegroups"))
    assert groups
    for gid in groups:
        skip = skipped_payloads(client, gid)
        for role in ("producer", "consumer"):
            out = tmp_path / f"{gid}-{role}"
            result = run_xrcg(
                "generate",
                "--language",
                "asyncapi",
                "--style",
                role,
                "--projectname",
                "agreement",
                "--messagegroup",
                gid,
                "--definitions",
                str(export),
                "--output",
                str(out),
            )
            assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
            folder = out / "agreement"
            theirs = yaml.safe_load((folder / "agreement.yml").read_text())
            ours = get_json(client, f"/registry/messagegroups/{gid}/asyncapi?role={role}")
            assert normalized(ours, None, skip) == normalized(theirs, folder, skip), (gid, role)


@pytest.mark.corpus
@pytest.mark.parametrize("path", RC4, ids=[p.name for p in RC4])
def test_xrcg_and_this_server_describe_the_same_group(su, xrcg, settings, tmp_path, path):
    settings.REGISTRY_DEFAULT_COMPATIBILITY = "none"  # the rc4 documents make no compatibility statement (1.0: none)
    response = su.post("/registry/", data=path.read_bytes(), content_type="application/json")
    assert response.status_code == 200, response.content[:1000]
    compare_groups(su, tmp_path)


@pytest.mark.parametrize("name", ASYNCAPI)
def test_xrcg_agrees_on_groups_imported_from_asyncapi(su, xrcg, tmp_path, name):
    assert post_asyncapi(su, document(name)).status_code == 200
    compare_groups(su, tmp_path)
