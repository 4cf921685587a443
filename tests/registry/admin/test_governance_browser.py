"""The governance screens of issue 16 in a real browser (Playwright + Debian's Chromium): "Referenced by", a
delete refused with its referrers, the search box, and the delivery health chart. Screenshots go to
test-artifacts/screenshots/. The tests wait for what they assert (tests/registry/admin/test_admin_browser.py), never for
a timer."""

import re

import pytest
from playwright.sync_api import expect

from .governance_seed import seed
from .health_seed import seed_deliveries
from .test_admin_browser import login

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def governor(page, live_server, django_user_model):
    django_user_model.objects.create_superuser("gov", "g@example.com", "pw")
    login(page, live_server.url, "gov", "pw")
    return page


def test_referenced_by_and_refused_delete(governor, shot, live_server):
    from catalog.models import Schema

    page, base = governor, live_server.url
    seed()
    placed = Schema.objects.get(rid="Placed")
    page.goto(f"{base}/admin/catalog/schema/{placed.pk}/change/")
    rows = page.locator("#referenced-by tr").all_inner_texts()[1:]
    assert [row.split("\t")[0] for row in rows] == [
        "/definitionGroups/Shop/definitions/OrderAudited",
        "/definitionGroups/Shop/definitions/OrderPlaced",
    ]
    assert "versions/1:Order" in rows[1]
    page.locator("#referenced-by").scroll_into_view_if_needed()
    shot(page, "references")
    page.click('#referenced-by a:has-text("definitions/OrderPlaced")')
    page.wait_for_selector("text=Change /definitionGroups/Shop/definitions/OrderPlaced")

    page.goto(f"{base}/admin/catalog/schema/{placed.pk}/delete/")
    warning = page.inner_text("#delete-referrers")
    assert "OrderAudited" in warning and "OrderPlaced" in warning and "OrderArchived" not in warning
    shot(page, "refused-delete-confirmation")
    page.click("input[type=submit]")
    expect(page.locator(".messagelist")).to_contain_text("Not deleted")
    assert Schema.objects.filter(rid="Placed").exists()  # nothing deleted
    page.goto(f"{base}/admin/catalog/definitiongroup/")
    page.check("input[name=_selected_action] >> nth=0")
    page.select_option("select[name=action]", "delete_selected")
    page.click("button[name=index]")
    expect(page.locator("#delete-referrers")).to_contain_text("/endpoints/shop.http")
    page.check("#delete-force")  # "delete anyway", as ?force=true
    page.click("input[type=submit]")
    expect(page.locator(".messagelist")).to_contain_text("Deleted 1")


def test_search_finds_a_word_inside_a_document(governor, shot, live_server):
    page = governor
    seed()
    page.goto(f"{live_server.url}/admin/")
    page.fill("#registry-search", "warehouseLocation")
    page.press("#registry-search", "Enter")
    expect(page.locator("#search-results tr")).to_have_count(2)  # header + the schema
    row = page.inner_text("#search-results tr >> nth=1")
    assert "/schemaGroups/Orders/schemas/Placed" in row and "document (version 1)" in row
    page.fill("#registry-search", "order")
    page.press("#registry-search", "Enter")
    page.wait_for_url(re.compile(r"[?&]q=order"))  # the second search's page, loaded (the first had a summary too)
    shot(page, "search")
    page.click('#search-results a:has-text("schemas/Placed")')
    page.wait_for_selector("#version-history")
    page.goto(f"{live_server.url}/admin/catalog/schema/?q=warehouse")
    assert page.locator("#result_list tbody tr").count() == 1


def test_delivery_health_chart(governor, shot, live_server):
    page = governor
    subscription, mine, everyone = seed_deliveries()

    def counts(selector):
        found = {}
        for g in page.locator(f"{selector} g.hour").all():
            value = tuple(int(g.get_attribute(f"data-{k}")) for k in ("delivered", "retried", "dead"))
            if value != (0, 0, 0):
                found[g.get_attribute("data-hour")] = value
        assert page.locator(f"{selector} g.hour").count() == 24
        return found

    page.goto(f"{live_server.url}/admin/")
    assert counts("#delivery-health") == everyone
    dead_bar = page.locator("#delivery-health g.hour[data-dead='1'] rect.dead").first
    assert dead_bar.is_visible() and float(dead_bar.get_attribute("height")) > 0
    page.goto(f"{live_server.url}/admin/subscriptions/subscription/{subscription.pk}/change/")
    assert counts("#subscription-health") == mine
    page.locator("#subscription-health").scroll_into_view_if_needed()
    shot(page, "health")


def test_catalog_map_of_a_demo_endpoint(governor, shot, live_server):
    """The map on an endpoint's page: its boxes, and a box that leads to the schema's page."""
    from endpoints.models import Endpoint

    page, base = governor, live_server.url
    seed()
    assert page.inner_text("#site-name") == "CloudEvents Registry"  # the header names the registry, not Django
    page.click("#catalog-map-link")  # the dashboard's button: the whole registry
    expect(page.locator("#catalog-map g.node")).to_have_count(9)
    endpoint = Endpoint.objects.get(gid="shop.http")
    page.goto(f"{base}/admin/endpoints/endpoint/{endpoint.pk}/change/")
    boxes = page.locator("#catalog-map g.node title").all_text_contents()
    assert "/endpoints/shop.http" in boxes and "/schemaGroups/Orders/schemas/Placed" in boxes
    assert "/schemaGroups/Orders/schemas/Unused" not in boxes
    edge_labels = page.locator("#catalog-map g.edge text").all_text_contents()
    assert "v1:Order" in edge_labels
    page.locator("#catalog-map").scroll_into_view_if_needed()
    shot(page, "map")
    page.locator("#catalog-map g.node:has(title:text-is('/schemaGroups/Orders/schemas/Placed')) a").click()
    page.wait_for_selector("text=Change /schemaGroups/Orders/schemas/Placed")
    svg = page.request.get(f"{base}/map.svg?root=/endpoints/shop.http")
    assert svg.status == 200 and svg.headers["content-type"] == "image/svg+xml"
