"""Issue 26, the dashboard's "Recent changes" over HTTP: one line per path, with its number of changes (ten saves
of one group filled the whole list with one path), linking to that path's change events."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from tests.helpers import make_group

pytestmark = pytest.mark.django_db


def recent_rows(page: str) -> list[str]:
    table = page.split('id="recent-changes"', 1)[1].split("</table>", 1)[0]
    return [re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", row))).strip() for row in table.split("<tr>")[1:]]


def test_recent_changes_are_grouped_by_path(client, superuser, su):
    make_group(su, "busy")
    for n in range(10):
        assert su.put("/schemaGroups/busy", {"description": f"edit {n}"}, format="json").status_code == 200
    make_group(su, "quiet")
    client.force_login(superuser)
    page = client.get(reverse("admin:index")).content.decode()
    rows = recent_rows(page)
    assert [row.split(" ")[3] for row in rows] == ["/schemaGroups/quiet", "/schemaGroups/busy"], rows
    assert rows[1].endswith("11 changes since " + rows[1].split("since ")[1]) and "changes" not in rows[0]
    link = re.search(r'<td class="change-count"><a href="([^"]+)">11 changes</a>', page).group(1)
    events = client.get(html.unescape(link)).content.decode()
    assert "11 outbox events" in events and "/schemaGroups/quiet" not in events


def test_at_most_ten_paths_and_the_newest_first(client, superuser, su):
    for n in range(12):
        make_group(su, f"g{n:02d}")
    su.put("/schemaGroups/g00", {"description": "again"}, format="json")
    client.force_login(superuser)
    rows = recent_rows(client.get(reverse("admin:index")).content.decode())
    paths = [row.split(" ")[3] for row in rows]
    assert paths == ["/schemaGroups/g00", *[f"/schemaGroups/g{n:02d}" for n in range(11, 2, -1)]], paths
    assert "2 changes" in rows[0]
