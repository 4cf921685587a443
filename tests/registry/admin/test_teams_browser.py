"""Teams in the admin, in a real browser (issue 27): a team's people see their own group's entries as changeable
(✎) and the others' as read-only (—, owned by whom in its title); another team's group opens without a Save button;
the History page lists what every door did. Screenshot: test-artifacts/screenshots/teams-changelist.png."""

import pytest
from playwright.sync_api import expect

from tests.registry.teams.conftest import people, teams  # noqa: F401 - the fixtures: two teams' groups and their people

from .test_admin_browser import login

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def marks(page, titles: dict | None = None) -> dict[str, str]:
    """row label -> its edit mark (and, into `titles`, label -> the mark's title)"""
    out = {}
    for row in page.locator("#result_list tbody tr").all():
        label = row.locator("th a, td a").first.inner_text().strip()
        mark = row.locator(".access-change, .access-readonly").first
        out[label] = mark.get_attribute("class")
        if titles is not None:
            titles[label] = mark.get_attribute("title")
    return out


def test_a_team_sees_only_its_group_as_changeable(page, shot, live_server, teams, su):  # noqa: F811
    for gid in "AB":
        response = su.post(
            f"/schemaGroups/{gid}/schemas",
            b"x",
            content_type="text/plain",
            headers={"Registry-id": f"s{gid}", "Registry-format": "Custom/1"},
        )
        assert response.status_code == 201
    base = live_server.url
    login(page, base, "owner_a", "pw")
    page.goto(f"{base}/admin/catalog/schemagroup/")
    titles: dict = {}
    assert marks(page, titles) == {"A": "access-change", "B": "access-readonly", "C": "access-readonly"}
    assert "owned by team-b (owner)" in titles["B"]
    shot(page, "teams-changelist")
    page.locator("#result_list").get_by_role("link", name="B", exact=True).click()
    page.wait_for_url("**/change/")  # and loaded: a count on the list before would say nothing
    assert page.locator("input[name=_save]").count() == 0
    page.goto(f"{base}/admin/catalog/schemagroup/")
    page.locator("#result_list").get_by_role("link", name="A", exact=True).click()
    expect(page.locator("input[name=_save]")).to_have_count(1)
    assert "team-a-dev" in page.input_value("#id_owners")
    page.click("text=History")
    page.wait_for_selector("#audit-history")
    assert "cloudevents-registry-0.5" in page.locator("#audit-history").inner_text()

    page.context.clear_cookies()
    login(page, base, "editor_a", "pw")
    page.goto(f"{base}/admin/catalog/schema/")
    assert marks(page) == {"sA": "access-change", "sB": "access-readonly"}
