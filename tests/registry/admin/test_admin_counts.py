"""The admin's lists and dashboard never count a whole table of entities (issue 40): on PostgreSQL the planner's
estimate stands for a large count (registry/store/estimates.py), shown as "about N"; small counts, and every count on
SQLite, are exact. The filters offer the formats and owners of the newest entries without reading every row."""

import io
import json
import re

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.models import Count
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from catalog import admin_resources
from catalog.admin import SchemaAdmin, SchemaVersionAdmin
from catalog.models import Schema, SchemaVersion
from registry.domain.attributes import version_order
from registry.governance import counts
from registry.models import Version
from registry.store import estimates

LISTS = ("schemagroup", "schema", "schemaversion", "definitiongroup", "definition")
FORMAT = "JsonSchema/draft-07"
COUNTED = re.compile(r'COUNT\(\*\)[^"]*FROM "registry_(group|resource|version|outboxevent)"', re.S)


@pytest.fixture
def demo(editor):
    call_command("load_demo", stdout=io.StringIO())
    return editor


def pages(client) -> dict[str, str]:
    out = {"dashboard": client.get(reverse("admin:index"))}
    out.update({name: client.get(reverse(f"admin:catalog_{name}_changelist")) for name in LISTS})
    out["outbox"] = client.get(reverse("admin:registry_outboxevent_changelist"))
    for name, answer in out.items():
        assert answer.status_code == 200, name
    return {name: answer.content.decode() for name, answer in out.items()}


def counts_cell(html: str) -> str:
    return html.split('id="registry-counts"', 1)[1].split("</table>", 1)[0]


def test_small_counts_are_exact(demo):
    shown = counts_cell(pages(demo)["dashboard"])
    assert "about" not in shown
    assert re.search(r"<strong>\d+</strong> schema versions", shown)


@pytest.mark.skipif("connection.vendor != 'postgresql'")
def test_large_counts_are_the_planners_estimate_not_a_count_of_the_table(demo, monkeypatch):
    monkeypatch.setattr(estimates, "EXACT_BELOW", 0)  # every count is large here
    with CaptureQueriesContext(connection) as queries:
        html = pages(demo)
    counted = [q["sql"] for q in queries.captured_queries if COUNTED.search(q["sql"])]
    assert counted == []
    assert re.search(r"<strong>about [\d,]+</strong> schema versions", counts_cell(html["dashboard"]))
    assert re.search(r"\d+ schemas?\b", html["schema"])  # the list still says how many, from the estimate


def test_no_list_counts_its_filters_choices(demo):
    """issue 40: Django's "Show counts" (`?_facets`) counts each choice of each filter over the whole list (a scan of
    the table per choice at every view). The lists of tables that grow do not offer it, and ignore the parameter."""
    urls = [reverse(f"admin:catalog_{name}_changelist") for name in LISTS]
    urls += [reverse("admin:registry_outboxevent_changelist"), reverse("admin:endpoints_endpoint_changelist")]
    for url in urls:
        with CaptureQueriesContext(connection) as plain:
            page = demo.get(url).content.decode()
        with CaptureQueriesContext(connection) as asked:
            faceted = demo.get(url + "?_facets=True").content.decode()
        assert "Show counts" not in page and "Hide counts" not in faceted, url  # the link that toggles them
        assert len(asked.captured_queries) == len(plain.captured_queries), url


def test_the_pages_of_a_list_reach_a_bounded_depth_and_say_so(demo, monkeypatch):
    """issue 40: a page of an admin list is an OFFSET, which reads every row it skips: the last page of a million
    versions read them all. The pages reach the first DEEPEST_ROW rows, and the list says how to find the others."""
    monkeypatch.setattr(counts, "DEEPEST_ROW", 4)
    monkeypatch.setattr(SchemaVersionAdmin, "list_per_page", 2)
    url = reverse("admin:catalog_schemaversion_changelist")
    assert SchemaVersion.objects.count() > 4  # more than the pages reach
    page = demo.get(url).content.decode()
    assert "?p=2" in page and "?p=3" not in page, page
    assert "the pages reach the first 4: search, filter or sort the list to find the others" in page
    assert demo.get(url + "?p=2").status_code == 200
    beyond = demo.get(url + "?p=3")
    assert beyond.status_code == 302 and beyond["Location"].endswith("?e=1")  # as a page past the end is
    monkeypatch.setattr(counts, "DEEPEST_ROW", 10_000)
    assert "pages-capped" not in demo.get(url).content.decode()  # a list the pages cover says nothing


def test_a_deep_page_skips_rows_without_the_lists_joins(demo, monkeypatch):
    """issue 40: the rows an OFFSET skips were read with the list's joins and each schema's count of its versions
    (9,900 counts for page 100 of the schemas); now the page's primary keys are found first, then its rows."""
    monkeypatch.setattr(SchemaAdmin, "list_per_page", 2)
    url = reverse("admin:catalog_schema_changelist")
    expected = [s.pk for s in demo.get(url).context["cl"].queryset[2:4]]
    with CaptureQueriesContext(connection) as queries:
        shown = demo.get(url + "?p=2").context["cl"].result_list
    assert [s.pk for s in shown] == expected and len(expected) == 2
    skipping = [q["sql"] for q in queries.captured_queries if "OFFSET" in q["sql"]]
    assert skipping and not [sql for sql in skipping if "COUNT(" in sql or "registry_version" in sql], skipping
    assert [s.version_count for s in shown] == [Version.objects.filter(resource=s).count() for s in shown]


def test_a_resource_page_lists_its_newest_versions_and_says_how_many(demo, monkeypatch):
    """issue 40: a schema's page listed every version (5,000 rows for the long schema of a million versions) and
    offered each twice to compare; now the newest SHOWN_VERSIONS, with the count and where to read them all."""
    versions = {
        str(v): {"id": str(v), "format": FORMAT, "schema": {"type": "object", "title": f"v{v}"}} for v in (1, 2, 3)
    }
    document = {
        "schemaGroups": {"g3": {"id": "g3", "schemas": {"s": {"id": "s", "format": FORMAT, "versions": versions}}}}
    }
    assert demo.post("/", json.dumps(document), content_type="application/json").status_code < 300
    schema = Schema.objects.annotate(n=Count("versions")).get(group__gid="g3", rid="s")
    page = demo.get(reverse("admin:catalog_schema_change", args=[schema.pk])).content.decode()
    assert "more-versions" not in page
    monkeypatch.setattr(admin_resources, "SHOWN_VERSIONS", 2)
    page = demo.get(reverse("admin:catalog_schema_change", args=[schema.pk])).content.decode()
    history = page.split("id='version-history'", 1)[1].split("</table>", 1)[0]
    newest = sorted(schema.versions.all(), key=version_order)[-2:]
    assert re.findall(r"<a href='[^']+'>([^<]+)</a>", history) == [v.vid for v in reversed(newest)], history
    assert f"The newest 2 of {schema.n} versions; <code>GET {schema.path}/versions</code> lists every one." in page
