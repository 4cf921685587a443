"""The governance UI in a real browser (Playwright + Chromium): log in, curate schemas, see an incompatible
version refused with its reasons, compare versions, deprecate an endpoint, import a document, and a viewer
who cannot edit. Screenshots of the main screens go to test-artifacts/screenshots/. After a click that loads a
page, the tests wait for what they assert (Playwright's `expect`, `wait_for_selector`, `wait_for_url`), never for
a timer: the page before may still be on screen."""

import json
import re

import pytest
from django.contrib.auth.models import Group as Role
from playwright.sync_api import expect

from tests.corpus import corpus

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def login(page, base, username, password):
    page.goto(f"{base}/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    page.wait_for_selector("#registry-dashboard")


def test_governance_journey(page, shot, live_server, django_user_model):
    document = corpus("seed-shape", "lightbulb-avro.cereg")  # first: without ../shared the journey skips at once
    django_user_model.objects.create_superuser("gov", "g@example.com", "pw")
    base = live_server.url
    login(page, base, "gov", "pw")

    page.goto(f"{base}/admin/catalog/schemagroup/add/")
    page.fill("#id_gid", "com.example.orders")
    page.fill("#id_description", "Order events")
    page.fill("#id_tags", '{"owner": "team-orders"}')
    page.click("input[name=_save]")
    page.wait_for_selector("text=Saved")

    page.goto(f"{base}/admin/catalog/schema/add/")
    page.select_option("#id_group", label="/schemaGroups/com.example.orders")
    page.fill("#id_rid", "OrderPlaced")
    page.fill("#id_format", "JsonSchema/draft-07")
    page.fill("#id_document", json.dumps({"type": "object", "properties": {"id": {"type": "string"}}}))
    page.click("input[name=_save]")
    page.wait_for_selector("#version-history")

    page.click("text=Create a new version")
    # the editor starts from the latest version, pretty-printed
    expect(page.locator("#id_document")).to_have_value(re.compile('"type": "object"'))
    page.fill(
        "#id_document",
        json.dumps({"type": "object", "properties": {"id": {"type": "string"}, "note": {"type": "string"}}}),
    )
    page.click("input[name=_save]")
    page.wait_for_selector("text=Created version 2")

    page.click("text=Create a new version")
    page.fill(
        "#id_document",
        json.dumps(
            {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id", "total"]}, indent=2
        ),
    )
    page.click("input[name=_save]")
    expect(page.locator(".errorlist.nonfield")).to_contain_text("Refused")
    reasons = page.locator(".field-document .errorlist")
    expect(reasons).to_contain_text("properties.id")
    expect(reasons).to_contain_text("required by the new schema only")
    expect(page.locator("#id_document")).to_have_value(re.compile('"total"'))  # the refused edit stays on screen
    shot(page, "incompatible-version")

    page.goto(page.url.replace("new-version/", "change/"))
    assert page.locator("#version-history tr").count() == 3  # header + two versions: nothing was saved
    shot(page, "schema")
    page.select_option("#compare-a", "1")
    page.select_option("#compare-b", "2")
    page.click("#compare-form input[type=submit]")
    page.wait_for_selector("table.diff")
    assert "compatible" in page.inner_text("#content-main")
    assert page.locator("table.diff .diff_add").count() > 0
    shot(page, "compare")

    # governance: relax the schema's compatibility level, then the refused version is accepted
    page.click("text=Back to")
    page.select_option("#id_compatibility", "none")
    page.click("input[name=_save]")
    page.wait_for_selector("text=Saved")
    page.click("text=Create a new version")
    page.fill(
        "#id_document",
        json.dumps(
            {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id", "total"]}, indent=2
        ),
    )
    page.click("input[name=_save]")
    page.wait_for_selector("text=Created version 3")
    page.select_option("#compare-a", "2")
    page.select_option("#compare-b", "3")
    page.click("#compare-form input[type=submit]")
    page.wait_for_selector("table.diff")
    verdicts = page.inner_text("#content-main")
    assert "incompatible" in verdicts and "level: none" in verdicts
    shot(page, "compare-incompatible")

    page.goto(f"{base}/admin/registry/import/")
    page.set_input_files("#id_document", str(document))
    page.click("input[type=submit][value=Import]")
    page.wait_for_selector("#import-report")
    report = page.inner_text("#import-report")
    assert "/schemaGroups/Fabrikam.Lumen" in report and "created" in report
    shot(page, "import-report")

    page.goto(f"{base}/admin/endpoints/endpoint/add/")
    page.fill("#id_gid", "orders.http")
    page.fill("#id_tags", '{"owner": "team-orders"}')
    page.fill(
        "#id_attributes",
        json.dumps(
            {"usage": "producer", "config": {"protocol": "HTTP", "endpoints": ["https://orders.example.com/events"]}},
            indent=2,
        ),
    )
    page.click("input[name=_save]")
    page.wait_for_selector("text=Saved")
    page.goto(f"{base}/admin/endpoints/endpoint/")
    page.check("input[name=_selected_action] >> nth=0")
    page.select_option("select[name=action]", "deprecate")
    page.click("button[name=index]")
    page.fill("#id_effective", "2031-06-01 00:00:00")
    page.fill("#id_removal", "2031-01-01 00:00:00")
    page.click("input[name=apply]")
    expect(page.locator(".field-removal")).to_contain_text("cannot come before")
    page.fill("#id_removal", "2032-01-01 00:00:00")
    page.fill("#id_alternative", "https://example.com/endpoints/next")
    page.click("input[name=apply]")
    page.wait_for_selector("text=Deprecated 1 endpoint")
    assert "removal 2032-01-01" in page.inner_text("#result_list")
    shot(page, "endpoints")

    page.goto(f"{base}/admin/")
    assert "/endpoints/orders.http" in page.inner_text("#recent-changes")
    shot(page, "dashboard")


def test_viewer_cannot_edit(page, shot, live_server, django_user_model):
    from registry.services import EntityAddress, WriteContext, create_group

    create_group(ctx=WriteContext(user="seed"), address=EntityAddress("schemaGroups"), data={"id": "readonly.group"})
    viewer = django_user_model.objects.create_user("viewer", "v@example.com", "pw", is_staff=True)
    from django.contrib.auth.models import Permission

    from registry.access.roles import VIEWERS, ensure_roles

    ensure_roles(Role, Permission)  # a transactional test before this one flushed what the migration created
    viewer.groups.add(Role.objects.get(name=VIEWERS))
    login(page, live_server.url, "viewer", "pw")
    page.goto(f"{live_server.url}/admin/catalog/schemagroup/")
    page.click("text=readonly.group")
    page.wait_for_url("**/change/")  # and loaded: a count on the list before would say nothing
    assert page.locator("input[name=_save]").count() == 0
    assert page.locator(".readonly").count() > 0
    shot(page, "viewer-readonly")
    page.goto(f"{live_server.url}/admin/catalog/schemagroup/add/")
    assert page.locator("input[name=_save]").count() == 0
