"""Issue 12: every way in writes through the same services, so the same change is refused by each door with
nothing written: the 0.5 binding, the older Schema Registry binding, a registry document (`POST /`), the
xRegistry 1.0 binding and the admin. (The Spark import's door is tested in tests/pipeline/test_spark_import.py: it
runs Spark.)

Two refusals: a new schema in a group synced from another registry (the origin guard), and a schema version
incompatible with the earlier ones under the group's compatibility level."""
import base64
import json

import pytest
from django.urls import reverse

from registry.documents.imports import import_document
from registry.models import Group
from registry.services import WriteContext
from tests.helpers import snapshot

pytestmark = pytest.mark.django_db
SOURCE = "https://other.example/registry"
AVRO_1 = {"type": "record", "name": "Order", "fields": [{"name": "id", "type": "string"}]}
# a field without a default: data written with version 1 cannot be read with it (backward incompatible)
AVRO_BAD = {"type": "record", "name": "Order", "fields": [{"name": "id", "type": "string"}, {"name": "n", "type": "int"}]}
AVRO_MEDIA = "application/json"


def post(client, path, body, content_type="application/json", **headers):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.generic("POST", path, data, content_type=content_type, headers=headers)


def put(client, path, body, content_type="application/json", **headers):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.generic("PUT", path, data, content_type=content_type, headers=headers)


def new_schema_doors(su, admin_client):
    """Each door's request adding schema `s` (Avro) to group `g`: (name, send) pairs."""
    doc = json.dumps(AVRO_1).encode()
    return {
        "0.5 binding": lambda: post(su, "/schemaGroups/g/schemas", doc, **{"Registry-id": "s",
                                                                           "Registry-format": "Avro/1.11"}),
        "schema registry binding": lambda: post(su, "/schemaregistry/schemagroups/g/schemas/s", doc,
                                                "application/vnd.apache.avro+json"),
        "registry document": lambda: post(su, "/", {"schemaGroups": {"g": {"schemas": {"s": {
            "format": "Avro/1.11", "versions": {"1": {"format": "Avro/1.11", "schema": AVRO_1}}}}}}}),
        "xRegistry 1.0": lambda: put(su, "/registry/schemagroups/g/schemas/s", doc,
                                     **{"xRegistry-format": "Avro/1.11"}),
        "admin": lambda: admin_client.post(reverse("admin:catalog_schema_add"), {
            "group": Group.objects.get(gid="g").pk, "rid": "s", "format": "Avro/1.11", "media_type": AVRO_MEDIA,
            "document": doc.decode()}),
    }


def refused(response) -> str:
    """The refusal's text: a problem document's detail, or the admin form's error list."""
    if response.status_code == 200 and "text/html" in response["Content-Type"]:
        html = response.content.decode()
        assert "errorlist" in html or "errornote" in html, "the admin page shows no error"
        return html
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:500])
    assert response["Content-Type"].startswith("application/problem+json")
    return json.dumps(response.json())


@pytest.mark.parametrize("door", ["0.5 binding", "schema registry binding", "registry document", "xRegistry 1.0",
                                  "admin"])
def test_a_synced_group_is_refused_by_every_door(su, admin_client, door):
    import_document(WriteContext(user="sync", origin=SOURCE), {"schemaGroups": {"g": {
        "description": "synced", "format": "Avro/1.11"}}})  # the older binding also needs the group's format
    before = snapshot()
    text = refused(new_schema_doors(su, admin_client)[door]())
    assert "is synced from https://other.example/registry" in text
    assert snapshot() == before


def incompatible_version_doors(su, admin_client):
    doc = json.dumps(AVRO_BAD).encode()
    return {
        "0.5 binding": lambda: post(su, "/schemaGroups/orders/schemas/Order", doc),
        "schema registry binding": lambda: post(su, "/schemaregistry/schemagroups/orders/schemas/Order", doc,
                                                "application/vnd.apache.avro+json"),
        "registry document": lambda: post(su, "/", {"schemaGroups": {"orders": {"schemas": {"Order": {
            "format": "Avro/1.11", "versions": {"2": {"format": "Avro/1.11", "schema": AVRO_BAD}}}}}}}),
        "xRegistry 1.0": lambda: post(su, "/registry/schemagroups/orders/schemas/Order", doc),
        # a 1.0 document without `meta` leaves the stored compatibility as it is (it once reset it to `none`)
        "xRegistry 1.0 document": lambda: post(su, "/registry/", {"schemagroups": {"orders": {"schemas": {"Order": {
            "versions": {"2": {"format": "Avro/1.11",
                               "schemabase64": base64.b64encode(doc).decode()}}}}}}}),
    }


@pytest.mark.parametrize("door", ["0.5 binding", "schema registry binding", "registry document", "xRegistry 1.0",
                                  "xRegistry 1.0 document"])
def test_an_incompatible_version_is_refused_by_every_door(su, admin_client, door):
    import_document(WriteContext(user="seed"), {"schemaGroups": {"orders": {"schemas": {"Order": {
        "format": "Avro/1.11", "versions": {"1": {"format": "Avro/1.11", "schema": AVRO_1}}}}}}})
    before = snapshot()
    text = refused(incompatible_version_doors(su, admin_client)[door]())
    assert "field 'n' added without a default" in text, text[:800]
    assert snapshot() == before


def stored_schema() -> tuple:
    """What a client sees of schema g/s after it came in: its versions, the latest version's epoch, document and
    format, and the change events written."""
    from registry.models import OutboxEvent, Resource

    resource = Resource.objects.select_related("latest").get(rid="s")
    latest = resource.latest
    fmt = latest.extensions.get("format") or resource.extensions.get("format")
    events = sorted(OutboxEvent.objects.filter(subject__startswith="/schemaGroups/g/schemas/s")
                    .values_list("type", "subject"))
    return (list(resource.versions.values_list("vid", flat=True)), latest.vid, latest.epoch,
            json.loads(bytes(latest.content)), fmt, events)


@pytest.mark.parametrize("door", ["0.5 binding", "schema registry binding", "registry document", "xRegistry 1.0",
                                  "admin"])
def test_the_same_accepted_change_gives_the_same_schema_by_every_door(su, admin_client, door):
    """A new Avro schema in an ordinary group: the same versions, epoch, document, format and change events,
    whichever door it came in by."""
    import_document(WriteContext(user="seed"), {"schemaGroups": {"g": {"format": "Avro/1.11"}}})
    response = new_schema_doors(su, admin_client)[door]()
    assert response.status_code in (200, 201, 302), (response.status_code, response.content[:500])
    assert stored_schema() == (["1"], "1", 1, AVRO_1, "Avro/1.11", [
        ("io.cloudevents.schemaregistry.updated.v1", "/schemaGroups/g/schemas/s"),
        ("io.cloudevents.schemaregistry.updated.v1", "/schemaGroups/g/schemas/s/versions/1")])
