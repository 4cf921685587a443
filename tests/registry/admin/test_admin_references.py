"""References and impact in the admin (docs/api-contract.md section 14) through Django's test client: the
"Referenced by" sections, deletes refused with their referrers (nothing written), "delete anyway", and bulk
deletes of a whole reference set."""

import pytest
from django.urls import reverse

from catalog.models import Definition, DefinitionGroup, Schema, SchemaGroup, SchemaVersion
from endpoints.models import Endpoint
from registry.models import Group, Resource, Version

from .governance_seed import seed

pytestmark = pytest.mark.django_db
PLACED_REF = "#/schemaGroups/Orders/schemas/Placed/versions/1:Order"


@pytest.fixture(autouse=True)
def seeded(db):
    seed()


def section(editor, url) -> str:
    html = editor.get(url).content.decode().replace("<wbr>", "")  # long paths may wrap after their separators
    assert "Referenced by" in html and ">Map</h" in html
    return html.split("Referenced by", 1)[1].split(">Map</h", 1)[0]  # up to the next section, the map


def counts():
    return Group.objects.count(), Resource.objects.count(), Version.objects.count()


def test_referenced_by_sections(editor):
    placed = Schema.objects.get(rid="Placed")
    html = section(editor, reverse("admin:catalog_schema_change", args=[placed.pk]))
    assert "(2)" in html.split("</h2>")[0]
    for did in ("OrderPlaced", "OrderAudited"):
        link = reverse("admin:catalog_definition_change", args=[Definition.objects.get(rid=did).pk])
        assert f"<a href='{link}'>/definitionGroups/Shop/definitions/{did}</a>" in html
    assert PLACED_REF in html and "OrderArchived" not in html  # another registry's URL is no reference here
    v1 = SchemaVersion.objects.get(resource=placed, vid="1")
    html = section(editor, reverse("admin:catalog_schemaversion_change", args=[v1.pk]))
    assert "OrderPlaced" in html and "OrderAudited" not in html  # the version path with its :Name suffix
    v2 = SchemaVersion.objects.get(resource=placed, vid="2")
    assert "Nothing in this registry references it" in section(
        editor, reverse("admin:catalog_schemaversion_change", args=[v2.pk])
    )
    group = DefinitionGroup.objects.get(gid="Shop")
    html = section(editor, reverse("admin:catalog_definitiongroup_change", args=[group.pk]))
    endpoint = Endpoint.objects.get(gid="shop.http")
    assert reverse("admin:endpoints_endpoint_change", args=[endpoint.pk]) in html and "definitionGroups" in html
    assert "OrderPlaced" in section(
        editor, reverse("admin:catalog_schemagroup_change", args=[SchemaGroup.objects.get(gid="Orders").pk])
    )


def test_refused_delete_lists_referrers_and_deletes_nothing(editor):
    placed = Schema.objects.get(rid="Placed")
    url = reverse("admin:catalog_schema_delete", args=[placed.pk])
    page = editor.get(url).content.decode()
    assert "delete-referrers" in page and "/definitionGroups/Shop/definitions/OrderPlaced" in page
    before = counts()
    response = editor.post(url, {"post": "yes"}, follow=True)
    assert "Not deleted" in response.content.decode() and "OrderAudited" in response.content.decode()
    assert counts() == before
    response = editor.post(url, {"post": "yes", "force": "on"})
    assert response.status_code == 302
    assert not Schema.objects.filter(rid="Placed").exists()
    assert Definition.objects.filter(rid="OrderPlaced").exists()  # the reference dangles


def test_unreferenced_delete_has_no_warning(editor):
    unused = Schema.objects.get(rid="Unused")
    url = reverse("admin:catalog_schema_delete", args=[unused.pk])
    assert "delete-referrers" not in editor.get(url).content.decode()
    assert editor.post(url, {"post": "yes"}).status_code == 302
    assert not Schema.objects.filter(rid="Unused").exists()


def test_bulk_delete_refused_then_whole_reference_set(editor):
    changelist = reverse("admin:catalog_definitiongroup_changelist")
    shop = DefinitionGroup.objects.get(gid="Shop")
    page = editor.post(changelist, {"action": "delete_selected", "_selected_action": [shop.pk]}).content.decode()
    assert "delete-referrers" in page and "/endpoints/shop.http" in page
    before = counts()
    response = editor.post(
        changelist, {"action": "delete_selected", "_selected_action": [shop.pk], "post": "yes"}, follow=True
    )
    assert "Nothing deleted" in response.content.decode() and counts() == before
    placed = Schema.objects.get(rid="Placed")
    schemas = reverse("admin:catalog_schema_changelist")
    response = editor.post(
        schemas, {"action": "delete_selected", "_selected_action": [placed.pk], "post": "yes"}, follow=True
    )
    assert "Nothing deleted" in response.content.decode()
    endpoints = reverse("admin:endpoints_endpoint_changelist")
    endpoint = Endpoint.objects.get(gid="shop.http")
    editor.post(endpoints, {"action": "delete_selected", "_selected_action": [endpoint.pk], "post": "yes"})
    assert not Endpoint.objects.exists()
    response = editor.post(
        changelist, {"action": "delete_selected", "_selected_action": [shop.pk], "post": "yes"}, follow=True
    )
    assert "Deleted 1" in response.content.decode() and not DefinitionGroup.objects.exists()


def test_bulk_delete_of_referrers_and_referees_together(editor):
    definitions = reverse("admin:catalog_definition_changelist")
    base = Definition.objects.get(rid="OrderPlaced")
    borrowed = Definition.objects.get(rid="OrderPlacedAgain")
    response = editor.post(
        definitions, {"action": "delete_selected", "_selected_action": [base.pk], "post": "yes"}, follow=True
    )
    assert "Nothing deleted" in response.content.decode() and "OrderPlacedAgain" in response.content.decode()
    page = editor.post(definitions, {"action": "delete_selected", "_selected_action": [base.pk, borrowed.pk]})
    assert "delete-referrers" not in page.content.decode()  # a reference inside the selection does not count
    response = editor.post(
        definitions,
        {"action": "delete_selected", "_selected_action": [base.pk, borrowed.pk], "post": "yes"},
        follow=True,
    )
    assert "Deleted 2" in response.content.decode()
    referrers = [d.pk for d in Definition.objects.filter(rid__in=["OrderAudited", "OrderArchived"])]
    response = editor.post(
        definitions, {"action": "delete_selected", "_selected_action": referrers, "post": "yes"}, follow=True
    )
    assert "Deleted 2" in response.content.decode()
    versions = reverse("admin:catalog_schemaversion_changelist")
    placed = Schema.objects.get(rid="Placed")
    v1 = SchemaVersion.objects.get(resource=placed, vid="1")
    response = editor.post(
        versions, {"action": "delete_selected", "_selected_action": [v1.pk], "post": "yes"}, follow=True
    )
    assert "Deleted 1" in response.content.decode()  # through the service: the latest stays
    assert list(placed.versions.values_list("vid", flat=True)) == ["2"]
