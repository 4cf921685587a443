"""The admin by the same rule (issue 27): changelists mark what a user may change ("change" / "read-only"), and with
public reads off show only what the user may read; change pages of another team's group are read-only and a post
to them writes nothing; the group form shows and sets owners (an owner's right)."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from registry.models import Group
from tests.helpers import snapshot


def signed_in(teams, name) -> Client:
    client = Client()
    client.force_login(teams.users[name])
    return client


def access_of(page: str) -> dict[str, str]:
    """group id -> the access column of its row"""
    rows = re.findall(r"<tr>.*?</tr>", page, flags=re.S)
    out = {}
    for row in rows:
        gid = re.search(r'/change/">([^<]+)</a>', row)
        access = re.search(r'class="access-(change|readonly)"', row)
        if gid and access:
            out[gid.group(1).replace("<wbr>", "")] = access.group(1)
    return out


@pytest.mark.parametrize(
    "name,expected",
    [
        ("editor_a", {"A": "readonly", "B": "readonly", "C": "readonly"}),  # the group's own attributes: an owner's
        ("owner_a", {"A": "change", "B": "readonly", "C": "readonly"}),
        ("outsider", {"A": "readonly", "B": "readonly", "C": "change"}),
        ("admin", {"A": "change", "B": "change", "C": "change"}),
    ],
)
def test_the_group_list_marks_what_each_user_may_change(teams, name, expected):
    page = signed_in(teams, name).get(reverse("admin:catalog_schemagroup_changelist"))
    assert page.status_code == 200
    assert access_of(page.content.decode()) == expected


def test_the_schema_list_marks_the_editor_s_schemas(teams, su):
    for gid in "AB":
        assert (
            su.post(
                f"/schemaGroups/{gid}/schemas",
                b"x",
                content_type="text/plain",
                headers={"Registry-id": f"s{gid}", "Registry-format": "Custom/1"},
            ).status_code
            == 201
        )
    page = signed_in(teams, "editor_a").get(reverse("admin:catalog_schema_changelist")).content.decode()
    assert 'class="access-change"' in page and 'class="access-readonly"' in page
    assert page.count('class="access-change"') == 1


def test_with_public_reads_off_lists_show_only_what_the_user_may_read(teams, settings):
    settings.REGISTRY_PUBLIC_READ = False
    client = signed_in(teams, "editor_a")
    page = client.get(reverse("admin:catalog_schemagroup_changelist")).content.decode()
    assert set(access_of(page)) == {"A", "C"}
    b = Group.objects.get(gid="B")
    response = client.get(reverse("admin:catalog_schemagroup_change", args=[b.pk]))
    assert response.status_code == 302  # as for an entity that does not exist
    assert set(
        access_of(signed_in(teams, "admin").get(reverse("admin:catalog_schemagroup_changelist")).content.decode())
    ) == {"A", "B", "C"}


def test_a_change_page_of_another_team_s_group_is_read_only_and_writes_nothing(teams):
    client = signed_in(teams, "editor_a")
    b = Group.objects.get(gid="B")
    url = reverse("admin:catalog_schemagroup_change", args=[b.pk])
    page = client.get(url).content.decode()
    assert 'name="_save"' not in page
    before = snapshot()
    client.post(url, {"gid": "B", "description": "taken", "tags": "{}", "attributes": "{}", "owners": "{}"})
    assert snapshot() == before


def test_owners_set_owners_in_the_group_form_and_editors_cannot(teams):
    a = Group.objects.get(gid="A")
    url = reverse("admin:catalog_schemagroup_change", args=[a.pk])
    owner = signed_in(teams, "owner_a")
    page = owner.get(url).content.decode()
    assert 'name="owners"' in page and "team-a-dev" in page
    response = owner.post(
        url,
        {"gid": "A", "tags": "{}", "attributes": "{}", "owners": '{"team-a": "owner", "team-b": "reader"}', "epoch": 1},
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    a.refresh_from_db()
    assert a.extensions["owners"] == {"team-a": "owner", "team-b": "reader"}
    before = snapshot()
    response = signed_in(teams, "editor_a").post(
        url, {"gid": "A", "tags": "{}", "attributes": "{}", "owners": '{"team-a-dev": "owner"}', "epoch": 2}
    )
    assert snapshot() == before
