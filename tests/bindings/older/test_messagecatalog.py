"""The Message Catalog API binding (`/messagecatalog/...`, message-catalog-api.md section 4 and the OPTIONS
features document of the 2022 draft) over the same definition groups and definitions as `/definitionGroups`."""

import json
from urllib.parse import quote

import pytest

from registry.models import OutboxEvent
from tests.helpers import assert_problem, without_request_id

pytestmark = pytest.mark.django_db
MC = "/messagecatalog"
CE_MEDIA = "application/cloudevents-definition+json"  # any JSON media type is kept as sent


def definition(event_type="com.example.created", **extra) -> bytes:
    return json.dumps({"metadata": {"attributes": {"type": {"value": event_type}}}, **extra}).encode()


def post(client, path, body: bytes, content_type="application/json", **extra):
    return client.generic("POST", path, body, content_type=content_type, **extra)


def make_group(su, gid="events", fmt="CloudEvents/1.0", **attrs):
    response = su.put(f"{MC}/{gid}", {"format": fmt, **attrs}, format="json")
    assert response.status_code == 201, response.content
    return response


def test_features_document(anon, su):
    response = anon.options(MC)
    assert response.status_code == 200 and response["Content-Type"].startswith("application/json")
    features = response.json()
    assert "id" in features["filterattributes"] and features["pagination"] is True
    assert features["update"] is False  # for this (anonymous) user
    assert "GET" in response["Allow"] and "OPTIONS" in response["Allow"]
    assert su.options(MC).json()["update"] is True


def test_group_operations(su, anon):
    group = make_group(su, "events", description="events").json()
    assert group["id"] == "events" and group["format"] == "CloudEvents/1.0"
    assert group["createdtimeutc"].endswith("Z") and group["updatedtimeutc"].endswith("Z")
    make_group(su, "devices", fmt="MQTT/5.0")
    assert anon.get(MC).json() == ["devices", "events"]
    updated = su.put(f"{MC}/events", {"format": "CloudEvents/1.0", "description": "all events"}, format="json")
    assert updated.status_code == 200 and updated.json()["description"] == "all events"
    assert anon.get(f"{MC}/events").json()["description"] == "all events"
    # the core binding requires NAME/VERSION formats, also through this binding
    assert_problem(su.put(f"{MC}/bare", {"format": "CloudEvents"}, format="json"), 400)
    # a group's format is REQUIRED here, as in the seed (CONTRACT 18; a 1.0 message group may have no envelope)
    assert_problem(su.put(f"{MC}/none", {}, format="json"), 400, "format")
    assert su.delete(f"{MC}/devices").json()["id"] == "devices"
    assert_problem(anon.get(f"{MC}/devices"), 404)


def test_filtering_and_paging_as_advertised(su, anon):
    make_group(su, "events", description="customer events", name="Events")
    make_group(su, "devices", fmt="MQTT/5.0")
    for attr, value in (
        ("id", "ev*"),
        ("name", "Events"),
        ("description", "customer*"),
        ("format", "CloudEvents*"),
        ("epoch", "1"),
    ):
        assert "events" in anon.get(f"{MC}?filter={attr}={value}").json(), attr
    assert anon.get(f"{MC}?filter=format=MQTT*").json() == ["devices"]
    assert anon.get(f"{MC}?filter=format=MQTT*&filter=id=events").json() == []
    post(su, f"{MC}/events/messagedefinitions/A?description=first&name=Alpha", definition())
    post(su, f"{MC}/events/messagedefinitions/B?authority=urn:example:catalog", definition("com.example.b"))
    features = anon.options(MC).json()["filterattributes"]
    expectations = {
        "id": ("A", ["A"]),
        "name": ("Alpha", ["A"]),
        "description": ("first", ["A"]),
        "format": ("CloudEvents/1.0", ["A", "B"]),
        "authority": ("urn:*", ["B"]),
        "epoch": ("1", ["A", "B"]),
    }
    assert set(features) == set(expectations)
    for attr in features:
        value, ids = expectations[attr]
        assert anon.get(f"{MC}/events/messagedefinitions?filter={attr}={value}").json() == ids, attr
    for attr in features:  # and on the versions list
        value, ids = expectations[attr]
        expected = [1] if "B" in ids or attr == "id" else []
        value = "1" if attr == "id" else value
        assert anon.get(f"{MC}/events/messagedefinitions/B/versions?filter={attr}={value}").json() == expected, attr
    page = anon.get(f"{MC}/events/messagedefinitions?limit=1")
    assert page.json() == ["A"] and page["Link"].endswith("rel=next;count=2")
    next_url = page["Link"].split(">")[0].lstrip("<")
    assert anon.get(next_url).json() == ["B"]


def test_definition_versions(su, anon):
    make_group(su)
    created = post(su, f"{MC}/events/messagedefinitions/A", definition(), CE_MEDIA, HTTP_DESCRIPTION="a")
    assert created.status_code == 201, created.content
    assert created["Location"] == f"http://testserver{MC}/events/messagedefinitions/A/versions/1"
    assert created["format"] == "CloudEvents/1.0"  # filled in from the group: "REQUIRED to be returned"
    second = post(su, f"{MC}/events/messagedefinitions/A", definition("com.example.changed"), CE_MEDIA)
    assert second.status_code == 201 and second["version"] == "2" and second["description"] == "a"
    latest = anon.get(f"{MC}/events/messagedefinitions/A")
    assert latest["Content-Type"] == CE_MEDIA and latest["version"] == "2"
    doc = json.loads(latest.content)
    assert doc["id"] == "A" and doc["format"] == "CloudEvents/1.0"
    assert doc["metadata"]["attributes"]["type"]["value"] == "com.example.changed"
    # this store keeps only the latest version of a definition: the list shows the one held
    assert anon.get(f"{MC}/events/messagedefinitions/A/versions").json() == [2]
    assert_problem(anon.get(f"{MC}/events/messagedefinitions/A/versions/1"), 404)
    version = anon.get(f"{MC}/events/messagedefinitions/A/versions/2")
    assert version.content == latest.content and version["Content-Type"] == CE_MEDIA
    for path in ("/events/messagedefinitions/A", "/events/messagedefinitions/A/versions/2"):
        get, head = anon.get(MC + path), anon.head(MC + path)
        assert head.status_code == 200 and head.content == b"" and without_request_id(head) == without_request_id(get)
    assert anon.get(f"{MC}/events/messagedefinitions").json() == ["A"]


def test_post_to_the_collection(su, anon):
    make_group(su)
    first = post(su, f"{MC}/events/messagedefinitions", definition(id="Created"))
    assert first.status_code == 201 and first["Location"].endswith("/messagedefinitions/Created/versions/1")
    again = post(su, f"{MC}/events/messagedefinitions", definition("com.example.v2", id="Created"))
    assert again.status_code == 201 and again["version"] == "2"
    anonymous = post(su, f"{MC}/events/messagedefinitions", definition())
    assert anonymous.status_code == 201
    assert len(anon.get(f"{MC}/events/messagedefinitions").json()) == 2
    assert_problem(post(su, f"{MC}/events/messagedefinitions", b"[1]"), 400)
    assert_problem(post(su, f"{MC}/events/messagedefinitions", definition(id=7)), 400)


def test_lookup_by_version_uri(su, anon):
    make_group(su)
    a = post(su, f"{MC}/events/messagedefinitions/A", definition())
    assert a["uri"] == f"http://testserver{MC}/events/messagedefinitions/A/versions/1"
    assert a["id"] == "/events/messagedefinitions/A/versions/1" and a["authority"] == "http://testserver/messagecatalog"
    b = post(su, f"{MC}/events/messagedefinitions/B", definition(), HTTP_AUTHORITY="https://catalog.example.com")
    assert b["uri"] == "https://catalog.example.com/events/messagedefinitions/B/versions/1"
    for response in (a, b):
        found = anon.get(f"{MC}/messagedefinition?uri={quote(response['uri'])}")
        assert found.status_code == 200 and found.content == response.content
        head = anon.head(f"{MC}/messagedefinition?uri={quote(response['uri'])}")
        assert head.content == b"" and without_request_id(head) == without_request_id(found)
    assert_problem(
        anon.get(f"{MC}/messagedefinition?uri={quote('https://x.example/events/messagedefinitions/A/versions/1')}"),
        404,
    )
    assert_problem(anon.get(f"{MC}/messagedefinition?uri="), 400)
    # without ?uri the path is the group that happens to be called "messagedefinition"
    make_group(su, "messagedefinition")
    assert anon.get(f"{MC}/messagedefinition").json()["id"] == "messagedefinition"
    assert "messagedefinition" in anon.get(MC).json()
    assert su.delete(f"{MC}/messagedefinition").status_code == 200


def test_problems(su, anon):
    make_group(su)
    body = assert_problem(anon.get(f"{MC}/events/messagedefinitions/nope"), 404)
    assert "/messagecatalog/events/messagedefinitions/nope" in body["detail"]
    assert_problem(anon.get(f"{MC}/missing/messagedefinitions"), 404)
    assert_problem(post(su, f"{MC}/events/messagedefinitions/A", b"format: yaml", "text/plain"), 415)
    assert_problem(post(su, f"{MC}/events/messagedefinitions/A", b"{broken"), 400)
    assert_problem(post(su, f"{MC}/events/messagedefinitions/A", definition(format="MQTT/5.0")), 400)
    assert_problem(post(su, f"{MC}/events/messagedefinitions/A", definition(id="B")), 400)
    assert_problem(post(su, f"{MC}/events/messagedefinitions/A?format=MQTT/5.0", definition()), 400)
    assert_problem(post(anon, f"{MC}/events/messagedefinitions/A", definition()), 401)
    assert_problem(su.put(f"{MC}/Events", {"format": "CloudEvents/1.0"}, format="json"), 409)
    post(su, f"{MC}/events/messagedefinitions/A", definition())
    assert_problem(post(su, f"{MC}/events/messagedefinitions/A?epoch=3", definition()), 409)
    body = assert_problem(
        su.put(f"{MC}/events", {"format": "HTTP/1.1"}, format="json"), 409
    )  # a conflict with the stored definitions
    assert "format" in body["detail"]
    assert_problem(su.delete(f"{MC}/events/messagedefinitions/A/versions/1"), 400)  # the only version
    assert anon.get(f"{MC}/events/messagedefinitions/A/versions").json() == [1]


def test_deletes(su, anon):
    make_group(su)
    post(su, f"{MC}/events/messagedefinitions/A", definition())
    post(su, f"{MC}/events/messagedefinitions/B", definition())
    gone = su.delete(f"{MC}/events/messagedefinitions/A")
    assert gone.status_code == 200 and gone.json()["id"] == "A" and gone.json()["versions"] == [1]
    assert su.delete(f"{MC}/events/messagedefinitions").json() == ["B"]
    assert anon.get(f"{MC}/events/messagedefinitions").json() == []


def test_one_store_with_the_core_binding(su, anon):
    make_group(su, "events", description="from the catalog API")
    post(su, f"{MC}/events/messagedefinitions/A?description=alpha", definition(), CE_MEDIA)
    core = anon.get("/definitionGroups/events").json()
    assert core["description"] == "from the catalog API" and core["definitionsCount"] == 1
    meta = anon.get("/definitionGroups/events/definitions/A?meta").json()
    assert meta["format"] == "CloudEvents/1.0" and meta["description"] == "alpha" and meta["version"] == "1"
    assert anon.get("/definitionGroups/events/definitions/A")["Content-Type"] == CE_MEDIA
    # written through the core binding, read here
    su.post("/definitionGroups", {"id": "core", "format": "CloudEvents/1.0"}, format="json")
    body = json.dumps(
        {
            "id": "C",
            "description": "core",
            "format": "CloudEvents/1.0",
            "metadata": {"attributes": {"type": {"value": "com.example.c"}}},
        }
    )
    assert post(su, "/definitionGroups/core/definitions", body.encode()).status_code == 201
    assert anon.get(f"{MC}/core/messagedefinitions").json() == ["C"]
    got = anon.get(f"{MC}/core/messagedefinitions/C")
    assert json.loads(got.content)["metadata"]["attributes"]["type"]["value"] == "com.example.c"
    assert got["description"] == "core" and got["format"] == "CloudEvents/1.0" and got["version"] == "1"
    # definition groups are not schema groups: the other older binding does not list them
    assert anon.get("/schemaregistry/schemagroups").json() == []


def test_writes_emit_messagecatalog_change_events(su):
    make_group(su)
    post(su, f"{MC}/events/messagedefinitions/A", definition())
    post(su, f"{MC}/events/messagedefinitions/A", definition("com.example.v2"))
    events = list(OutboxEvent.objects.values_list("type", "subject"))
    updated = "io.cloudevents.messagecatalog.updated.v1"
    deleted = "io.cloudevents.messagecatalog.deleted.v1"
    assert events == [
        (updated, "/definitionGroups/events"),
        (updated, "/definitionGroups/events/definitions/A"),
        (updated, "/definitionGroups/events/definitions/A/versions/1"),
        (updated, "/definitionGroups/events/definitions/A/versions/2"),
        (deleted, "/definitionGroups/events/definitions/A/versions/1"),  # retention: only the latest is kept
    ]
    su.delete(f"{MC}/events")
    assert OutboxEvent.objects.last().type == deleted
