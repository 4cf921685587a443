"""The Schema Registry API binding (`/schemaregistry/...`, schema-registry-api.md section 3) over the same
schema groups and schemas as the core binding's `/schemaGroups`."""

import json
from urllib.parse import quote

import pytest
from rest_framework.test import APIClient

from registry.models import OutboxEvent
from tests.helpers import assert_problem, without_request_id

pytestmark = pytest.mark.django_db
SR = "/schemaregistry/schemagroups"
AVRO_MEDIA = "application/vnd.apache.avro+json"
# deliberately odd whitespace: the bytes must come back exactly as sent
AVRO_1 = b'{"type": "record", "name": "Order",\n  "fields": [{"name": "id", "type": "string"}]}'
AVRO_2 = (
    b'{"type": "record", "name": "Order",\n  "fields": [{"name": "id", "type": "string"},'
    b' {"name": "n", "type": "int", "default": 0}]}'
)
PROTO = b'syntax = "proto3";\npackage ex;\n\nmessage Order {\n  string id = 1;\n}\n'


def post(client, path, body: bytes, content_type: str, **extra):
    return client.generic("POST", path, body, content_type=content_type, **extra)


def is_problem_405(response) -> str:
    assert_problem(response, 405)
    return response["Allow"]


def make_group(su, gid="orders", **attrs):
    response = su.put(f"{SR}/{gid}", attrs, format="json")
    assert response.status_code == 201, response.content
    return response


def test_group_operations(su, anon):
    response = make_group(su, "orders", format="Avro/1.11", description="orders")
    group = response.json()
    assert group["id"] == "orders" and group["format"] == "Avro/1.11" and group["description"] == "orders"
    assert group["createdtimeutc"].endswith("Z") and group["updatedtimeutc"].endswith("Z")
    assert response["Location"] == f"http://testserver{SR}/orders"
    make_group(su, "billing")
    updated = su.put(f"{SR}/orders", {**group, "description": "all orders"}, format="json")
    assert updated.status_code == 200 and updated.json()["description"] == "all orders"
    assert updated.json()["createdtimeutc"] == group["createdtimeutc"] and updated.json()["epoch"] == 2
    assert anon.get(SR).json() == ["billing", "orders"]
    got = anon.get(f"{SR}/orders")
    assert got["Content-Type"] == "application/json; charset=utf-8"
    assert {k: got.json()[k] for k in ("id", "format", "description")} == {
        "id": "orders",
        "format": "Avro/1.11",
        "description": "all orders",
    }
    assert anon.get(f"{SR}?limit=1")["Link"].endswith("rel=next;count=2")
    assert anon.get(f"{SR}?filter=description=all*").json() == ["orders"]
    deleted = su.delete(f"{SR}/billing")
    assert deleted.status_code == 200 and deleted.json()["id"] == "billing"
    assert_problem(anon.get(f"{SR}/billing"), 404)
    assert anon.get(SR).json() == ["orders"]


def test_group_errors(su, anon):
    make_group(su, "g")
    assert_problem(su.put(f"{SR}/g", {"id": "other"}, format="json"), 400)
    assert_problem(su.generic("PUT", f"{SR}/g", b"{not json", content_type="application/json"), 400)
    assert_problem(su.put(f"{SR}/G", {}, format="json"), 409)  # ids are unique irrespective of case
    assert_problem(su.put(f"{SR}/g?epoch=7", {}, format="json"), 409)
    assert_problem(su.put(f"{SR}/bad id", {}, format="json"), 400)
    assert_problem(su.put(f"{SR}/g", {"format": ""}, format="json"), 400)
    assert_problem(anon.get(f"{SR}?bogus=1"), 400)
    assert_problem(anon.put(f"{SR}/x", {}, format="json"), 401)
    assert_problem(su.delete(f"{SR}/missing"), 404)


def test_writes_need_model_permissions(django_user_model, anon):
    from django.contrib.auth.models import Permission

    user = django_user_model.objects.create_user("viewer", password="pw")
    client = APIClient()
    client.force_authenticate(user)
    assert_problem(client.put(f"{SR}/g", {}, format="json"), 403)
    user.user_permissions.add(*Permission.objects.filter(codename__in=["add_group", "change_group"]))
    user = django_user_model.objects.get(pk=user.pk)
    client.force_authenticate(user)
    assert client.put(f"{SR}/g", {}, format="json").status_code == 201
    assert_problem(post(client, f"{SR}/g/schemas/s?format=Avro", AVRO_1, AVRO_MEDIA), 403)


def test_schema_versions_keep_content_type_and_bytes(su, anon):
    make_group(su, "orders")
    created = post(su, f"{SR}/orders/schemas/Order?format=Avro/1.11&description=first", AVRO_1, AVRO_MEDIA)
    assert created.status_code == 201, created.content
    assert created["Location"] == f"http://testserver{SR}/orders/schemas/Order/versions/1"
    assert created["version"] == "1" and created["format"] == "Avro/1.11" and created.content == AVRO_1
    second = post(su, f"{SR}/orders/schemas/Order", AVRO_2, AVRO_MEDIA, HTTP_DESCRIPTION="second")
    assert second.status_code == 201 and second["version"] == "2"
    assert second["format"] == "Avro/1.11"  # inherited from the previous version

    latest = anon.get(f"{SR}/orders/schemas/Order")
    assert latest.status_code == 200 and latest.content == AVRO_2 and latest["Content-Type"] == AVRO_MEDIA
    assert latest["description"] == "second" and latest["version"] == "2"
    assert latest["Content-Location"] == f"http://testserver{SR}/orders/schemas/Order/versions/2"
    assert latest["createdtimeutc"].endswith("Z")
    first = anon.get(f"{SR}/orders/schemas/Order/versions/1")
    assert first.content == AVRO_1 and first["Content-Type"] == AVRO_MEDIA and first["description"] == "first"
    assert anon.get(f"{SR}/orders/schemas/Order/versions").json() == [1, 2]
    assert anon.get(f"{SR}/orders/schemas/Order/versions?limit=1").json() == [1]
    assert anon.get(f"{SR}/orders/schemas").json() == ["Order"]

    post(su, f"{SR}/orders/schemas/proto?format=Protobuf/3", PROTO, "text/plain")
    proto = anon.get(f"{SR}/orders/schemas/proto")
    assert proto.content == PROTO and proto["Content-Type"] == "text/plain" and proto["format"] == "Protobuf/3"


@pytest.mark.parametrize("path", ["/orders/schemas/Order", "/orders/schemas/Order/versions/1"])
def test_head_equals_get_without_body(su, anon, path):
    make_group(su, "orders")
    post(su, f"{SR}/orders/schemas/Order?format=Avro/1.11", AVRO_1, AVRO_MEDIA)
    get, head = anon.get(SR + path), anon.head(SR + path)
    assert head.status_code == get.status_code == 200 and head.content == b""
    assert without_request_id(head) == without_request_id(get)
    assert head["Content-Length"] == str(len(AVRO_1))
    uri = get["uri"]
    get, head = (
        anon.get(f"/schemaregistry/schema?uri={quote(uri)}"),
        anon.head(f"/schemaregistry/schema?uri={quote(uri)}"),
    )
    assert head.status_code == 200 and head.content == b"" and without_request_id(head) == without_request_id(get)


def test_group_format_rules(su, anon):
    make_group(su, "avro", format="Avro/1.11")
    assert post(su, f"{SR}/avro/schemas/a", AVRO_1, AVRO_MEDIA)["format"] == "Avro/1.11"  # the group's format
    assert post(su, f"{SR}/avro/schemas/b?format=avro/1.11", AVRO_1, AVRO_MEDIA).status_code == 201
    assert_problem(post(su, f"{SR}/avro/schemas/c?format=Protobuf/3", PROTO, "text/plain"), 400)
    body = assert_problem(
        su.put(f"{SR}/avro", {"format": "Protobuf/3"}, format="json"), 409
    )  # a conflict with the stored schemas
    assert "format" in body["detail"]
    make_group(su, "mixed")
    body = assert_problem(post(su, f"{SR}/mixed/schemas/x", AVRO_1, AVRO_MEDIA), 400)
    assert "format is required" in body["detail"]
    assert post(su, f"{SR}/mixed/schemas/x", AVRO_1, AVRO_MEDIA, HTTP_FORMAT="Avro/1.11").status_code == 201
    assert_problem(post(su, f"{SR}/mixed/schemas/x?format=Avro/1.11", AVRO_2, AVRO_MEDIA, HTTP_FORMAT="Avro/1.9"), 400)
    assert anon.get(f"{SR}/mixed/schemas/x")["format"] == "Avro/1.11"


def test_authority_and_version_uris(su, anon):
    make_group(su, "g", format="Avro/1.11")
    default = post(su, f"{SR}/g/schemas/plain", AVRO_1, AVRO_MEDIA)
    assert default["authority"] == "http://testserver/schemaregistry"
    assert default["id"] == "/schemagroups/g/schemas/plain/versions/1"
    assert default["uri"] == f"http://testserver{SR}/g/schemas/plain/versions/1"  # the getSchemaVersion URL
    central = post(su, f"{SR}/g/schemas/central?authority=https://schemas.example.com/", AVRO_1, AVRO_MEDIA)
    assert central["uri"] == "https://schemas.example.com/schemagroups/g/schemas/central/versions/1"
    urn = post(su, f"{SR}/g/schemas/urn", AVRO_1, AVRO_MEDIA, HTTP_AUTHORITY="urn:example:schemas")
    assert urn["uri"] == "urn:example:schemas:schemagroups/g/schemas/urn/versions/1"
    assert post(su, f"{SR}/g/schemas/urn", AVRO_2, AVRO_MEDIA)["authority"] == "urn:example:schemas"
    for response, body in ((default, AVRO_1), (central, AVRO_1), (urn, AVRO_1)):
        found = anon.get(f"/schemaregistry/schema?uri={quote(response['uri'])}")
        assert found.status_code == 200 and found.content == body and found["Content-Type"] == AVRO_MEDIA
        assert found["uri"] == response["uri"]
    # the path matches, the authority does not: another registry's schema
    assert_problem(
        anon.get(
            f"/schemaregistry/schema?uri={quote('https://elsewhere.example/schemagroups/g/schemas/plain/versions/1')}"
        ),
        404,
    )
    assert_problem(anon.get("/schemaregistry/schema?uri=urn:nothing"), 404)
    assert_problem(anon.get("/schemaregistry/schema"), 400)
    assert_problem(post(su, f"{SR}/g/schemas/bad?authority=not%20a%20uri", AVRO_1, AVRO_MEDIA), 400)
    assert_problem(post(su, f"{SR}/g/schemas/bad?id=42", AVRO_1, AVRO_MEDIA), 400)


def test_deletes(su, anon):
    make_group(su, "g", format="Avro/1.11")
    post(su, f"{SR}/g/schemas/s", AVRO_1, AVRO_MEDIA)
    post(su, f"{SR}/g/schemas/s", AVRO_2, AVRO_MEDIA)
    post(su, f"{SR}/g/schemas/t", AVRO_1, AVRO_MEDIA)
    assert_problem(su.delete(f"{SR}/g/schemas/s/versions/2?epoch=9"), 409)
    deleted = su.delete(f"{SR}/g/schemas/s/versions/2")
    assert deleted.status_code == 200 and deleted.json()["version"] == 2
    assert anon.get(f"{SR}/g/schemas/s/versions").json() == [1]
    assert anon.get(f"{SR}/g/schemas/s").content == AVRO_1  # the greatest remaining is the latest
    assert_problem(su.delete(f"{SR}/g/schemas/s/versions/1"), 400)  # the only version
    assert_problem(su.delete(f"{SR}/g/schemas/s/versions/2"), 404)
    gone = su.delete(f"{SR}/g/schemas/s")
    assert gone.status_code == 200 and gone.json()["id"] == "s" and gone.json()["versions"] == [1]
    assert_problem(anon.get(f"{SR}/g/schemas/s"), 404)
    all_deleted = su.delete(f"{SR}/g/schemas")
    assert all_deleted.status_code == 200 and all_deleted.json() == ["t"]
    assert anon.get(f"{SR}/g/schemas").json() == []


def test_problems(su, anon):
    make_group(su, "g", format="Avro/1.11")
    post(su, f"{SR}/g/schemas/s", AVRO_1, AVRO_MEDIA)
    body = assert_problem(anon.get(f"{SR}/nope/schemas/s"), 404)
    assert "/schemaregistry/schemagroups/nope" in body["detail"]  # this binding's paths, not the core's
    assert_problem(anon.get(f"{SR}/g/schemas/nope"), 404)
    assert_problem(anon.get(f"{SR}/g/schemas/nope/versions"), 404)
    assert_problem(anon.get(f"{SR}/g/schemas/s/versions/7"), 404)
    assert_problem(anon.get(f"{SR}/g/schemas/s/versions/one"), 404)
    assert_problem(post(su, f"{SR}/nope/schemas/s", AVRO_1, AVRO_MEDIA), 404)
    assert_problem(post(su, f"{SR}/g/schemas/s", b"", AVRO_MEDIA), 400)
    assert_problem(post(su, f"{SR}/g/schemas/s", b'{"type": "nonsense"}', AVRO_MEDIA), 400)
    incompatible = b'{"type": "record", "name": "Order", "fields": [{"name": "id", "type": "int"}]}'
    body = assert_problem(post(su, f"{SR}/g/schemas/s", incompatible, AVRO_MEDIA), 409)
    assert body["type"].endswith("incompatible-version")
    assert_problem(post(su, f"{SR}/g/schemas/s?epoch=5", AVRO_2, AVRO_MEDIA), 409)
    assert_problem(post(su, f"{SR}/g/schemas/s?version=9", AVRO_2, AVRO_MEDIA), 400)
    assert_problem(post(anon, f"{SR}/g/schemas/s", AVRO_2, AVRO_MEDIA), 401)
    assert "PUT" in is_problem_405(su.patch(f"{SR}/g", {}, format="json"))
    assert anon.get(f"{SR}/g/schemas/s/versions").json() == [1]  # nothing was written by the failures


def test_each_path_takes_its_own_methods_and_refuses_the_others(su):
    """A schema takes no PUT (a POST adds a version) and a version neither a PUT nor a POST: 405 naming the methods
    each path takes, and nothing written."""
    make_group(su, "g", format="Avro/1.11")
    assert post(su, f"{SR}/g/schemas/s", AVRO_1, AVRO_MEDIA).status_code == 201
    refusals = {
        f"{SR}/g/schemas/s": ("put", "GET, POST, DELETE, HEAD, OPTIONS"),
        f"{SR}/g/schemas/s/versions/1": ("put", "GET, DELETE, HEAD, OPTIONS"),
        f"{SR}/g/schemas/s/versions/2": ("post", "GET, DELETE, HEAD, OPTIONS"),
        f"{SR}/g": ("post", "GET, PUT, DELETE, HEAD, OPTIONS"),
    }
    for path, (method, allowed) in refusals.items():
        assert is_problem_405(su.generic(method.upper(), path, AVRO_2, content_type=AVRO_MEDIA)) == allowed, path
        assert su.options(path)["Allow"] == allowed
    assert su.get(f"{SR}/g/schemas/s/versions").json() == [1]


def test_written_here_read_through_the_core_binding(su, anon):
    make_group(su, "shared", description="one store")
    post(su, f"{SR}/shared/schemas/S?format=Avro/1.11&authority=urn:x", AVRO_1, AVRO_MEDIA)
    group = anon.get("/schemaGroups/shared").json()
    assert group["description"] == "one store" and group["schemasCount"] == 1
    core = anon.get("/schemaGroups/shared/schemas/S")
    assert core.content == AVRO_1 and core["Content-Type"] == AVRO_MEDIA
    assert core["Registry-format"] == "Avro/1.11" and core["Registry-version"] == "1"
    assert core["Registry-authority"] == "urn:x"


def test_written_through_the_core_binding_read_here(su, anon):
    su.post("/schemaGroups", {"id": "core", "description": "from core"}, format="json")
    post(su, "/schemaGroups/core/schemas", AVRO_1, AVRO_MEDIA, HTTP_REGISTRY_ID="S", HTTP_REGISTRY_FORMAT="Avro/1.11")
    post(su, "/schemaGroups/core/schemas/S", AVRO_2, "application/json")
    assert anon.get(SR).json() == ["core"]
    assert anon.get(f"{SR}/core").json()["description"] == "from core"
    latest = anon.get(f"{SR}/core/schemas/S")
    assert latest.content == AVRO_2 and latest["Content-Type"] == "application/json" and latest["version"] == "2"
    # a version id that is not an integer (only the core binding can give one) is not listed here
    post(su, "/schemaGroups/core/schemas/S", AVRO_2, AVRO_MEDIA, HTTP_REGISTRY_VERSION="2.1")
    assert anon.get(f"{SR}/core/schemas/S/versions").json() == [1, 2]
    newest = anon.get(f"{SR}/core/schemas/S")
    assert newest.status_code == 200 and "version" not in newest  # the latest is 2.1: no integer to show
    # server-assigned ids continue from the greatest integer
    assert post(su, f"{SR}/core/schemas/S", AVRO_2, AVRO_MEDIA)["version"] == "3"


def test_writes_emit_schemaregistry_change_events(su):
    make_group(su, "ev", format="Avro/1.11")
    post(su, f"{SR}/ev/schemas/s", AVRO_1, AVRO_MEDIA)
    post(su, f"{SR}/ev/schemas/s", AVRO_2, AVRO_MEDIA)
    events = list(OutboxEvent.objects.values_list("type", "subject"))
    assert events == [
        ("io.cloudevents.schemaregistry.updated.v1", "/schemaGroups/ev"),
        ("io.cloudevents.schemaregistry.updated.v1", "/schemaGroups/ev/schemas/s"),
        ("io.cloudevents.schemaregistry.updated.v1", "/schemaGroups/ev/schemas/s/versions/1"),
        ("io.cloudevents.schemaregistry.updated.v1", "/schemaGroups/ev/schemas/s/versions/2"),
    ]
    su.delete(f"{SR}/ev/schemas/s")
    assert OutboxEvent.objects.last().type == "io.cloudevents.schemaregistry.deleted.v1"
    assert json.loads(su.get(f"{SR}/ev/schemas").content) == []
