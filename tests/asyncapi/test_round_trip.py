"""AsyncAPI 3.1 and the round trip (issue 39, items 12 and 13): the AsyncAPI specification's own 2.6 and 3.1
examples import; an export is AsyncAPI 3.0 or 3.1 (`?version=`), valid against the official schema of that
version; what an import reads comes back from its export, and an export imported again into an empty registry
exports the same document; an import that changes nothing writes nothing (no epoch moves, no change event, no
audit row), also when the document is the registry's own export."""

from __future__ import annotations

import http.server
import io
import json
import threading
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command

from asyncapi.validators.specs import schema_errors
from registry.models import AuditRecord, Group, OutboxEvent, Resource, Version
from tests.corpus import documents
from tests.helpers import snapshot

from .conftest import DOCUMENTS, REAL, document, get_json, post_asyncapi

SPEC_31 = sorted(p.name for p in DOCUMENTS.glob("3.1-*.yml") if "adeo" not in p.name)
SOCIAL_MEDIA = [f"social-media-{v}/{service}" for v in ("2.6", "3.1") for service in (
    "backend", "comments-service", "frontend", "notification-service", "public-api"
)]  # fmt: skip
ADEO = DOCUMENTS / "adeo"
# where the Adeo example's remote `$ref`s point (the AsyncAPI website and a preview of it)
ADEO_REMOTE = (
    b"https://www.asyncapi.com/resources/casestudies/adeo/",
    b"https://deploy-preview-921--asyncapi-website.netlify.app/resources/casestudies/adeo/",
)


def valid(doc: dict, version: str = "3.0.0") -> dict:
    assert doc["asyncapi"] == version
    errors = schema_errors(doc, version)
    assert errors == [], errors
    return doc


def import_command(name: str) -> None:
    """A document of tests/asyncapi/documents through `manage.py import_asyncapi`, which reads the files its
    `$ref`s name beside it (the social media example's `../common/*.yaml`)."""
    path = DOCUMENTS / name
    call_command("import_asyncapi", str(path / "asyncapi.yaml" if path.is_dir() else path), stdout=io.StringIO())


def import_document(client, name: str, query: str = "") -> dict:
    if name.startswith("social-media"):
        import_command(name)
        return {}
    response = post_asyncapi(client, document(name), query=query)
    assert response.status_code == 200, response.content[:3000]
    return response.json()


def group_ids(client) -> list[str]:
    return list(get_json(client, "/registry/messagegroups"))


def export_groups(client, role: str = "producer", version: str = "3.0.0") -> dict:
    query = "&".join(f"messagegroup={gid}" for gid in group_ids(client))
    asked = "" if version == "3.0.0" else f"&version={version}"  # 3.0.0: the default
    return valid(get_json(client, f"/registry/asyncapi?{query}&role={role}{asked}"), version)


def empty_registry(client) -> None:
    for plural in ("endpoints", "definitionGroups", "schemaGroups"):
        response = client.delete(f"/{plural}?force=true")
        assert response.status_code == 200, response.content
    assert Group.objects.count() == 0


def counts() -> tuple[int, int, int]:
    return OutboxEvent.objects.count(), AuditRecord.objects.count(), Version.objects.count()


def epochs() -> list:
    return sorted(
        [("g", g.group_type, g.gid, g.epoch) for g in Group.objects.all()]
        + [("r", r.group.gid, r.rid, r.epoch) for r in Resource.objects.select_related("group")]
        + [("v", v.resource.rid, v.vid, v.epoch) for v in Version.objects.select_related("resource")]
    )


@pytest.fixture
def adeo_server(settings):
    """A local HTTP server with the Avro schemas of the Adeo example, the prefix of its remote `$ref`s listed
    in REGISTRY_ASYNCAPI_REMOTE_REFS; yields a function giving an Adeo document with its references there."""
    files = {f"/adeo/{p.name}": p.read_bytes() for p in ADEO.glob("*.avsc")}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = files.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.end_headers()
            if body is not None:
                self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/adeo/"
    settings.REGISTRY_ASYNCAPI_REMOTE_REFS = base

    def local(name: str) -> bytes:
        text = document(name)
        for remote in ADEO_REMOTE:
            text = text.replace(remote, base.encode())
        return text

    yield local
    server.shutdown()


# item 12: AsyncAPI 3.1 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", SPEC_31)
def test_the_specifications_3_1_examples_import(su, name):
    report = import_document(su, name)
    assert report["created"] and not report["updated"], report
    assert any(p.startswith("/messagegroups/") for p in report["created"])


def test_the_3_1_adeo_example_imports_with_its_remote_avro_schemas(su, adeo_server):
    response = post_asyncapi(su, adeo_server("3.1-adeo-kafka-request-reply.yml"), query="?prefix=adeo")
    assert response.status_code == 200, response.content[:3000]
    (vid,) = get_json(su, "/registry/schemagroups/adeo/schemas/CostingRequestPayload/versions")
    schema = get_json(su, f"/registry/schemagroups/adeo/schemas/CostingRequestPayload/versions/{vid}")
    assert schema == json.loads((ADEO / "CostingRequestPayload.avsc").read_bytes())


@pytest.mark.parametrize("name", ["social-media-3.1/backend", "social-media-3.1/frontend"])
def test_the_3_1_social_media_example_imports_with_its_common_files(db, name):
    import_command(name)
    assert Group.objects.filter(group_type="definitionGroups").exists()


def test_an_export_is_3_0_by_default_and_3_1_on_request(su):
    import_document(su, "3.1-streetlights-kafka.yml", "?prefix=k")
    paths = [
        "/registry/messagegroups/k.lightingMeasured/asyncapi",
        "/registry/endpoints/k.scram-connections.producer/asyncapi",
        "/registry/asyncapi?messagegroup=k.lightingMeasured&endpoint=k.scram-connections.consumer",
    ]
    for path in paths:
        join = "&" if "?" in path else "?"
        assert valid(get_json(su, path))["asyncapi"] == "3.0.0"
        assert valid(get_json(su, f"{path}{join}version=3.0.0"))["asyncapi"] == "3.0.0"
        as_31 = valid(get_json(su, f"{path}{join}version=3.1.0"), "3.1.0")
        response = su.get(f"{path}{join}version=3.1.0&format=yaml")
        assert yaml.safe_load(response.content) == as_31


@pytest.mark.parametrize("version", ["2.6.0", "3.2.0", "3.1", ""])
def test_an_export_in_a_version_it_cannot_write_is_a_400_naming_the_versions(su, version):
    import_document(su, "3.1-streetlights-mqtt.yml", "?prefix=s")
    for path in (
        "/registry/messagegroups/s.lightingMeasured/asyncapi",
        "/registry/endpoints/s.production.consumer/asyncapi",
        "/registry/asyncapi?messagegroup=s.lightingMeasured",
    ):
        join = "&" if "?" in path else "?"
        response = su.get(f"{path}{join}version={version}")
        assert response.status_code == 400, (path, response.content)
        body = response.json()
        assert body["type"].endswith("#bad_flag")
        assert "3.0.0" in body["detail"] and "3.1.0" in body["detail"] and repr(version) in body["detail"]


def test_a_3_1_export_round_trips(su):
    import_document(su, "3.1-streetlights-mqtt.yml")
    exported = export_groups(su, version="3.1.0")
    empty_registry(su)
    response = post_asyncapi(su, exported)
    assert response.status_code == 200, response.content[:3000]
    assert export_groups(su, version="3.1.0") == exported


# item 13: what a round trip lost or invented -------------------------------------------------------------------


def test_a_message_without_description_gets_none_from_its_exports_cloudevents_trait(su):
    group = {"envelope": "CloudEvents/1.0"}
    assert su.put("/registry/messagegroups/g", data=group, format="json").status_code == 201
    message = {"envelope": "CloudEvents/1.0", "envelopemetadata": {"type": {"value": "com.example.ping"}}}
    assert su.put("/registry/messagegroups/g/messages/ping", data=message, format="json").status_code == 201
    exported = valid(get_json(su, "/registry/messagegroups/g/asyncapi"))
    response = post_asyncapi(su, exported)
    assert response.status_code == 200, response.content
    assert response.json()["updated"] == []
    stored = get_json(su, "/registry/messagegroups/g/messages/ping")
    assert "description" not in stored, stored
    empty_registry(su)
    assert post_asyncapi(su, exported).status_code == 200
    assert "description" not in get_json(su, "/registry/messagegroups/g/messages/ping")


@pytest.mark.parametrize("name", ["3.0-streetlights-kafka.yml", "2.6-streetlights-mqtt.yml"])
def test_a_multi_group_export_keeps_each_endpoints_groups(su, name):
    """The producer's export of every group: the consumer side's group has no producer endpoint, which AsyncAPI
    cannot say but by listing the servers of every other channel; imported back, no endpoint gains a group."""
    import_document(su, name, "?prefix=p")
    endpoints = {
        eid: get_json(su, f"/registry/endpoints/{eid}")["messagegroups"] for eid in get_json(su, "/registry/endpoints")
    }
    for role in ("producer", "consumer"):
        exported = export_groups(su, role)
        response = post_asyncapi(su, exported)
        assert response.status_code == 200, response.content
        assert not [p for p in response.json()["updated"] if p.startswith("/endpoints/")], response.json()
        for eid, groups in endpoints.items():
            assert get_json(su, f"/registry/endpoints/{eid}")["messagegroups"] == groups, (role, eid)


def test_kafka_key_schemas_and_channel_bindings_are_kept(su, adeo_server):
    """The Adeo example (3.0): the costing response's Kafka key is an Avro record (a remote `$ref`), the costing
    request's channel a topic of 3 partitions and 3 replicas with its topic configuration."""
    response = post_asyncapi(su, adeo_server("3.0-adeo-kafka-request-reply.yml"), query="?prefix=adeo")
    assert response.status_code == 200, response.content[:3000]
    key = json.loads((ADEO / "CostingResponseKey.avsc").read_bytes())
    message = get_json(su, "/registry/messagegroups/adeo.costingResponse/messages/costingResponse")
    assert message["asyncapibindings"] == {"kafka": {"key": key}}
    group = get_json(su, "/registry/messagegroups/adeo.costingRequest")
    channel_binding = {
        "replicas": 3,
        "partitions": 3,
        "topicConfiguration": {"cleanup.policy": ["delete"], "retention.ms": 604800000},
    }
    assert group["asyncapibindings"] == {"kafka": channel_binding}
    exported = export_groups(su)
    request = next(c for c in exported["channels"].values() if c["x-xregistry-messagegroup"] == "adeo.costingRequest")
    assert request["bindings"]["kafka"] == channel_binding
    response_message = next(
        m for m in exported["components"]["messages"].values() if m["x-xregistry-message"] == "costingResponse"
    )
    assert response_message["bindings"]["kafka"]["key"] == key
    empty_registry(su)
    assert post_asyncapi(su, exported).status_code == 200
    assert get_json(su, "/registry/messagegroups/adeo.costingResponse/messages/costingResponse")[
        "asyncapibindings"
    ] == {"kafka": {"key": key}}
    assert get_json(su, "/registry/messagegroups/adeo.costingRequest")["asyncapibindings"] == {"kafka": channel_binding}
    assert export_groups(su) == exported


@pytest.mark.parametrize("name", ["2.6-slack-rtm.yml", "3.1-slack-rtm.yml"])
def test_every_message_of_slack_rtm_is_kept(su, name):
    """48 component messages, 47 of them on the channel: `memberLeftChannel` is in no channel (the specification
    says a component has no effect until referenced). The registry keeps it, in the group of the components no
    channel uses."""
    doc = yaml.safe_load(document(name))
    import_document(su, name, "?prefix=slack")
    stored = {mid for gid in group_ids(su) for mid in get_json(su, f"/registry/messagegroups/{gid}/messages")}
    assert len(stored) == len(doc["components"]["messages"]) == 48
    assert "memberLeftChannel" in get_json(su, "/registry/messagegroups/slack.components/messages")
    exported = export_groups(su)
    assert len(exported["components"]["messages"]) == 48


def test_importing_a_document_again_writes_nothing(su):
    name = "3.0-streetlights-kafka.yml"
    first = import_document(su, name)
    assert first["created"]
    before, state = counts(), epochs()
    again = import_document(su, name)
    assert again["created"] == again["updated"] == [] and sorted(again["unchanged"]) == sorted(first["created"])
    assert counts() == before and epochs() == state


@pytest.mark.parametrize("path", documents("rc4", "*.xreg.json"), ids=lambda p: p.name)
def test_importing_the_registrys_own_export_writes_nothing(su, settings, path):
    """An rc4 document imported through `/registry`, then its AsyncAPI export imported: the export describes
    what is stored, so nothing changes (the stored spelling of each message and schema is kept)."""
    settings.REGISTRY_DEFAULT_COMPATIBILITY = "none"
    response = su.post("/registry/", data=path.read_bytes(), content_type="application/json")
    assert response.status_code == 200, response.content[:2000]
    exported = export_groups(su)
    before, state, stored = counts(), epochs(), snapshot()
    for _ in range(2):
        response = post_asyncapi(su, exported)
        assert response.status_code == 200, response.content[:3000]
        report = response.json()
        assert report["created"] == report["updated"] == [], report
        assert counts() == before and epochs() == state and snapshot() == stored


# the round trip of every example ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [*REAL, *SOCIAL_MEDIA])
def test_every_example_exports_the_same_after_a_round_trip(su, name):
    """Import, export (every group, as producer and as consumer), import the export into an empty registry,
    export again: the same documents. The export imported into the registry it comes from changes nothing."""
    import_document(su, name)
    for role in ("producer", "consumer"):
        exported = export_groups(su, role)
        before, state = counts(), epochs()
        onto = post_asyncapi(su, exported)
        assert onto.status_code == 200, onto.content[:3000]
        assert onto.json()["created"] == onto.json()["updated"] == [], (role, onto.json())
        assert counts() == before and epochs() == state
        empty_registry(su)
        response = post_asyncapi(su, exported)
        assert response.status_code == 200, response.content[:3000]
        assert export_groups(su, role) == exported, role
        again = post_asyncapi(su, exported)
        assert again.json()["created"] == again.json()["updated"] == [], role
        empty_registry(su)
        import_document(su, name)


def test_the_adeo_examples_export_the_same_after_a_round_trip(su, adeo_server):
    for name in ("3.0-adeo-kafka-request-reply.yml", "3.1-adeo-kafka-request-reply.yml"):
        assert post_asyncapi(su, adeo_server(name)).status_code == 200
        exported = export_groups(su)
        empty_registry(su)
        assert post_asyncapi(su, exported).status_code == 200
        assert export_groups(su) == exported, name
        empty_registry(su)


def test_spec_examples_of_this_suite_are_every_one(db):
    """The copies are complete: every 2.6 and 3.1 example of the specification (documents/README.md)."""
    assert len([n for n in REAL if n.startswith("2.6-")]) == 16
    assert len(SPEC_31) + 1 == 19  # and the Adeo example, read with its remote schemas
    assert all((DOCUMENTS / name / "asyncapi.yaml").exists() for name in SOCIAL_MEDIA)
    assert Path(DOCUMENTS / "adeo").is_dir()
