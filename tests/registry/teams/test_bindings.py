"""Teams own their groups through both xRegistry bindings and the older Schema Registry binding (issue 27,
CONTRACT section 17): a team's editor creates, changes and deletes in its group, with no model permission of its
own, and is refused in another team's group with 403 naming that group and the role needed, nothing written."""

from urllib.parse import urlencode

import pytest

from registry.models import Resource, Version
from tests.bindings.every_binding.adapters import BINDINGS
from tests.helpers import snapshot

from .conftest import OWNERS_A

DOC = b'{"type": "object"}'
FORMAT = "JsonSchema/draft-07"


@pytest.fixture(params=BINDINGS, ids=[b.name for b in BINDINGS])
def binding(request):
    return request.param


def lifecycle(binding, client, gid):
    """create a schema, add a version, change it in place, delete the version, delete the schema: the statuses"""
    headers = {f"{binding.header_prefix}-format": FORMAT}
    return [
        binding.create_schema(client, gid, "s", DOC, FORMAT).status_code,
        binding.send(client, "PUT", binding.version(gid, "s", "2"), DOC, **headers).status_code,
        binding.send(client, "PUT", binding.version(gid, "s", "2"), DOC, **headers).status_code,
        binding.send(client, "DELETE", binding.version(gid, "s", "2")).status_code,
        binding.send(client, "DELETE", binding.schema(gid, "s")).status_code,
    ]


def assert_refused(binding, response, group: str, role: str) -> dict:
    body = binding.assert_problem(response, 403, "forbidden")
    assert f"the role {role} in the group" in body["detail"], body
    assert f"{binding.groups}/{group}" in body["detail"], body
    return body


def test_an_editor_writes_in_its_team_s_group_without_model_permissions(binding, teams):
    statuses = lifecycle(binding, teams["editor_a"], "A")
    assert statuses[:3] == [201, 201, 200] and all(s in (200, 204) for s in statuses[3:]), statuses
    assert not Resource.objects.filter(group__gid="A").exists()


def test_an_editor_is_refused_in_another_team_s_group_and_nothing_is_written(binding, teams, su):
    editor = teams["editor_a"]
    before = snapshot()
    assert_refused(binding, binding.create_schema(editor, "B", "s", DOC, FORMAT), "B", "editor")
    assert snapshot() == before
    assert binding.create_schema(su, "B", "s", DOC, FORMAT).status_code == 201
    headers = {f"{binding.header_prefix}-format": FORMAT}
    assert binding.send(su, "PUT", binding.version("B", "s", "2"), DOC, **headers).status_code == 201
    before = snapshot()
    for method, path in (
        ("PUT", binding.version("B", "s", "3")),
        ("PUT", binding.version("B", "s", "1")),
        ("PUT", binding.schema("B", "s")),
        ("DELETE", binding.version("B", "s", "1")),
        ("DELETE", binding.schema("B", "s")),
        ("DELETE", binding.group("B")),
    ):
        response = binding.send(editor, method, path, DOC if method == "PUT" else b"", **headers)
        assert_refused(binding, response, "B", "owner" if path == binding.group("B") else "editor")
        assert snapshot() == before, (method, path)


def test_a_reader_reads_but_does_not_write(binding, teams):
    before = snapshot()
    assert_refused(binding, binding.create_schema(teams["reader_a"], "A", "s", DOC, FORMAT), "A", "editor")
    assert snapshot() == before
    assert teams["reader_a"].get(binding.group("A")).status_code == 200


def test_model_permissions_do_not_open_a_group_with_owners(binding, teams):
    outsider = teams["outsider"]  # "Registry editors": every model permission, no team
    before = snapshot()
    assert_refused(binding, binding.create_schema(outsider, "A", "s", DOC, FORMAT), "A", "editor")
    assert snapshot() == before
    statuses = lifecycle(binding, outsider, "C")  # a group without owners: as before teams
    assert statuses[:3] == [201, 201, 200], statuses


def test_registry_admins_write_everywhere(binding, teams):
    statuses = lifecycle(binding, teams["admin"], "B")
    assert statuses[:3] == [201, 201, 200], statuses


def test_owners_change_owners_and_the_group_editors_cannot(binding, teams):
    editor, owner = teams["editor_a"], teams["owner_a"]
    owners = "owners"
    before = snapshot()
    for body in ({owners: {"team-a-dev": "owner"}}, {"description": "mine now", owners: OWNERS_A}):
        response = binding.send(editor, "PUT", binding.group("A"), body)
        assert_refused(binding, response, "A", "owner")
        assert snapshot() == before
    response = binding.send(owner, "PUT", binding.group("A"), {owners: {"team-a": "owner", "team-b": "editor"}})
    assert response.status_code == 200, response.content
    assert binding.send(owner, "GET", binding.group("A")).json()[owners] == {"team-a": "owner", "team-b": "editor"}
    # team-b is an editor of A now, team-a-dev no longer is
    assert binding.create_schema(teams["owner_b"], "A", "s", DOC, FORMAT).status_code == 201
    assert_refused(binding, binding.create_schema(editor, "A", "t", DOC, FORMAT), "A", "editor")


def test_only_owners_delete_their_group_and_force_deletes(binding, teams, su):
    assert binding.create_schema(teams["editor_a"], "A", "s", DOC, FORMAT).status_code == 201
    before = snapshot()
    assert_refused(binding, binding.send(teams["editor_a"], "DELETE", binding.group("A")), "A", "owner")
    assert snapshot() == before
    assert binding.send(teams["owner_a"], "DELETE", binding.group("A")).status_code in (200, 204)


def test_only_registry_admins_set_the_first_owners_of_a_group_without_owners(binding, teams, su):
    before = snapshot()
    response = binding.send(teams["outsider"], "PUT", binding.group("C"), {"owners": {"team-b": "owner"}})
    body = binding.assert_problem(response, 403, "forbidden")
    assert "only registry admins" in body["detail"]
    assert snapshot() == before
    assert binding.send(teams["outsider"], "PUT", binding.group("C"), {"description": "d"}).status_code == 200
    response = binding.send(teams["admin"], "PUT", binding.group("C"), {"owners": {"team-b": "owner"}})
    assert response.status_code == 200, response.content


def test_a_creator_names_the_owners_of_a_new_group(binding, teams):
    response = binding.send(teams["outsider"], "PUT", binding.group("D"), {"owners": {"team-b": "owner"}})
    assert response.status_code == 201, response.content
    assert_refused(binding, binding.create_schema(teams["outsider"], "D", "s", DOC, FORMAT), "D", "editor")


def test_a_filter_on_owners(binding, teams):
    response = binding.send(teams["outsider"], "GET", f"{binding.root}{binding.groups}?filter=owners.team-a=*")
    assert response.status_code == 200, response.content
    body = response.json()
    ids = set(body) if isinstance(body, dict) else {g["id"] for g in body}
    assert ids == {"A"}, body


def test_filters_on_owners_in_dot_notation(binding, teams, su):
    """core/spec.md's filter expressions over the owners map: a role, any role (`=*`), none (`=null`), not a role
    (`!=`, `<>`), and team names that hold dots or spaces as quoted keys (`owners['team.x']`)."""
    from django.contrib.auth.models import Group as Team

    Team.objects.create(name="team.dots")
    Team.objects.create(name="Team Space")
    body = {"owners": {"team.dots": "owner", "Team Space": "reader"}}
    assert binding.send(su, "PUT", binding.group("D"), body).status_code == 201

    def ids(expression):
        response = binding.send(
            teams["outsider"], "GET", f"{binding.root}{binding.groups}?{urlencode({'filter': expression})}"
        )
        assert response.status_code == 200, (expression, response.content)
        return set(response.json())

    assert ids("owners.team-a=*") == {"A"}
    assert ids("owners.team-a=owner") == ids("owners.team-a=OWNER") == {"A"}
    assert ids("owners.team-a-dev=editor") == {"A"} and ids("owners.team-a-dev=owner") == set()
    assert ids("owners.team-a=null") == {"B", "C", "D"}
    assert ids("owners.team-a!=owner") == ids("owners.team-a<>owner") == {"B", "C", "D"}
    assert ids("owners.team-b!=null") == {"B"}
    assert ids("owners['team.dots']=*") == ids('owners["team.dots"]=owner') == {"D"}
    assert ids("owners.team.dots=*") == set()  # the key `team`, then `dots`
    assert ids('owners["Team Space"]=reader') == {"D"}
    assert ids("owners=null") == {"C"}
    for bad in ("owners.team-a", "owners.Team Space=*", "owners['x=*", "=x"):
        response = binding.send(
            teams["outsider"], "GET", f"{binding.root}{binding.groups}?{urlencode({'filter': bad})}"
        )
        assert response.status_code == 400, (bad, response.content)
        kind = response.json()["type"]
        assert kind.endswith("#bad_filter" if binding.name == "1.0" else ":bad-request"), (bad, kind)


def test_force_deletes_need_the_owner_role(binding, teams, su):
    """A definition of C references a schema of A: deleting the schema past that reference is an owner's."""
    assert binding.create_schema(su, "A", "s", DOC, FORMAT).status_code == 201
    su.put("/definitionGroups/refs", {"format": "CloudEvents/1.0"}, format="json")
    definition = {
        "format": "CloudEvents/1.0",
        "metadata": {"attributes": {"type": {"value": "t"}}},
        "schemaurl": "#/schemaGroups/A/schemas/s",
        "schemaformat": FORMAT,
    }
    response = su.put("/definitionGroups/refs/definitions/d", definition, format="json")
    assert response.status_code == 201, response.content
    before = snapshot()
    path = binding.schema("A", "s") + "?force=true"
    assert_refused(binding, binding.send(teams["editor_a"], "DELETE", path), "A", "owner")
    assert snapshot() == before
    assert binding.send(teams["owner_a"], "DELETE", path).status_code in (200, 204)
    assert not Version.objects.filter(resource__group__gid="A").exists()


def test_with_public_reads_off_a_group_with_owners_is_read_by_its_teams(binding, teams, su, settings):
    assert binding.create_schema(su, "A", "s", DOC, FORMAT).status_code == 201
    settings.REGISTRY_PUBLIC_READ = False
    for name in ("reader_a", "editor_a", "owner_a", "admin"):
        for path in (binding.group("A"), binding.schema("A", "s"), binding.version("A", "s", "1")):
            assert teams[name].get(path).status_code == 200, (name, path)
    for name in ("owner_b", "outsider"):
        response = teams[name].get(binding.schema("A", "s"))
        body = binding.assert_problem(response, 403, "forbidden")
        assert "the role reader in the group" in body["detail"], body
    assert teams["owner_b"].get(binding.group("C")).status_code == 200  # no owners: every signed-in user
    settings.REGISTRY_PUBLIC_READ = True
    assert teams["owner_b"].get(binding.schema("A", "s")).status_code == 200
