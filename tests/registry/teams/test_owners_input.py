"""Bad `owners` (issue 27): unknown teams, unknown roles, a value that is no map, and, with
REGISTRY_REQUIRE_OWNERS, owner lists that would leave a group without an owner: 400 naming what is wrong, through
both bindings, nothing written. With owners required, a new group gets its creator's team as owner."""

import pytest
from django.contrib.auth.models import Permission

from registry.models import Group
from tests.helpers import snapshot


@pytest.mark.parametrize("root,groups", [("/", "schemaGroups"), ("/registry/", "schemagroups")])
@pytest.mark.parametrize(
    "owners,named",
    [
        ({"team-nobody": "owner"}, "owners.team-nobody: no team"),
        ({"team-a": "boss"}, "owners.team-a: the role must be one of reader, editor, owner, not 'boss'"),
        (["team-a"], "owners must be a map of team name to role"),
        ("team-a", "owners must be a map of team name to role"),
    ],
)
def test_bad_owners_are_400_naming_them(teams, su, root, groups, owners, named):
    before = snapshot()
    for method, gid in (("PUT", "new"), ("PUT", "A")):
        response = su.generic(
            method, f"{root}{groups}/{gid}", _json({"owners": owners}), content_type="application/json"
        )
        assert response.status_code == 400, response.content
        assert named in response.json()["detail"], response.json()
        assert snapshot() == before


def _json(body):
    import json

    return json.dumps(body)


def test_with_owners_required_a_new_group_belongs_to_its_creator_s_team(teams, settings):
    settings.REGISTRY_REQUIRE_OWNERS = True
    # creating a group is outside every group: the model permission, as before teams
    teams.users["owner_b"].user_permissions.add(
        Permission.objects.get(codename="add_group", content_type__app_label="registry")
    )
    response = teams["owner_b"].put("/schemaGroups/mine", {}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["owners"] == {"team-b": "owner"}
    assert Group.objects.get(gid="mine").extensions["owners"] == {"team-b": "owner"}


def test_with_owners_required_a_creator_without_one_team_names_them(teams, settings, su, django_user_model):
    settings.REGISTRY_REQUIRE_OWNERS = True
    before = snapshot()
    response = su.put("/schemaGroups/nobody", {}, format="json")  # alice is in no team
    assert response.status_code == 400, response.content
    assert "REGISTRY_REQUIRE_OWNERS is on and you belong to no team" in response.json()["detail"]
    response = su.put("/schemaGroups/nobody", {"owners": {"team-audit": "reader"}}, format="json")
    assert response.status_code == 400, response.content
    assert "at least one team must hold the role owner" in response.json()["detail"]
    assert snapshot() == before
    assert su.put("/schemaGroups/nobody", {"owners": {"team-audit": "owner"}}, format="json").status_code == 201


def test_with_owners_required_no_change_leaves_a_group_without_an_owner(teams, settings):
    settings.REGISTRY_REQUIRE_OWNERS = True
    owner = teams["owner_a"]
    before = snapshot()
    for body in ({"owners": {"team-a": "editor"}}, {"description": "owners dropped"}, {"owners": {}}):
        response = owner.put("/schemaGroups/A", body, format="json")
        assert response.status_code == 400, response.content
        assert (
            "would leave the group without one" in response.json()["detail"]
            or "role owner" in response.json()["detail"]
        )
        assert snapshot() == before
    response = owner.generic(
        "PATCH",
        "/registry/schemagroups/A",
        _json({"owners": {"team-a-dev": "editor"}}),
        content_type="application/json",
    )
    assert response.status_code == 400, response.content
    assert snapshot() == before
