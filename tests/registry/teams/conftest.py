"""Two teams' groups and their people (issue 27): the schema groups `A` and `B`, each with owners; `C` has none.

- team-a: owner of A; team-a-dev: editor of A; team-audit: reader of A; team-b: owner of B
- users: `owner_a`, `editor_a`, `reader_a`, `owner_b` (one team each), `outsider` (the role "Registry editors":
  every model permission, no team), `admin` (the team "Registry admins")
Each user's client authenticates by token (the real path), as `people["editor_a"]`.
- `private`: B's secret schema group and definition group (ids no body may hold when hidden), an open group, and public
  reads off (the tests of reads: test_reads.py and after).
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group as Team
from django.contrib.auth.models import Permission

from registry.access.roles import EDITORS, ensure_roles
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


# distinctive ids, so that a body that holds any of them leaked it
SECRET_GROUP, SECRET_SCHEMA, SECRET_DEF_GROUP = "secret-of-b-7f3", "hidden-schema-b-91", "hidden-defs-b-44"
OPEN_GROUP = "open-to-all-52"
SECRETS = (SECRET_GROUP, SECRET_SCHEMA, SECRET_DEF_GROUP)
DOC = b'{"type": "object", "title": "hidden-title-b-13"}'
CEREG_JSON, CEREG_YAML = "application/cloudevents-registry+json", "application/cloudevents-registry+yaml"


@pytest.fixture
def private(teams, su, settings):
    """B's secret schema group (a schema) and definition group, an open group, and public reads off."""
    owners = {"owners": {"team-b": "owner"}}
    assert su.put(f"/schemaGroups/{SECRET_GROUP}", owners, format="json").status_code == 201
    response = su.generic(
        "PUT",
        f"/schemaGroups/{SECRET_GROUP}/schemas/{SECRET_SCHEMA}",
        DOC,
        content_type="application/json",
        headers={"Registry-format": "JsonSchema/draft-07"},
    )
    assert response.status_code == 201, response.content
    body = {"format": "CloudEvents/1.0", **owners}
    assert su.put(f"/definitionGroups/{SECRET_DEF_GROUP}", body, format="json").status_code == 201
    assert su.put(f"/schemaGroups/{OPEN_GROUP}", {}, format="json").status_code == 201
    settings.REGISTRY_PUBLIC_READ = False
    return teams


def text(response) -> str:
    assert response.status_code == 200, response.content[:500]
    return b"".join(response.streaming_content).decode() if response.streaming else response.content.decode()


def assert_hidden(body: str) -> None:
    for secret in SECRETS + ("hidden-title-b-13",):
        assert secret not in body, (secret, body[:2000])


def assert_shown(body: str) -> None:
    for secret in SECRETS:
        assert secret in body, (secret, body[:2000])
