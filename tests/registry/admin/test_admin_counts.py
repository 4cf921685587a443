"""The admin's lists and dashboard never count a whole table of entities (issue 40): on PostgreSQL the planner's
estimate stands for a large count (registry/store/estimates.py), shown as "about N"; small counts, and every count on
SQLite, are exact. The filters offer the formats and owners of the newest entries without reading every row."""

import io
import re

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from registry.store import estimates

LISTS = ("schemagroup", "schema", "schemaversion", "definitiongroup", "definition")
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
