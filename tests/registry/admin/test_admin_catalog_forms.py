"""Issue 26, the catalog's forms in the admin over HTTP: a definition group's Format is a field of its own (not a
key to type into the JSON box); the "Validate a message" form starts from a skeleton built from the definition
(valid as it is for every demo definition whose schema is not XSD); the compatibility check names every
version a candidate breaks."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from catalog.models import Definition, DefinitionGroup
from registry.models import Group
from tests.helpers import snapshot
from tests.registry.admin.test_admin_views import make_schema

pytestmark = pytest.mark.django_db


def textarea(page: str, name: str) -> str:
    found = re.search(rf'<textarea name="{name}"[^>]*>(.*?)</textarea>', page, re.S)
    return html.unescape(found.group(1)).lstrip("\n") if found else ""


def test_a_definition_group_has_a_format_field(editor):
    add = reverse("admin:catalog_definitiongroup_add")
    page = editor.get(add).content.decode()
    assert 'name="format"' in page and "<option value='CloudEvents/1.0'>" in page  # a field, with suggestions
    before = snapshot()
    refused = editor.post(add, {"gid": "orders", "format": "", "tags": "{}", "attributes": "{}"}).content.decode()
    assert "format is required" in refused
    refused = editor.post(add, {"gid": "orders", "format": "nope", "tags": "{}", "attributes": "{}"})
    assert "NAME/VERSION" in refused.content.decode()
    assert snapshot() == before
    response = editor.post(add, {"gid": "orders", "format": "CloudEvents/1.0", "tags": "{}", "attributes": "{}"})
    assert response.status_code == 302, response.content.decode()[:2000]
    group = DefinitionGroup.objects.get(gid="orders")
    assert group.extensions == {"format": "CloudEvents/1.0"}
    change = reverse("admin:catalog_definitiongroup_change", args=[group.pk])
    page = editor.get(change).content.decode()
    assert re.search(r'name="format"[^>]*value="CloudEvents/1.0"', page)
    assert "format" not in textarea(page, "attributes")  # shown once, in its field
    form = {"gid": "orders", "format": "MQTT/5.0", "tags": "{}", "attributes": '{"team": "x"}', "epoch": 1}
    assert editor.post(change, form).status_code == 302
    assert Group.objects.get(pk=group.pk).extensions == {"format": "MQTT/5.0", "team": "x"}


def test_the_validate_form_starts_from_a_message_that_passes(editor):
    call_command("load_demo", "--no-user")
    before = snapshot()
    checked, xsd = 0, 0
    for definition in Definition.objects.select_related("group").order_by("group__gid", "rid"):
        url = reverse("admin:catalog_definition_validate", args=[definition.pk])
        page = editor.get(url).content.decode()
        message = textarea(page, "message")
        assert message, definition  # never an empty box
        skeleton = json.loads(message)
        kind = re.search(r'<option value="([^"]*)" selected>', page).group(1)
        verdict = editor.post(url, {"kind": kind, "message": message}).content.decode()
        if "<span class='verdict-ok'>valid</span>" not in verdict:
            assert skeleton.get("datacontenttype") == "application/xml", (definition, verdict[-3000:])
            xsd += 1  # an XML payload's content is the user's to write: its root element is given
            continue
        checked += 1
    assert checked >= 50 and xsd <= 5
    assert snapshot() == before


def test_the_skeleton_carries_what_the_definition_declares(editor):
    call_command("load_demo", "--no-user")
    definition = Definition.objects.get(rid="Contoso.ERP.EmployeeAdded")
    page = editor.get(reverse("admin:catalog_definition_validate", args=[definition.pk])).content.decode()
    skeleton = json.loads(textarea(page, "message"))
    assert skeleton["type"] == "Contoso.ERP.EmployeeAdded" and skeleton["specversion"] == "1.0"
    assert skeleton["source"] == "/erp/tenantid/employees"  # the template's placeholder filled with its name
    assert {"employeeId", "name", "email"} <= set(skeleton["data"])
    mqtt = Definition.objects.filter(group__gid="Eclipse.SparkplugB.HostApplicationState").order_by("rid").first()
    page = editor.get(reverse("admin:catalog_definition_validate", args=[mqtt.pk])).content.decode()
    envelope = json.loads(textarea(page, "message"))
    assert envelope["topic-name"].startswith("spBv1.0/STATE/") and set(envelope["body"]) == {"online", "timestamp"}


def test_the_compatibility_check_names_every_version_a_candidate_breaks(editor):
    schema = make_schema(editor)  # version 1: {"id": string}
    v2 = {"type": "object", "properties": {"id": {"type": "string"}, "note": {"type": "string"}}}
    editor.post(
        reverse("admin:catalog_schema_newversion", args=[schema.pk]),
        {"media_type": "application/json", "document": json.dumps(v2)},
    )
    assert schema.versions.count() == 2
    before = snapshot()
    breaking = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
    page = editor.post(
        reverse("admin:catalog_schema_check", args=[schema.pk]),
        {"media_type": "application/json", "format": "", "document": json.dumps(breaking)},
    ).content.decode()
    table = re.search(r"<table id='incompatibilities'>.*?</table>", page, re.S).group(0)
    rows = re.findall(r"<tr><td><code>(.*?)</code></td>.*?<td>([^<]*)</td></tr>", table, re.S)
    assert rows and all(versions == "1, 2" for _path, versions in rows), rows
    assert "breaks versions" in table
    assert snapshot() == before
