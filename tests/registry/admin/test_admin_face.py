"""The governance UI's own face (issue 16, item 5) on the demo registry `make run` loads: the header and title
name the registry (REGISTRY_NAME), the "By format" filters offer the formats actually stored with their
spellings grouped, and the dashboard's figures and recent changes are links."""

import io
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from catalog.validators.format_names import format_family_key
from registry.models import Resource

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(admin_client):
    call_command("load_demo", stdout=io.StringIO())
    return admin_client


def filter_choices(html: str) -> dict[str, str]:
    """The "By format" filter's entries: link query -> label."""
    part = html.split("By format", 1)[1].split("</ul>", 1)[0]
    return {
        href: label.strip() for href, label in re.findall(r'<a href="\?([^"]*format=[^"]*)"[^>]*>([^<]+)</a>', part)
    }


def test_header_and_title_name_the_registry(demo, settings):
    html = demo.get(reverse("admin:index")).content.decode()
    assert "<title>Catalog | CloudEvents Registry</title>" in html
    assert '<div id="site-name"><a href="/admin/">CloudEvents Registry</a></div>' in html.replace("\n", "")
    assert "Django administration" not in html


def schema_formats() -> dict[str, set[str]]:
    """The stored formats of the demo's schemas, by format family (read from the tables directly)."""
    found: dict[str, set[str]] = {}
    for resource in Resource.objects.filter(resource_type="schemas").select_related("latest"):
        value = (resource.latest.extensions.get("format") if resource.latest else None) or resource.extensions.get(
            "format"
        )
        found.setdefault(format_family_key(value), set()).add(resource.rid)
    return found


def test_schema_format_filter_offers_stored_formats_with_spellings_grouped(demo):
    html = demo.get(reverse("admin:catalog_schema_changelist")).content.decode()
    choices = filter_choices(html)
    labels = sorted(choices.values())
    # the demo holds JSON Schema draft-07 in three spellings, and Avro, Protobuf (2 and 3) and XSD
    assert labels == ["Avro/1.11", "JsonSchema/Draft-07 (3 spellings)", "Protobuf/2.0", "Protobuf/3", "XSD/1.1"]
    stored = schema_formats()
    for query, label in choices.items():
        key = query.split("format=", 1)[1].replace("%2F", "/")
        listed = demo.get(reverse("admin:catalog_schema_changelist") + "?" + query.replace("&amp;", "&"))
        count = int(re.search(r"(\d+) schemas?\b", listed.content.decode()).group(1))
        assert count == len(stored[key]), label


def test_definition_and_version_filters_group_their_formats(demo):
    labels = sorted(filter_choices(demo.get(reverse("admin:catalog_definition_changelist")).content.decode()).values())
    assert labels == ["CloudEvents/1.0", "Kafka/0.11", "MQTT/3.1.1", "MQTT/5.0"]
    versions = demo.get(reverse("admin:catalog_schemaversion_changelist")).content.decode()
    assert "JsonSchema/Draft-07 (3 spellings)" in filter_choices(versions).values()  # the schema's format counts


def test_dashboard_figures_and_changes_are_links(demo):
    html = demo.get(reverse("admin:index")).content.decode()
    counts = html.split('id="registry-counts"', 1)[1].split("</table>", 1)[0]
    assert counts.count("<td>") == counts.count("<td><a href=")  # every figure leads to its list
    changes = html.split('id="recent-changes"', 1)[1].split("</table>", 1)[0]
    rows = changes.split("<tr>")[1:]
    assert len(rows) == 10 and all('<a href="/admin/registry/outboxevent/' in row for row in rows)
    linked = re.findall(r'<td><a href="(/admin/catalog/[a-z]+/\d+/change/)">(/[^<]+)</a></td>', changes)
    assert linked and all(demo.get(url).status_code == 200 for url, _path in linked)


def test_schema_documents_are_highlighted_by_their_format(demo):
    """The lexers the catalog registers with the engine: XML Schema as XML, a .proto file as Protobuf."""
    from catalog.validators.format_names import schema_format_family

    pages = {}
    for resource in Resource.objects.filter(resource_type="schemas").select_related("latest"):
        family = schema_format_family(resource.extensions.get("format"))[0]
        if family in ("XSD", "Protobuf") and family not in pages:
            url = reverse("admin:catalog_schema_change", args=[resource.pk])
            pages[family] = demo.get(url).content.decode().split("<div class='registry-doc'>", 1)[1][:3000]
    assert '<span class="nt">&lt;xs:element</span>' in pages["XSD"] or '<span class="nt">&lt;xsd:' in pages["XSD"]
    assert (
        '<span class="kd">message</span>' in pages["Protobuf"] or '<span class="k">message</span>' in pages["Protobuf"]
    )
