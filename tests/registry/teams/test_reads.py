"""With public reads off, the reads of many groups keep to what the caller may read (issue 27, docs/teams.md): the
collections of groups, `GET /` and `GET /?inline`, the exports (0.5 with the cereg media types, 1.0 `/registry/export`
and `/registry/?inline`), the older bindings' lists. A group with owners is left out, with everything it holds, for
a caller whose teams hold no role there; registry admins and the group's teams see it; groups without owners are seen
by every signed-in user. The whole-registry answers are kept rendered per worker and shared: a caller must never get
one rendered for a caller who sees more (nor its tag)."""

import json

import pytest

from tests.bindings.every_binding.adapters import SCHEMA_REGISTRY

from .conftest import (
    CEREG_JSON,
    CEREG_YAML,
    DOC,
    OPEN_GROUP,
    SECRET_DEF_GROUP,
    SECRET_GROUP,
    SECRET_SCHEMA,
    assert_hidden,
    assert_shown,
    text,
)

WHOLE = [
    ("/?inline", {}),
    ("/", {"HTTP_ACCEPT": CEREG_JSON, "QUERY_STRING": "inline"}),
    ("/?inline", {"HTTP_ACCEPT": CEREG_JSON}),
    ("/?inline", {"HTTP_ACCEPT": CEREG_YAML}),
    ("/registry/export", {}),
    ("/registry/?inline", {}),
    ("/registry?inline=*", {}),
]


@pytest.mark.parametrize(("path", "headers"), WHOLE, ids=[p + " " + str(h.get("HTTP_ACCEPT", "")) for p, h in WHOLE])
def test_whole_registry_answers_are_kept_per_what_the_caller_may_read(private, path, headers):
    """The admin reads first (the answer is kept), then a caller in no team and a reader of A: neither gets B's
    groups, and neither gets the admin's tag; B's owner does; a second read of each is served as kept."""
    admin = text(private["admin"].get(path, **headers))
    assert_shown(admin)
    assert OPEN_GROUP in admin
    for name in ("outsider", "reader_a", "outsider"):
        body = text(private[name].get(path, **headers))
        assert_hidden(body)
        assert OPEN_GROUP in body
    assert_shown(text(private["owner_b"].get(path, **headers)))
    tag = private["admin"].get(path, **headers)["ETag"]
    response = private["outsider"].get(path, HTTP_IF_NONE_MATCH=tag, **headers)
    assert response.status_code == 200 and response["ETag"] != tag
    assert_hidden(text(response))


def test_a_new_team_member_sees_the_group_at_once(private):
    """No write moves the change marker when a user joins a team: the kept answers are keyed by what each shows."""
    from django.contrib.auth.models import Group as Team

    assert_hidden(text(private["outsider"].get("/?inline")))
    assert_hidden(text(private["outsider"].get("/registry/export")))
    private.users["outsider"].groups.add(Team.objects.get(name="team-b"))
    assert_shown(text(private["outsider"].get("/?inline")))
    assert_shown(text(private["outsider"].get("/registry/export")))


def test_the_registry_counts_only_readable_groups(private):
    assert private["outsider"].get("/").json()["schemaGroupsCount"] == 2  # C and the open group
    assert private["admin"].get("/").json()["schemaGroupsCount"] == 5
    assert private["outsider"].get("/registry").json()["schemagroupscount"] == 2
    assert private["owner_b"].get("/registry").json()["schemagroupscount"] == 4  # B, its secret group, C, open
    assert private["admin"].get("/registry").json()["schemagroupscount"] == 5


COLLECTIONS = [
    "/schemaGroups",
    "/schemaGroups?inline",
    "/definitionGroups",
    "/registry/schemagroups",
    "/registry/schemagroups?inline=*",
    "/registry/messagegroups",
    "/schemaregistry/schemagroups",
    "/messagecatalog",
]


@pytest.mark.parametrize("path", COLLECTIONS)
def test_collections_of_groups_list_only_readable_groups(private, path):
    for name in ("outsider", "reader_a", "owner_a"):
        body = text(private[name].get(path))
        assert_hidden(body)
    secret = SECRET_DEF_GROUP if "definition" in path or "message" in path else SECRET_GROUP
    assert secret in text(private["owner_b"].get(path))
    assert secret in text(private["admin"].get(path))
    assert OPEN_GROUP in text(private["outsider"].get("/schemaGroups"))


def test_paging_counts_only_readable_groups(private):
    response = private["outsider"].get("/schemaGroups?limit=1")
    assert list(response.json()) == ["C"]
    link = response["Link"]
    assert "rel=next" in link and "count=2" in link, link
    rest = private["outsider"].get(link.split(";")[0].strip("<>").replace("http://testserver", ""))
    assert list(rest.json()) == [OPEN_GROUP]
    assert "rel=next" not in rest.get("Link", "")


def test_a_filter_finds_no_hidden_group(private):
    for path in ("/schemaGroups?filter=owners.team-b=*", "/registry/schemagroups?filter=owners.team-b=*"):
        assert private["outsider"].get(path).json() == {}
        assert set(private["owner_b"].get(path).json()) == {"B", SECRET_GROUP}


def test_lookups_by_uri_are_refused_in_a_hidden_group(private):
    """The older bindings' lookup by URI names the group in its query, not its path: its group's rule applies."""
    found = private["owner_b"].get(SCHEMA_REGISTRY.version(SECRET_GROUP, SECRET_SCHEMA, "1"))
    assert found.status_code == 200, found.content
    uri = found["uri"]
    assert private["owner_b"].get("/schemaregistry/schema", {"uri": uri}).status_code == 200
    response = private["outsider"].get("/schemaregistry/schema", {"uri": uri})
    assert response.status_code == 403, response.content
    assert "hidden-title-b-13" not in response.content.decode()


def test_public_reads_show_everything(private, settings, anon):
    settings.REGISTRY_PUBLIC_READ = True
    assert_shown(text(anon.get("/?inline")))
    assert_shown(text(private["outsider"].get("/registry/export")))
    assert SECRET_GROUP in json.dumps(private["outsider"].get("/schemaGroups").json())


CHECKS = [
    ("POST", f"/schemaGroups/{SECRET_GROUP}/schemas/{SECRET_SCHEMA}/compatibility", DOC),
    ("GET", f"/schemaGroups/{SECRET_GROUP}/schemas/{SECRET_SCHEMA}/versions/1/diff/1", b""),
    ("POST", f"/definitionGroups/{SECRET_DEF_GROUP}/validate", b'{"specversion": "1.0", "type": "t"}'),
    ("POST", f"/definitionGroups/{SECRET_DEF_GROUP}/definitions/d/validate", b'{"specversion": "1.0"}'),
    ("POST", f"/registry/messagegroups/{SECRET_DEF_GROUP}/validate", b'{"specversion": "1.0", "type": "t"}'),
    ("POST", f"/registry/messagegroups/{SECRET_DEF_GROUP}/messages/d/validate", b'{"specversion": "1.0"}'),
]


@pytest.mark.parametrize(("method", "path", "body"), CHECKS, ids=[c[1].split("/")[-1] for c in CHECKS])
def test_checks_that_only_read_need_a_role_in_a_hidden_group(private, method, path, body):
    """The compatibility dry run, the diff and the message validations read the group: 403 naming it, as a GET."""
    headers = {"Registry-format": "JsonSchema/draft-07"} if "compatibility" in path else {}
    response = private["outsider"].generic(method, path, body, content_type="application/json", headers=headers)
    assert response.status_code == 403, response.content
    assert "the role reader in the group" in response.content.decode()
    allowed = private["owner_b"].generic(method, path, body, content_type="application/json", headers=headers)
    assert allowed.status_code != 403, allowed.content


def test_the_message_catalog_group_named_as_its_lookup_is_read_under_its_rule(private, su):
    """`/messagecatalog/messagedefinition` without `?uri` is the group of that id: its rule applies as to any group
    (403 for a caller with no role there), and its owners' team reads it."""
    body = {"format": "CloudEvents/1.0", "description": "hidden-title-b-13", "owners": {"team-b": "owner"}}
    assert su.put("/definitionGroups/messagedefinition", body, format="json").status_code == 201
    for path in ("/messagecatalog/messagedefinition", "/messagecatalog/messagedefinition/messagedefinitions"):
        response = private["outsider"].get(path)
        assert response.status_code == 403, (path, response.content)
        assert "hidden-title-b-13" not in response.content.decode()
        assert private["owner_b"].get(path).status_code == 200
