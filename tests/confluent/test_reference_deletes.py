"""A Confluent reference (the version attribute `references`, docs/confluent.md "References") is a reference like
any other (docs/api-contract.md section 14): deleting the version it names, its schema or its group through the 0.5
binding, the 1.0 binding or the admin is 409 naming the referrer unless forced, nothing deleted; deleting referrer
and referenced together works; `?referencedby` and the admin's "Referenced by" list the referrer. /confluent's own
42206 and referencedby keep answering as before."""

import json

import pytest
from confluent_kafka.schema_registry import Schema, SchemaReference
from django.urls import reverse

from catalog.models import Schema as SchemaEntity
from catalog.models import SchemaGroup, SchemaVersion
from registry.models import Group, Resource, Version
from tests.confluent.test_errors import refused, state
from tests.helpers import put_json

pytestmark = pytest.mark.django_db(transaction=True)

ADDRESS = '{"type": "record", "name": "Address", "namespace": "acme", "fields": [{"name": "city", "type": "string"}]}'
ADDRESS_2 = (
    '{"type": "record", "name": "Address", "namespace": "acme", "fields": [{"name": "city", "type": "string"}, '
    '{"name": "zip", "type": "string", "default": ""}]}'
)
PERSON = (
    '{"type": "record", "name": "Person", "namespace": "acme", "fields": [{"name": "home", "type": "acme.Address"}]}'
)
REFERENCE = {"name": "acme.Address", "subject": "z-address", "version": 1}
# the referrer lives in another context (schema group), so that deleting the referenced schema's group does not
# delete it too
REFERRER = "/schemaGroups/shop/schemas/m-person/versions/1"
ENTRY = {REFERRER: {"attribute": "references", "reference": json.dumps(REFERENCE)}}
VERSION_05 = "/schemaGroups/confluent/schemas/z-address/versions/1"
TARGETS_05 = (VERSION_05, "/schemaGroups/confluent/schemas/z-address", "/schemaGroups/confluent")
TARGETS_10 = tuple(p.replace("/schemaGroups", "/registry/schemagroups") for p in TARGETS_05)


@pytest.fixture
def referenced(registry):
    """z-address versions 1 and 2 (default context), :.shop:m-person version 1 referencing z-address version 1,
    all through /confluent."""
    registry.register_schema("z-address", Schema(ADDRESS, "AVRO"))
    registry.register_schema("z-address", Schema(ADDRESS_2, "AVRO"))
    ref = SchemaReference(REFERENCE["name"], REFERENCE["subject"], REFERENCE["version"])
    return registry.register_schema(":.shop:m-person", Schema(PERSON, "AVRO", [ref]))


def referenced_by(core, path: str) -> dict:
    answer = core.get(path, params={"referencedby": ""})
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_referencedby_lists_the_confluent_referrer(referenced, core, registry):
    for path in TARGETS_05:
        assert referenced_by(core, path) == ENTRY, path
    assert referenced_by(core, "/schemaGroups/confluent/schemas/z-address/versions/2") == {}
    assert referenced_by(core, "/schemaGroups/shop") == {}
    # and /confluent's own answer is unchanged
    assert registry.get_referenced_by("z-address", 1) == [referenced]
    assert registry.get_referenced_by("z-address", 2) == []


@pytest.mark.parametrize("door", ["0.5", "1.0"])
def test_a_delete_of_what_is_referenced_is_refused(referenced, core, door):
    for path in TARGETS_05 if door == "0.5" else TARGETS_10:
        before = state()
        answer = core.delete(path)
        assert answer.status_code == 409, (path, answer.text)
        assert "m-person" in answer.text and "force" in answer.text, answer.text
        if door == "0.5":
            assert answer.json()["referencedby"] == ENTRY
        assert state() == before
    # the version nothing references goes
    path = "/schemaGroups/confluent/schemas/z-address/versions/2"
    answer = core.delete(path if door == "0.5" else path.replace("/schemaGroups", "/registry/schemagroups"))
    assert answer.status_code in (200, 204), answer.text
    assert list(Version.objects.filter(resource__rid="z-address").values_list("vid", flat=True)) == ["1"]


def test_bulk_deletes_are_refused_unless_they_take_the_referrer(referenced, core):
    before = state()
    for method_path, body in (
        ("/schemaGroups", [{"id": "confluent"}]),
        ("/schemaGroups/confluent/schemas", [{"id": "z-address"}]),
        ("/schemaGroups/confluent/schemas/z-address/versions", [{"version": "1"}]),
        ("/registry/schemagroups", {"confluent": {}}),
        ("/registry/schemagroups/confluent/schemas", {"z-address": {}}),
    ):
        answer = core.request("DELETE", method_path, json=body)
        assert answer.status_code == 409 and "m-person" in answer.text, (method_path, answer.text)
    assert state() == before
    # forced, a 1.0 collection delete goes past the reference
    answer = core.request(
        "DELETE", "/registry/schemagroups/confluent/schemas/z-address/versions?force=true", json={"1": {}}
    )
    assert answer.status_code == 204, answer.text
    assert list(Version.objects.filter(resource__rid="z-address").values_list("vid", flat=True)) == ["2"]
    answer = core.request("DELETE", "/registry/schemagroups", json={"confluent": {}, "shop": {}})
    assert answer.status_code in (200, 204), answer.text
    assert not Group.objects.exists() and not Version.objects.exists()


def test_referrer_and_referenced_deleted_together_through_0_5(referenced, core):
    before = state()
    assert core.request("DELETE", "/schemaGroups", json=[{"id": "confluent"}]).status_code == 409
    assert state() == before
    answer = core.request("DELETE", "/schemaGroups", json=[{"id": "shop"}, {"id": "confluent"}])
    assert answer.status_code == 200, answer.text
    assert not Group.objects.exists()


@pytest.mark.parametrize("door", ["0.5", "1.0"])
def test_force_deletes_and_the_reference_dangles(referenced, core, door):
    prefix = "" if door == "0.5" else "/registry"
    groups = "/schemaGroups" if door == "0.5" else "/schemagroups"
    before = state()
    assert core.delete(f"{prefix}{groups}/confluent/schemas/z-address").status_code == 409
    assert state() == before
    answer = core.delete(f"{prefix}{groups}/confluent/schemas/z-address", params={"force": "true"})
    assert answer.status_code in (200, 204), answer.text
    assert not Resource.objects.filter(rid="z-address").exists()
    assert Version.objects.filter(resource__rid="m-person").count() == 1  # the referrer stays
    # its dangling reference is refused when the version is written again (the Avro check reads what it names)
    before = state()
    answer = put_json(core, "/registry/schemagroups/shop/schemas/m-person/versions/1", PERSON)
    assert answer.status_code == 400 and "z-address" in answer.text, answer.text
    assert state() == before
    assert core.delete(f"{prefix}{groups}/confluent", params={"force": "true"}).status_code in (200, 204)


@pytest.mark.parametrize("door", ["0.5", "1.0"])
def test_a_version_forced_away(referenced, core, door):
    path = VERSION_05 if door == "0.5" else VERSION_05.replace("/schemaGroups", "/registry/schemagroups")
    before = state()
    assert core.delete(path).status_code == 409
    assert state() == before
    answer = core.delete(path, params={"force": "true"})
    assert answer.status_code in (200, 204), answer.text
    assert list(Version.objects.filter(resource__rid="z-address").values_list("vid", flat=True)) == ["2"]


def test_the_map_draws_the_reference(referenced, client):
    """The catalog map (GET /map.svg) draws the referrer's edge to the schema, labelled with the version alone (a
    Confluent reference has no URL `:Name` suffix)."""
    from tests.registry.admin.test_catalog_map import edges

    response = client.get("/map.svg", {"root": "/schemaGroups/confluent/schemas/z-address"})
    assert response.status_code == 200
    found = edges(response.content)
    assert found["/schemaGroups/shop/schemas/m-person->/schemaGroups/confluent/schemas/z-address"] == ["v1"], found


def test_the_admin_refuses_then_forces(referenced, client, writer):
    client.force_login(writer)
    z_address = SchemaEntity.objects.get(rid="z-address")
    version = SchemaVersion.objects.get(resource=z_address, vid="1")
    page = client.get(reverse("admin:catalog_schemaversion_change", args=[version.pk])).content.decode()
    assert REFERRER in page.replace("<wbr>", "")
    for url in (
        reverse("admin:catalog_schemaversion_delete", args=[version.pk]),
        reverse("admin:catalog_schema_delete", args=[z_address.pk]),
        reverse("admin:catalog_schemagroup_delete", args=[SchemaGroup.objects.get(gid="confluent").pk]),
    ):
        assert "delete-referrers" in client.get(url).content.decode(), url
        before = state()
        page = client.post(url, {"post": "yes"}, follow=True).content.decode()
        assert "Not deleted" in page and "m-person" in page, url
        assert state() == before
    url = reverse("admin:catalog_schema_delete", args=[z_address.pk])
    assert client.post(url, {"post": "yes", "force": "on"}).status_code == 302
    assert not Resource.objects.filter(rid="z-address").exists()
    assert Resource.objects.filter(rid="m-person").exists()


def test_the_admin_deletes_referrer_and_referenced_together(referenced, client, writer):
    client.force_login(writer)
    changelist = reverse("admin:catalog_schemagroup_changelist")
    confluent = SchemaGroup.objects.get(gid="confluent")
    before = state()
    page = client.post(
        changelist, {"action": "delete_selected", "_selected_action": [confluent.pk], "post": "yes"}, follow=True
    ).content.decode()
    assert "Nothing deleted" in page and state() == before
    both = [confluent.pk, SchemaGroup.objects.get(gid="shop").pk]
    page = client.post(
        changelist, {"action": "delete_selected", "_selected_action": both, "post": "yes"}, follow=True
    ).content.decode()
    assert "Deleted 2" in page and not Group.objects.exists()


def test_confluent_deletes_keep_their_own_rule(referenced, http, core):
    """/confluent refuses with 42206 first (its own code), and deletes the referrer, then the referenced. A
    soft-deleted referrer (still stored, readable by id) holds back the other doors' deletes as it holds back
    /confluent's."""
    before = state()
    refused(http.delete("/subjects/z-address/versions/1"), 422, 42206)
    refused(http.delete("/subjects/z-address"), 422, 42206)
    assert state() == before
    assert http.delete("/subjects/:.shop:m-person").status_code == 200
    refused(http.delete("/subjects/z-address/versions/1"), 422, 42206)
    before = state()
    assert core.delete("/schemaGroups/confluent/schemas/z-address").status_code == 409
    assert state() == before
    for subject in (":.shop:m-person", "z-address"):
        if subject == "z-address":
            assert http.delete(f"/subjects/{subject}").status_code == 200
        answer = http.delete(f"/subjects/{subject}", params={"permanent": "true"})
        assert answer.status_code == 200, answer.text
    assert not Resource.objects.exists()


def test_a_reference_names_the_version_by_its_confluent_number(registry, core):
    """x-address's version written through the 1.0 binding with the id `first` is Confluent version 1: a reference
    to version 1 holds back the delete of `first` (and not of `second`, version 2)."""
    for vid, text in (("first", ADDRESS), ("second", ADDRESS_2)):
        created = put_json(
            core,
            f"/registry/schemagroups/confluent/schemas/x-address/versions/{vid}$details",
            {"format": "Avro/1.11.0", "schema": json.loads(text)},
        )
        assert created.status_code == 201, created.text
    references = [{"name": "acme.Address", "subject": "x-address", "version": 1}]
    created = put_json(
        core,
        "/registry/schemagroups/shop/schemas/b-person/versions/1$details",
        {"format": "Avro/1.11.0", "references": references, "schema": json.loads(PERSON)},
    )
    assert created.status_code == 201, created.text
    assert referenced_by(core, "/schemaGroups/confluent/schemas/x-address/versions/first") == {
        "/schemaGroups/shop/schemas/b-person/versions/1": {
            "attribute": "references",
            "reference": json.dumps(references[0]),
        }
    }
    before = state()
    answer = core.delete("/registry/schemagroups/confluent/schemas/x-address/versions/first")
    assert answer.status_code == 409 and "b-person" in answer.text, answer.text
    assert state() == before
    assert referenced_by(core, "/schemaGroups/confluent/schemas/x-address/versions/second") == {}
