"""The portable copy restores its owners (issue 37 item 8; docs/deploy.md "Back up and restore", docs/teams.md): an
export of groups with owners imports into an empty instance, by `import_registry` (the system) and over HTTP by a
registry admin (`POST /`, `POST /registry/`, the admin's import page): the owners are restored and the teams they name
that do not exist are created, empty, and listed in the report. `--owners=drop` / `?owners=drop` imports a copy into
another organisation: the document's owners are left out (new groups follow REGISTRY_REQUIRE_OWNERS; stored groups
keep theirs). Anyone else's import that names a team that does not exist is refused, nothing written."""

import json

import pytest
from django.contrib.auth.models import Group as Team
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse

from registry.models import Group, Resource
from tests.helpers import snapshot

from .conftest import OWNERS_A, OWNERS_B

FMT = "JsonSchema/draft-07"
COPIED_TEAMS = ["team-a", "team-a-dev", "team-audit", "team-b"]


@pytest.fixture
def exported(teams, su, tmp_path):
    """The export of A (a schema) and B (owned by teams) and C (no owners), by the command and by both bindings; then
    an empty instance: no groups, and none of the teams they name (their members with them)."""
    response = su.post(
        "/schemaGroups/A/schemas", b'{"type": "object"}', content_type="application/json",
        headers={"Registry-id": "s", "Registry-format": FMT},
    )  # fmt: skip
    assert response.status_code == 201, response.content
    path = tmp_path / "registry-export.json"
    call_command("export_registry", "-o", str(path))
    documents = {
        "file": path,
        "/": _body(su.get("/?inline", HTTP_ACCEPT="application/cloudevents-registry+json")),
        "/registry/": _body(su.get("/registry/export")),
    }
    assert json.loads(path.read_text())["schemaGroups"]["A"]["owners"] == OWNERS_A
    Group.objects.all().delete()
    Team.objects.filter(name__in=COPIED_TEAMS).delete()
    return documents


def _body(response):
    assert response.status_code == 200, response.content[:2000]
    return json.loads(b"".join(response.streaming_content) if response.streaming else response.content)


def _restored():
    assert Group.objects.get(gid="A").extensions["owners"] == OWNERS_A
    assert Group.objects.get(gid="B").extensions["owners"] == OWNERS_B
    assert "owners" not in Group.objects.get(gid="C").extensions
    assert Resource.objects.filter(group__gid="A", rid="s").exists()
    for name in COPIED_TEAMS:  # made, empty: who belongs to them is the instance's own business
        team = Team.objects.get(name=name)
        assert not team.user_set.exists() and not team.permissions.exists()


def _send(client, path, document, query=""):
    return client.generic("POST", f"{path}{query}", json.dumps(document), content_type="application/json")


def test_the_command_restores_the_owners_and_makes_the_teams(exported, capsys):
    call_command("import_registry", str(exported["file"]))
    _restored()
    out = capsys.readouterr().out
    assert f"teams created: {', '.join(COPIED_TEAMS)}" in out, out
    # imported again: nothing changes, no team is made
    call_command("import_registry", str(exported["file"]))
    assert "teams created" not in capsys.readouterr().out


@pytest.mark.parametrize("route", ["/", "/registry/"])
def test_a_registry_admin_restores_the_copy_over_http(exported, teams, route):
    response = _send(teams["admin"], route, exported[route])
    assert response.status_code == 200, response.content
    _restored()
    if route == "/":  # 1.0's answer holds the groups only (core/http.md); 0.5's report lists the teams made
        assert response.json()["teamsCreated"] == COPIED_TEAMS


def test_a_registry_admin_restores_the_copy_on_the_admin_s_import_page(exported, teams):
    client = Client()
    client.force_login(teams.users["admin"])
    upload = SimpleUploadedFile("registry.cereg", exported["file"].read_bytes())
    page = client.post(reverse("registry-admin-import"), {"document": upload})
    assert page.status_code == 200
    assert "Teams created" in page.content.decode() and "team-a-dev" in page.content.decode()
    _restored()


def test_the_command_drops_the_owners(exported, capsys, settings):
    settings.REGISTRY_REQUIRE_OWNERS = True  # the system's imports are trusted: its groups may have none
    call_command("import_registry", "--owners=drop", str(exported["file"]))
    assert not Group.objects.filter(extensions__has_key="owners").exists()
    assert not Team.objects.filter(name__in=COPIED_TEAMS).exists()
    assert "teams created" not in capsys.readouterr().out
    with pytest.raises(CommandError):
        call_command("import_registry", "--owners=maybe", str(exported["file"]))


@pytest.mark.parametrize("route", ["/", "/registry/"])
def test_owners_drop_over_http(exported, teams, route):
    response = _send(teams["admin"], route, exported[route], "?owners=drop")
    assert response.status_code == 200, response.content
    assert not Group.objects.filter(extensions__has_key="owners").exists()
    assert not Team.objects.filter(name__in=COPIED_TEAMS).exists()
    if route == "/":
        assert response.json()["teamsCreated"] == []


@pytest.mark.parametrize("route", ["/", "/registry/"])
def test_owners_drop_keeps_the_owners_of_the_groups_already_here(teams, su, route):
    """A copy from another organisation does not take the owners of the groups it shares with this one."""
    document = {"/": {"schemaGroups": {"A": {"description": "copied"}}}, "/registry/": {"schemagroups": {"A": {}}}}
    before = Group.objects.get(gid="A").extensions["owners"]
    response = _send(teams["admin"], route, document[route], "?owners=drop")
    assert response.status_code == 200, response.content
    assert Group.objects.get(gid="A").extensions["owners"] == before == OWNERS_A
    # and the group's owner may import the copy too: its owners are not the document's to change
    response = _send(teams["owner_a"], route, document[route], "?owners=drop")
    assert response.status_code == 200, response.content
    assert Group.objects.get(gid="A").extensions["owners"] == OWNERS_A


@pytest.mark.parametrize("route", ["/", "/registry/"])
def test_owners_drop_with_owners_required_follows_the_rule_of_a_new_group(exported, teams, settings, route):
    settings.REGISTRY_REQUIRE_OWNERS = True
    admin = teams["admin"]
    before = snapshot()
    response = _send(admin, route, exported[route], "?owners=drop")  # the admin belongs to no team of its own
    assert response.status_code == 400, response.content
    assert "REGISTRY_REQUIRE_OWNERS is on and you belong to no team" in json.dumps(response.json())
    assert snapshot() == before
    teams.users["admin"].groups.add(Team.objects.create(name="team-platform"))
    response = _send(admin, route, exported[route], "?owners=drop")
    assert response.status_code == 200, response.content
    assert {g.extensions["owners"]["team-platform"] for g in Group.objects.all()} == {"owner"}


@pytest.mark.parametrize("route", ["/", "/registry/"])
def test_a_bad_owners_parameter_is_400_naming_it(teams, route):
    before = snapshot()
    response = _send(teams["admin"], route, {}, "?owners=maybe")
    assert response.status_code == 400, response.content
    assert "owners" in response.json()["detail"], response.json()
    assert snapshot() == before


@pytest.mark.parametrize("route", ["/", "/registry/"])
def test_anyone_else_naming_a_team_that_does_not_exist_is_refused(exported, teams, route):
    """The outsider ("Registry editors": may create groups and name their owners) is no registry admin."""
    outsider = teams["outsider"]
    teams_before, before = set(Team.objects.values_list("name", flat=True)), snapshot()
    response = _send(outsider, route, exported[route])
    assert response.status_code == 400, response.content
    assert "owners.team-a: no team (Django group) is called 'team-a'" in json.dumps(response.json())
    assert snapshot() == before
    assert set(Team.objects.values_list("name", flat=True)) == teams_before
    # the same copy without its owners: the groups are the outsider's to create, as any
    response = _send(outsider, route, exported[route], "?owners=drop")
    assert response.status_code == 200, response.content
    assert not Group.objects.filter(extensions__has_key="owners").exists()
    assert set(Team.objects.values_list("name", flat=True)) == teams_before


def test_an_owner_naming_a_team_that_does_not_exist_is_refused(teams):
    before, teams_before = snapshot(), Team.objects.count()
    owners = {**OWNERS_A, "team-new": "editor"}
    response = _send(teams["owner_a"], "/", {"schemaGroups": {"A": {"owners": owners}}})
    assert response.status_code == 400, response.content
    assert "owners.team-new: no team (Django group) is called 'team-new'" in json.dumps(response.json())
    assert snapshot() == before and Team.objects.count() == teams_before
