"""The admin dashboard by team (issue 27): the panel "My groups" lists the groups the user's teams own, with the role
held; with public reads off its counts, recent changes and whole-registry export leave out the groups the user may not
read."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from .conftest import (
    SECRET_DEF_GROUP,
    SECRET_GROUP,
    SECRET_SCHEMA,
    assert_hidden,
)


def signed_in(teams, name) -> Client:
    client = Client()
    client.force_login(teams.users[name])
    return client


def panel(teams, name) -> list[tuple[str, str, str]]:
    """(group path, role, teams) per row of "My groups"."""
    page = signed_in(teams, name).get(reverse("admin:index")).content.decode()
    table = re.search(r'<table style="width:100%" id="my-groups">(.*?)</table>', page, flags=re.S)
    assert table, page
    rows = re.findall(
        r'<a href="[^"]*">([^<]+)</a></td>\s*<td class="my-role">([^<]*)</td>\s*<td class="my-teams">([^<]*)</td>',
        table.group(1),
    )
    return rows


def test_my_groups_lists_the_groups_of_the_user_s_teams_with_the_role(teams):
    assert panel(teams, "owner_a") == [("/schemaGroups/A", "owner", "team-a (owner)")]
    assert panel(teams, "editor_a") == [("/schemaGroups/A", "editor", "team-a-dev (editor)")]
    assert panel(teams, "reader_a") == [("/schemaGroups/A", "reader", "team-audit (reader)")]
    assert panel(teams, "owner_b") == [("/schemaGroups/B", "owner", "team-b (owner)")]
    assert panel(teams, "outsider") == []
    page = signed_in(teams, "outsider").get(reverse("admin:index")).content.decode()
    assert "own no group" in page


def test_my_groups_shows_the_highest_role_and_every_team(teams, su):
    from django.contrib.auth.models import Group as Team

    teams.users["reader_a"].groups.add(Team.objects.get(name="team-a-dev"))
    body = {"format": "CloudEvents/1.0", "owners": {"team-audit": "owner"}}  # (REQUIRED in 0.5: CONTRACT 18)
    response = su.put("/definitionGroups/mine", body, format="json")
    assert response.status_code == 201, response.content
    assert panel(teams, "reader_a") == [
        ("/definitionGroups/mine", "owner", "team-audit (owner)"),
        ("/schemaGroups/A", "editor", "team-a-dev (editor), team-audit (reader)"),
    ]
    page = signed_in(teams, "admin").get(reverse("admin:index")).content.decode()
    assert 'id="my-groups-admin"' in page


def test_with_public_reads_off_the_dashboard_shows_only_what_the_user_may_read(private):
    page = signed_in(private, "outsider").get(reverse("admin:index")).content.decode()
    assert_hidden(page)
    counts = re.search(r'id="registry-counts">(.*?)</table>', page, flags=re.S).group(1)
    assert "<strong>2</strong> schema groups" in counts.lower(), counts  # C and the open group
    page = signed_in(private, "owner_b").get(reverse("admin:index")).content.decode()
    assert SECRET_SCHEMA in page  # a recent change
    export = b"".join(signed_in(private, "outsider").get(reverse("registry-admin-export")).streaming_content).decode()
    assert_hidden(export)
    export = b"".join(signed_in(private, "owner_b").get(reverse("registry-admin-export")).streaming_content).decode()
    assert SECRET_GROUP in export and SECRET_DEF_GROUP in export


@pytest.mark.parametrize("name", ["owner_b", "admin"])
def test_public_reads_on_count_everything(teams, name, settings):
    settings.REGISTRY_PUBLIC_READ = True
    page = signed_in(teams, name).get(reverse("admin:index")).content.decode()
    counts = re.search(r'id="registry-counts">(.*?)</table>', page, flags=re.S).group(1)
    assert "<strong>3</strong> schema groups" in counts.lower(), counts


def test_with_public_reads_off_the_change_events_list_only_what_the_user_may_read(private):
    page = signed_in(private, "outsider").get(reverse("admin:registry_outboxevent_changelist"))
    assert page.status_code == 200
    text = page.content.decode().replace("<wbr>", "")
    assert_hidden(text)
    assert "/schemaGroups/C" in text or "open-to-all-52" in text
    from django.contrib.auth.models import Permission

    private.users["owner_b"].user_permissions.add(Permission.objects.get(codename="view_outboxevent"))
    text = signed_in(private, "owner_b").get(reverse("admin:registry_outboxevent_changelist")).content.decode()
    assert SECRET_SCHEMA in text.replace("<wbr>", "")
