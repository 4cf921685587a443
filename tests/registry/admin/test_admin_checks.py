"""The checks before shipping in the admin (issue 15 item 4), through Django's test client: a message validated
against a definition, a candidate schema version's compatibility dry run, the semantic diff on the compare page.
Every check writes nothing, and a user with only the view permission may run them."""

import json
import re
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from catalog.models import Definition, Schema
from registry.documents.formats import parse_document
from registry.documents.imports import import_document
from registry.services import WriteContext
from tests.helpers import snapshot
from tests.registry.admin.test_admin_views import make_schema

pytestmark = pytest.mark.django_db
DEMO = Path(__file__).resolve().parents[3] / "catalog" / "demo"
CUSTOMER_CREATED = {
    "specversion": "1.0",
    "type": "Contoso.CRM.Events.CustomerCreated",
    "id": "c-1",
    "source": "/crm/customers",
    "time": "2024-05-01T10:00:00Z",
    "data": {"customerId": "42", "name": "Ada"},
}
V2 = {"type": "object", "properties": {"id": {"type": "string"}, "note": {"type": "string"}}}
BREAKING = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}


@pytest.fixture
def viewer(django_user_model):
    """A staff user with only the view permission of definitions and schemas."""
    user = django_user_model.objects.create_user("viewer", "v@example.com", "pw", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(content_type__app_label="catalog", codename__in=["view_definition", "view_schema"])
    )
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def crm(db):
    import_document(
        WriteContext(user="demo"), parse_document((DEMO / "contoso-crm.cereg").read_bytes(), yaml_format=False)
    )
    return Definition.objects.get(rid="Contoso.CRM.Events.CustomerCreated")


def validate(client, definition, message, kind=""):
    text = message if isinstance(message, str) else json.dumps(message)
    return client.post(
        reverse("admin:catalog_definition_validate", args=[definition.pk]), {"kind": kind, "message": text}
    )


def check(client, schema, document, fmt=""):
    return client.post(
        reverse("admin:catalog_schema_check", args=[schema.pk]),
        {"media_type": "application/json", "format": fmt, "document": json.dumps(document)},
    )


def test_definition_page_links_to_the_validation_page(editor, crm):
    page = editor.get(reverse("admin:catalog_definition_change", args=[crm.pk])).content.decode()
    url = reverse("admin:catalog_definition_validate", args=[crm.pk])
    assert "Validate a message" in page and url in page
    response = editor.get(url)
    assert response.status_code == 200 and 'name="message"' in response.content.decode()
    assert "message-verdict" not in response.content.decode()


def test_valid_and_invalid_messages_show_the_verdict_and_write_nothing(editor, crm):
    before = snapshot()
    response = validate(editor, crm, CUSTOMER_CREATED)
    page = response.content.decode()
    assert response.status_code == 200
    assert "<span class='verdict-ok'>valid</span>" in page and "message-errors" not in page
    bad = {**CUSTOMER_CREATED, "source": "/crm/orders", "data": {"customerId": 42, "name": "Ada"}}
    page = validate(editor, crm, bad, kind="application/cloudevents+json").content.decode()
    assert "<span class='verdict-bad'>invalid</span>" in page and "message-errors" in page
    errors = re.search(r"<table id='message-errors'>.*?</table>", page, re.S).group(0)
    assert "<code>metadata.source</code>" in errors and "<code>data.customerId</code>" in errors
    envelope = {
        "headers": {
            "ce-specversion": "1.0",
            "ce-type": "Contoso.CRM.Events.CustomerCreated",
            "ce-id": "1",
            "ce-source": "/crm/customers",
            "ce-time": "2024-05-01T10:00:00Z",
            "content-type": "application/json",
        },
        "body": {"customerId": "42", "name": "Ada"},
    }
    page = validate(editor, crm, envelope, kind="application/json").content.decode()
    assert "<span class='verdict-ok'>valid</span>" in page, page
    page = validate(editor, crm, '{"specversion": ').content.decode()
    assert "not valid JSON" in page and "message-verdict" not in page
    page = validate(editor, crm, "[1]").content.decode()
    assert "must be a JSON object" in page and "message-verdict" not in page
    assert snapshot() == before


def test_schema_page_links_to_the_candidate_check(editor):
    schema = make_schema(editor)
    page = editor.get(reverse("admin:catalog_schema_change", args=[schema.pk])).content.decode()
    url = reverse("admin:catalog_schema_check", args=[schema.pk])
    assert "Check a candidate version" in page and url in page
    response = editor.get(url)
    assert response.status_code == 200 and 'name="document"' in response.content.decode()
    assert "&quot;properties&quot;" in response.content.decode()  # starts from the latest version


def test_candidate_check_shows_the_dry_run_verdict_and_saves_nothing(editor):
    schema = make_schema(editor)
    before = snapshot()
    page = check(editor, schema, V2).content.decode()
    assert "<span class='verdict-ok'>compatible</span> at level <strong>backward_transitive</strong>" in page
    assert "compared with version(s): 1" in page and "id='incompatibilities'" not in page
    page = check(editor, schema, BREAKING).content.decode()
    assert "<span class='verdict-bad'>incompatible</span>" in page
    table = re.search(r"<table id='incompatibilities'>.*?</table>", page, re.S).group(0)
    assert "<code>properties.id</code>" in table and "<td>1</td>" in table  # the version it breaks
    page = check(editor, schema, {"type": 12}).content.decode()  # not a valid JSON Schema: the POST's 400
    assert "errorlist" in page and "compatibility-verdict" not in page
    page = check(editor, schema, V2, fmt="Avro/1.11").content.decode()  # the candidate read as Avro
    assert "errorlist" in page and "compatibility-verdict" not in page
    assert snapshot() == before
    assert Schema.objects.get(pk=schema.pk).latest.vid == "1"


def test_viewer_may_run_the_checks(viewer, editor, crm):
    schema = make_schema(editor)
    before = snapshot()
    for url in (
        reverse("admin:catalog_definition_validate", args=[crm.pk]),
        reverse("admin:catalog_schema_check", args=[schema.pk]),
    ):
        response = viewer.get(url)
        assert response.status_code == 200 and 'type="submit"' in response.content.decode()
    page = validate(viewer, crm, {**CUSTOMER_CREATED, "id": None}).content.decode()
    assert "verdict-bad'>invalid" in page and "<code>metadata.id</code>" in page
    page = check(viewer, schema, BREAKING).content.decode()
    assert "verdict-bad'>incompatible" in page
    assert snapshot() == before


def test_checks_need_the_view_permission(crm, django_user_model):
    user = django_user_model.objects.create_user("nobody", "n@example.com", "pw", is_staff=True)
    client = Client()
    client.force_login(user)
    assert client.get(reverse("admin:catalog_definition_validate", args=[crm.pk])).status_code == 403
    assert validate(client, crm, CUSTOMER_CREATED).status_code == 403


def test_posts_are_csrf_protected(crm, django_user_model):
    client = Client(enforce_csrf_checks=True)
    client.force_login(django_user_model.objects.create_superuser("gov", "g@example.com", "pw"))
    url = reverse("admin:catalog_definition_validate", args=[crm.pk])
    assert client.post(url, {"message": json.dumps(CUSTOMER_CREATED)}).status_code == 403
    page = client.get(url).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    response = client.post(url, {"message": json.dumps(CUSTOMER_CREATED), "csrfmiddlewaretoken": token})
    assert response.status_code == 200 and "verdict-ok'>valid" in response.content.decode()


def test_compare_page_shows_the_semantic_diff(editor):
    schema = make_schema(editor)
    new_version = reverse("admin:catalog_schema_newversion", args=[schema.pk])
    assert editor.post(new_version, {"media_type": "application/json", "document": json.dumps(V2)}).status_code == 302
    page = editor.get(reverse("admin:catalog_schema_compare", args=[schema.pk]) + "?a=1&b=2").content.decode()
    table = re.search(r"<table id='semantic-diff'>.*?</table>", page, re.S).group(0)
    for header in ("path", "change", "old", "new", "backward", "forward"):
        assert f"<th>{header}</th>" in table
    assert "<code>properties.note</code>" in table and "field-added" in table
    assert "verdict-ok'>yes" in table
    page = editor.get(reverse("admin:catalog_schema_compare", args=[schema.pk]) + "?a=2&b=1").content.decode()
    table = re.search(r"<table id='semantic-diff'>.*?</table>", page, re.S).group(0)
    assert "field-removed" in table and "diff_sub" in page  # the side-by-side documents stay below


def xsd(element: str) -> str:
    return (
        f'<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">\n  <xs:element name="{element}" '
        'type="xs:string"/>\n</xs:schema>\n'
    )


def test_compare_page_shows_a_line_diff_for_other_formats(editor):
    make_schema(editor)
    response = editor.post(
        reverse("admin:catalog_schema_add"),
        {
            "group": Schema.objects.get(rid="Placed").group_id,
            "rid": "PlacedXml",
            "format": "XSD/1.1",
            "media_type": "application/xml",
            "document": xsd("order"),
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    schema = Schema.objects.get(rid="PlacedXml")
    new_version = reverse("admin:catalog_schema_newversion", args=[schema.pk])
    response = editor.post(new_version, {"media_type": "application/xml", "document": xsd("purchase")})
    assert response.status_code == 302, response.content.decode()[:2000]
    page = editor.get(reverse("admin:catalog_schema_compare", args=[schema.pk]) + "?a=1&b=2").content.decode()
    diff = re.search(r"<pre id='line-diff'>.*?</pre>", page, re.S).group(0)
    assert "+++ /schemaGroups/orders/schemas/PlacedXml/versions/2" in diff
    assert "-  &lt;xs:element name=&quot;order&quot;" in diff and "semantic-diff" not in page


def test_notes_are_shown(editor):
    from registry import services
    from registry.services import EntityAddress, VersionInput

    ctx = WriteContext(user="t")
    services.create_group(
        ctx=ctx, address=EntityAddress("definitionGroups"), data={"id": "ext", "format": "CloudEvents/1.0"}
    )
    doc = {
        "format": "CloudEvents/1.0",
        "metadata": {"attributes": {"type": {"value": "x.y"}}},
        "schemaformat": "JsonSchema/draft-07",
        "schemaurl": "https://schemas.example.com/x.json",
    }
    services.create_resource(
        ctx=ctx,
        address=EntityAddress("definitionGroups", "ext", "definitions", "d"),
        data=VersionInput(document=json.dumps(doc).encode(), media_type="application/json"),
    )
    definition = Definition.objects.get(rid="d")
    event = {"specversion": "1.0", "type": "x.y", "id": "1", "source": "/s", "data": {"anything": 1}}
    page = validate(editor, definition, event).content.decode()
    assert "verdict-ok'>valid" in page and "id='message-notes'" in page
    assert "https://schemas.example.com/x.json is outside this registry" in page


AVRO_V1 = {"type": "record", "name": "Order", "fields": [{"name": "id", "type": "string"}]}
AVRO_V2 = {
    "type": "record",
    "name": "Order",
    "fields": [{"name": "id", "type": "string"}, {"name": "qty", "type": "int"}],
}


def test_compare_page_shows_the_avro_semantic_diff(editor):
    make_schema(editor)
    response = editor.post(
        reverse("admin:catalog_schema_add"),
        {
            "group": Schema.objects.get(rid="Placed").group_id,
            "rid": "OrderAvro",
            "format": "Avro/1.11",
            "media_type": "application/json",
            "document": json.dumps(AVRO_V1),
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    schema = Schema.objects.get(rid="OrderAvro")
    page = check(editor, schema, AVRO_V2).content.decode()  # a field without a default: old data lacks it
    assert "verdict-bad'>incompatible" in page and "qty" in page
    editor.post(
        reverse("admin:catalog_schema_change", args=[schema.pk]),
        {"tags": "{}", "format": "Avro/1.11", "compatibility": "none", "epoch": 1},
    )
    new_version = reverse("admin:catalog_schema_newversion", args=[schema.pk])
    response = editor.post(new_version, {"media_type": "application/json", "document": json.dumps(AVRO_V2)})
    assert response.status_code == 302, response.content.decode()[:2000]
    page = editor.get(reverse("admin:catalog_schema_compare", args=[schema.pk]) + "?a=1&b=2").content.decode()
    table = re.search(r"<table id='semantic-diff'>.*?</table>", page, re.S).group(0)
    assert "<code>Order.fields.qty</code>" in table and "field-added" in table
    assert "verdict-bad'>no" in table and "verdict-ok'>yes" in table  # backward broken, forward fine
