"""Endpoints hold messages (issue 39 item 9): rc4's endpoint model imports the message type
(`"ximportresources": ["/messagegroups/messages"]`), which `/registry/model` shows processed and never as the
directive; an endpoint's messages are the store's endpoint definitions (what the 0.5 binding reads and writes at
`/endpoints/E/definitions`), served and written at `/registry/endpoints/E/messages` through the services."""

import json

from registry.models import AuditRecord, OutboxEvent, Resource

from .conftest import post_json

ENDPOINT = {"usage": ["producer"], "envelope": "CloudEvents/1.0", "protocol": "HTTP"}
MESSAGE = {"envelope": "CloudEvents/1.0", "envelopemetadata": {"type": {"value": "com.example.a"}}}


def test_model_processes_ximportresources(writer):
    model = writer.get("/registry/model").json()["groups"]["endpoints"]
    assert "ximportresources" not in model
    messages = model["resources"]["messages"]
    assert messages["singular"] == "message" and messages["plural"] == "messages"
    assert messages["attributes"]["envelope"] == model_messages(writer)["attributes"]["envelope"]
    assert writer.get("/registry/modelsource").json()["groups"]["endpoints"]["ximportresources"] == [
        "/messagegroups/messages"
    ]


def model_messages(writer):
    return writer.get("/registry/model").json()["groups"]["messagegroups"]["resources"]["messages"]


def test_messages_written_through_05_are_read_at_registry_endpoints(writer):
    endpoint05 = {"usage": "producer", "format": "CloudEvents/1.0"}
    assert post_json(writer, "/endpoints/e1", endpoint05, "put").status_code in (200, 201)
    definition = {"format": "CloudEvents/1.0", "metadata": {"attributes": {"type": {"value": "com.example.a"}}}}
    assert post_json(writer, "/endpoints/e1/definitions/d1", definition, "put").status_code in (200, 201)

    endpoint = writer.get("/registry/endpoints/e1").json()
    assert endpoint["messagesurl"] == "http://testserver/registry/endpoints/e1/messages"
    assert endpoint["messagescount"] == 1
    listed = writer.get("/registry/endpoints/e1/messages")
    assert listed.status_code == 200 and set(listed.json()) == {"d1"}
    message = writer.get("/registry/endpoints/e1/messages/d1").json()
    assert message["xid"] == "/endpoints/e1/messages/d1" and message["messageid"] == "d1"
    assert message["envelope"] == "CloudEvents/1.0" and message["envelopemetadata"]["type"]["value"] == "com.example.a"
    assert writer.get("/registry/endpoints/e1/messages/d1/meta").json()["defaultversionid"] == "1"
    assert set(writer.get("/registry/endpoints/e1/messages/d1/versions").json()) == {"1"}
    assert writer.get("/registry/endpoints/e1/messages/d1/versions/1").json()["isdefault"] is True
    inlined = writer.get("/registry/endpoints/e1?inline=messages").json()
    assert set(inlined["messages"]) == {"d1"}


def test_endpoint_without_messages_shows_an_empty_map_under_inline(writer):
    assert post_json(writer, "/registry/endpoints/e1", ENDPOINT, "put").status_code == 201
    assert writer.get("/registry/endpoints/e1?inline=*").json()["messages"] == {}
    assert writer.get("/registry/endpoints?inline=*").json()["e1"]["messages"] == {}
    assert writer.get("/registry/endpoints/e1").json()["messagescount"] == 0
    assert writer.get("/registry/endpoints/e1/messages").json() == {}


def test_messages_written_through_10_go_through_the_services(writer):
    assert post_json(writer, "/registry/endpoints/e1", ENDPOINT, "put").status_code == 201
    events, audits = OutboxEvent.objects.count(), AuditRecord.objects.count()
    response = post_json(writer, "/registry/endpoints/e1/messages/m1", MESSAGE, "put")
    assert response.status_code == 201, response.content
    assert OutboxEvent.objects.count() > events and AuditRecord.objects.count() > audits
    definition = writer.get("/endpoints/e1/definitions/m1").json()
    assert definition["format"] == "CloudEvents/1.0"
    assert definition["metadata"] == {"attributes": {"type": {"value": "com.example.a"}}}

    # POST of a map of messages, and a whole endpoint with nested messages
    response = post_json(writer, "/registry/endpoints/e1/messages", {"m2": MESSAGE})
    assert response.status_code == 200, response.content
    body = {**ENDPOINT, "messages": {"m3": MESSAGE}}
    assert post_json(writer, "/registry/endpoints/e2", body, "put").status_code == 201
    assert set(writer.get("/endpoints/e1/definitions").json()) == {"m1", "m2"}
    assert set(writer.get("/endpoints/e2/definitions").json()) == {"m3"}

    # a new version, then the delete
    assert post_json(writer, "/registry/endpoints/e1/messages/m1/versions/2", MESSAGE, "put").status_code == 201
    assert writer.get("/registry/endpoints/e1/messages/m1/meta").json()["defaultversionid"] == "2"
    assert writer.delete("/registry/endpoints/e1/messages/m1").status_code == 204
    assert not Resource.objects.filter(group__gid="e1", rid="m1").exists()


def test_a_refused_message_writes_nothing(writer):
    assert post_json(writer, "/registry/endpoints/e1", ENDPOINT, "put").status_code == 201
    before = (Resource.objects.count(), OutboxEvent.objects.count(), AuditRecord.objects.count())
    bad = {"envelope": "CloudEvents/1.0", "envelopemetadata": {"type": {"value": "t", "required": False}}}
    response = post_json(writer, "/registry/endpoints/e1/messages/m1", bad, "put")
    assert response.status_code == 400, response.content
    assert "required" in json.dumps(response.json())
    assert (Resource.objects.count(), OutboxEvent.objects.count(), AuditRecord.objects.count()) == before
    response = post_json(writer, "/registry/endpoints/e1/messages", {"m1": MESSAGE, "m2": bad})
    assert response.status_code == 400
    assert (Resource.objects.count(), OutboxEvent.objects.count(), AuditRecord.objects.count()) == before


def test_endpoint_messages_export_and_import_again(writer):
    assert (
        post_json(writer, "/registry/endpoints/e1", {**ENDPOINT, "messages": {"m1": MESSAGE}}, "put").status_code == 201
    )
    before = writer.get("/registry/endpoints/e1/messages/m1").json()
    exported = writer.get("/registry/export").json()
    messages = exported["endpoints"]["e1"]["messages"]
    assert set(messages) == {"m1"} and "messagesurl" not in exported["endpoints"]["e1"]
    assert messages["m1"]["versions"]["1"]["envelopemetadata"]["type"]["value"] == "com.example.a"
    Resource.objects.all().delete()
    for group in list(exported["endpoints"]):
        writer.delete(f"/registry/endpoints/{group}")
    response = post_json(writer, "/registry/", exported)
    assert response.status_code == 200, response.content
    after = writer.get("/registry/endpoints/e1/messages/m1").json()
    server = ("epoch", "createdat", "modifiedat")
    assert {k: v for k, v in after.items() if k not in server} == {k: v for k, v in before.items() if k not in server}
    assert writer.get("/endpoints/e1/definitions/m1").json()["format"] == "CloudEvents/1.0"
