"""Issue 37 (the next instance of "every door, one rule"): a group's owners name teams by name, so a team's name is
part of every group it holds a role in. Renaming a team in the admin (Authentication and Authorization > Groups)
left the groups naming the old name (its members lost their roles, and whoever made a team of the old name took the
groups over); deleting it did the same. Now:

- a rename carries the new name into the owners of every group that names the team, through the registry's services
  as the admin who renames it (each group's update is authorized, audited and sends its change event, all in the
  rename's transaction); a group the renamer may not change the owners of refuses the whole rename, naming it;
- a team that groups' owners name is not deleted (the delete page and the bulk delete list the groups);
- the registry admins' team (REGISTRY_ADMIN_TEAM) is neither renamed nor deleted;
- a new team (or a rename) may not take a name that groups' owners still name while no team has it (a team deleted
  before) unless a registry admin does it, whom the admin then tells which groups the team holds roles in.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group as Team
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from registry.models import AuditRecord, Group, OutboxEvent
from tests.helpers import post_schema, snapshot
from tests.registry.teams.conftest import OWNERS_B


def admin_page(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def alice(superuser) -> Client:
    return admin_page(superuser)


@pytest.fixture
def user_admin(django_user_model) -> Client:
    """A user who manages teams (every auth.*_group permission) and is no registry admin: no role in any group."""
    user = django_user_model.objects.create_user("ursula", password="pw", is_staff=True)
    for action in ("add", "change", "delete", "view"):
        user.user_permissions.add(Permission.objects.get(codename=f"{action}_group", content_type__app_label="auth"))
    return admin_page(user)


def rename(client, team: str, new: str):
    pk = Team.objects.get(name=team).pk
    return client.post(reverse("admin:auth_group_change", args=[pk]), {"name": new, "permissions": []})


def delete(client, team: str):
    pk = Team.objects.get(name=team).pk
    return client.post(reverse("admin:auth_group_delete", args=[pk]), {"post": "yes"})


def owners(gid: str) -> dict:
    return Group.objects.get(gid=gid).extensions.get("owners")


def put_schema(client, gid: str, sid: str):
    return post_schema(client, gid, sid, expect=None)


def test_a_rename_carries_into_the_owners_through_the_services(teams, alice):
    epochs = {g.gid: g.epoch for g in Group.objects.all()}
    events = OutboxEvent.objects.count()
    response = rename(alice, "team-a", "team-payments")
    assert response.status_code == 302, response.content.decode()[:2000]
    assert owners("A") == {"team-payments": "owner", "team-a-dev": "editor", "team-audit": "reader"}
    assert owners("B") == OWNERS_B and owners("C") is None
    assert {g.gid: g.epoch for g in Group.objects.all()} == {**epochs, "A": epochs["A"] + 1}
    assert OutboxEvent.objects.count() == events + 1
    row = AuditRecord.objects.filter(path="/schemaGroups/A").latest("id")
    assert (row.actor, row.authtype, row.door, row.operation) == ("alice", "user", "admin", "update")
    page = alice.get(response["Location"]).content.decode()
    assert "/schemaGroups/A" in page, page
    # the team's members keep their role; the group answers with the new name through the bindings
    assert put_schema(teams["owner_a"], "A", "kept").status_code == 201
    assert teams["owner_a"].get("/schemaGroups/A").json()["owners"]["team-payments"] == "owner"
    # a new team of the old name inherits nothing
    response = alice.post(reverse("admin:auth_group_add"), {"name": "team-a", "permissions": []})
    assert response.status_code == 302, response.content.decode()[:2000]
    teams.users["owner_b"].groups.add(Team.objects.get(name="team-a"))
    assert put_schema(teams["owner_b"], "A", "taken").status_code == 403


def test_a_rename_the_renamer_may_not_make_is_refused_whole(teams, user_admin):
    before = snapshot()
    response = rename(user_admin, "team-a", "team-payments")
    assert response.status_code == 200
    page = response.content.decode()
    assert "/schemaGroups/A" in page and "errorlist" in page, page
    assert Team.objects.filter(name="team-a").exists() and not Team.objects.filter(name="team-payments").exists()
    assert snapshot() == before
    # a team no group names is renamed as before; so is one whose groups the renamer owns (their team's owner)
    Team.objects.create(name="spare")
    assert rename(user_admin, "spare", "spare-2").status_code == 302
    assert Team.objects.filter(name="spare-2").exists() and snapshot() == before
    owner = teams.users["owner_a"]
    owner.user_permissions.add(*Permission.objects.filter(content_type__app_label="auth", codename__endswith="_group"))
    assert rename(admin_page(owner), "team-a", "team-payments").status_code == 302
    assert owners("A")["team-payments"] == "owner"
    row = AuditRecord.objects.filter(path="/schemaGroups/A").latest("id")
    assert (row.actor, row.door, row.operation) == ("owner_a", "admin", "update")


def test_a_team_named_in_owners_is_not_deleted(teams, alice, su):
    Team.objects.create(name="spare")
    before = snapshot()
    page = alice.get(reverse("admin:auth_group_delete", args=[Team.objects.get(name="team-a").pk])).content.decode()
    assert "/schemaGroups/A" in page and "Cannot delete" in page, page
    response = delete(alice, "team-a")
    assert Team.objects.filter(name="team-a").exists(), response.status_code
    # the bulk action deletes nothing of a selection holding such a team
    selected = [Team.objects.get(name=name).pk for name in ("team-a", "spare")]
    response = alice.post(
        reverse("admin:auth_group_changelist"),
        {"action": "delete_selected", "_selected_action": selected, "post": "yes"},
    )
    assert "/schemaGroups/A" in response.content.decode()
    assert Team.objects.filter(name__in=["team-a", "spare"]).count() == 2
    assert snapshot() == before
    # once no group names it, it is deleted; a team made again with its name holds nothing
    assert su.put("/schemaGroups/A", {"owners": {"team-a-dev": "owner"}}, format="json").status_code == 200
    assert delete(alice, "team-a").status_code == 302
    assert not Team.objects.filter(name="team-a").exists()
    assert alice.post(reverse("admin:auth_group_add"), {"name": "team-a", "permissions": []}).status_code == 302
    teams.users["owner_b"].groups.add(Team.objects.get(name="team-a"))
    assert put_schema(teams["owner_b"], "A", "taken").status_code == 403


def test_the_registry_admins_team_keeps_its_name(teams, alice):
    before = snapshot()
    response = rename(alice, "Registry admins", "Former admins")
    assert response.status_code == 200 and "REGISTRY_ADMIN_TEAM" in response.content.decode()
    response = delete(alice, "Registry admins")
    assert Team.objects.filter(name="Registry admins").exists(), response.status_code
    assert snapshot() == before


def test_a_name_groups_still_name_is_taken_only_by_a_registry_admin(teams, alice, user_admin, su):
    assert su.put("/schemaGroups/G", {"owners": {"team-b": "owner"}}, format="json").status_code == 201
    Team.objects.create(name="team-ghost")
    assert su.put("/schemaGroups/G", {"owners": {"team-ghost": "owner"}}, format="json").status_code == 200
    Team.objects.filter(name="team-ghost").delete()  # as before this check: the groups name a team no more
    before = snapshot()
    response = user_admin.post(reverse("admin:auth_group_add"), {"name": "team-ghost", "permissions": []})
    assert response.status_code == 200 and "/schemaGroups/G" in response.content.decode()
    Team.objects.create(name="other")
    response = rename(user_admin, "other", "team-ghost")
    assert response.status_code == 200 and "/schemaGroups/G" in response.content.decode()
    assert not Team.objects.filter(name="team-ghost").exists() and snapshot() == before
    response = alice.post(reverse("admin:auth_group_add"), {"name": "team-ghost", "permissions": []}, follow=True)
    assert Team.objects.filter(name="team-ghost").exists()
    assert "/schemaGroups/G" in response.content.decode()  # told which groups it holds roles in
