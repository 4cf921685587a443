"""Two teams' groups and their people (issue 27): the schema groups `A` and `B`, each with owners; `C` has none.

- team-a: owner of A; team-a-dev: editor of A; team-audit: reader of A; team-b: owner of B
- users: `owner_a`, `editor_a`, `reader_a`, `owner_b` (one team each), `outsider` (the role "Registry editors":
  every model permission, no team), `admin` (the team "Registry admins")
Each user's client authenticates by token (the real path), as `people["editor_a"]`.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group as Team
from django.contrib.auth.models import Permission

from registry.roles import EDITORS, ensure_roles
from tests.conftest import token_client
from tests.sync.test_sync import remote  # noqa: F401 - the fixture: another instance of this server (a sync's remote)

OWNERS_A = {"team-a": "owner", "team-a-dev": "editor", "team-audit": "reader"}
OWNERS_B = {"team-b": "owner"}
MEMBERS = {
    "owner_a": "team-a",
    "editor_a": "team-a-dev",
    "reader_a": "team-audit",
    "owner_b": "team-b",
    "outsider": EDITORS,
    "admin": "Registry admins",
}


class People(dict):
    """name -> token client; `.users[name]` -> the user."""

    users: dict


@pytest.fixture
def people(db, django_user_model) -> People:
    ensure_roles(Team, Permission)  # a transactional test before may have flushed what the migration created
    out = People()
    out.users = {}
    for name, team in MEMBERS.items():
        user = django_user_model.objects.create_user(name, password="pw", is_staff=True)
        user.groups.add(Team.objects.get_or_create(name=team)[0])
        out.users[name] = user
        out[name] = token_client(user)
    return out


@pytest.fixture
def teams(people, su):
    """The groups A (OWNERS_A), B (OWNERS_B) and C (no owners), made by the superuser through the 0.5 binding."""
    for gid, owners in (("A", OWNERS_A), ("B", OWNERS_B), ("C", None)):
        body = {"owners": owners} if owners else {}
        response = su.put(f"/schemaGroups/{gid}", body, format="json")
        assert response.status_code == 201, response.content
    return people
