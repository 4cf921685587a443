"""The read check's one query (registry/access/read_check.py): with public reads off, a read below a group costs one query
more than a public read, whether the group has owners or not (the group's owners and the caller's teams together),
and decides as the rule does: tested through HTTP, with the queries counted."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from registry.access.read_check import owners_and_teams

DOC = b'{"type": "object"}'


@pytest.fixture
def schemas(teams, su):
    for gid in "ABC":
        response = su.generic(
            "PUT",
            f"/schemaGroups/{gid}/schemas/s",
            DOC,
            content_type="application/json",
            headers={"Registry-format": "JsonSchema/draft-07"},
        )
        assert response.status_code == 201, response.content
    return teams


def queries(client, path) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as captured:
        status = client.get(path).status_code
    return status, len(captured)


def test_a_read_with_public_reads_off_costs_one_query_whether_the_group_has_owners_or_not(schemas, settings):
    settings.REGISTRY_FAST_READS = False  # the whole way, as with public reads off
    path = "/schemaGroups/{}/schemas/s"
    _status, public = queries(schemas["reader_a"], path.format("C"))
    settings.REGISTRY_PUBLIC_READ = False
    assert queries(schemas["reader_a"], path.format("C")) == (200, public + 1)  # no owners
    assert queries(schemas["reader_a"], path.format("A")) == (200, public + 1)  # a role there
    assert queries(schemas["owner_b"], path.format("A"))[0] == 403
    assert queries(schemas["admin"], path.format("B")) == (200, public + 1)
    assert queries(schemas["reader_a"], path.format("nope"))[0] == 404


def test_the_statement_answers_the_owners_and_the_teams(schemas):
    user = schemas.users["reader_a"]
    owners, teams = owners_and_teams("schemaGroups", "A", user.pk)
    assert owners == {"team-a": "owner", "team-a-dev": "editor", "team-audit": "reader"}
    assert teams == {"team-audit"}
    assert owners_and_teams("schemaGroups", "C", user.pk) == ({}, frozenset({"team-audit"}))
    assert owners_and_teams("schemaGroups", "nope", user.pk) == (None, frozenset({"team-audit"}))
    assert owners_and_teams("schemaGroups", "B") == ({"team-b": "owner"}, None)
