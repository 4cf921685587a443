"""Issue 37 item 11: an attribute name that differs from one the entity knows only by case is refused in every
binding, naming it and the known name, and nothing is written. `OWNERS` beside a group's `owners` was stored as an
unrelated extension (a case-insensitive header of both bindings, and no owners at all).

What is known depends on the binding: the 0.5-wip binding, the older ones and 0.5 documents know the stored names
(`owners`, `createdOn`, `schemaURI`, the type's own `compatibility` or `format`, the collections) and the 1.0 names of
the common attributes (`createdat`, `labels`: shown by the 1.0 binding beside the extension); the 1.0 binding knows
its model's names (`createdat`, `schemagroupid`, `contenttype`, `envelope`), `owners` and its collections, and a 1.0
client sending them in 1.0 spelling writes as before."""

import json

import pytest

from registry.models import Group
from tests.helpers import (
    CE_FORMAT,
    definition,
    make_definition_group,
    make_group,
    post_schema,
    send,
    send_json,
    snapshot,
)

pytestmark = pytest.mark.django_db


def refused(response, name: str, known: str, status: int = 400) -> None:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/problem+json"), response["Content-Type"]
    text = json.dumps(response.json())
    assert f"{name} differs from the attribute {known}" in text and "only by case" in text, text


@pytest.fixture
def team(db):
    from django.contrib.auth.models import Group as Team

    return Team.objects.create(name="team-a")


# 0.5-wip binding: groups ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("method", "path", "body", "name", "known"),
    [
        ("POST", "/schemaGroups", {"id": "g2", "OWNERS": {"team-a": "owner"}}, "OWNERS", "owners"),
        ("PUT", "/schemaGroups/g2", {"Owners": {"team-a": "owner"}}, "Owners", "owners"),
        ("PUT", "/schemaGroups/g1", {"OWNERS": {"team-a": "owner"}}, "OWNERS", "owners"),
        ("PUT", "/schemaGroups/g2", {"Compatibility": "none"}, "Compatibility", "compatibility"),
        ("PUT", "/schemaGroups/g2", {"Schemas": {}}, "Schemas", "schemas"),
        ("PUT", "/schemaGroups/g2", {"CreatedAt": "2020-01-01T00:00:00Z"}, "CreatedAt", "createdat"),
        ("PUT", "/schemaGroups/g2", {"LABELS": {"a": "b"}}, "LABELS", "labels"),
        ("PUT", "/definitionGroups/dg2", {"Format": CE_FORMAT}, "Format", "format"),
        ("PUT", "/endpoints/e2", {"usage": "producer", "Channel": "orders"}, "Channel", "channel"),
        # an attribute an app registers for the type (confluent/attributes.py)
        ("PUT", "/schemaGroups/g2", {"ConfluentMode": "READONLY"}, "ConfluentMode", "confluentmode"),
    ],
)
def test_a_05_group_is_refused(su, team, method, path, body, name, known):
    make_group(su)
    before = snapshot()
    refused(send_json(su, method, path, body), name, known)
    assert snapshot() == before


def test_the_owners_spelled_right_still_name_the_owners(su, team):
    make_group(su, "g2", owners={"team-a": "owner"}, ownersNote="kept", team="payments")
    assert Group.objects.get(gid="g2").extensions == {
        "owners": {"team-a": "owner"},
        "ownersNote": "kept",
        "team": "payments",
    }


# 0.5-wip binding: resources and versions ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "known"),
    [
        ("Format", "format"),
        ("SchemaURI", "schemaURI"),
        ("schemauri", "schemaURI"),
        ("Compatibility", "compatibility"),
        ("DefaultVersionId", "defaultversionid"),
        ("VersionsCount", "versionsCount"),
        ("Xid", "xid"),
        ("ConfluentMode", "confluentmode"),
    ],
)
def test_a_05_version_is_refused(su, name, known):
    make_group(su)
    post_schema(su)
    before = snapshot()
    body = {name: "x", "format": "Custom/1"}
    refused(send_json(su, "PUT", "/schemaGroups/g1/schemas/s1/versions/1?meta", body), name, known)
    assert snapshot() == before


def test_a_definition_is_refused(su):
    make_definition_group(su)
    before = snapshot()
    response = send_json(su, "PUT", "/definitionGroups/dg1/definitions/d1", {**definition(), "Format": CE_FORMAT})
    refused(response, "Format", "format")
    assert snapshot() == before


# the older bindings ------------------------------------------------------------------------------------------------
def test_the_older_bindings_refuse_them(su, team):
    before = snapshot()
    refused(
        send_json(su, "PUT", "/schemaregistry/schemagroups/g2", {"OWNERS": {"team-a": "owner"}}), "OWNERS", "owners"
    )
    body = {"format": CE_FORMAT, "Owners": {"team-a": "owner"}}
    refused(send_json(su, "PUT", "/messagecatalog/dg2", body), "Owners", "owners")
    assert snapshot() == before


# 0.5 documents ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("document", "name", "known"),
    [
        ({"schemaGroups": {"g3": {"OWNERS": {"team-a": "owner"}}}}, "OWNERS", "owners"),
        (
            {
                "schemaGroups": {
                    "g3": {
                        "schemas": {
                            "s": {
                                "versions": {
                                    "1": {"format": "Custom/1", "SchemaUri": "https://example.com/s", "schema": "text"}
                                }
                            }
                        }
                    }
                }
            },
            "SchemaUri",
            "schemaURI",
        ),
    ],
)
def test_a_05_document_is_refused(su, team, document, name, known):
    before = snapshot()
    refused(send_json(su, "POST", "/", {"specversion": "0.5-wip", **document}), name, known)
    assert snapshot() == before


# xRegistry 1.0 ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("path", "body", "name", "known"),
    [
        ("/registry/schemagroups/g2", {"OWNERS": {"team-a": "owner"}}, "OWNERS", "owners"),
        ("/registry/schemagroups/g1", {"Owners": {"team-a": "owner"}}, "Owners", "owners"),
        ("/registry/schemagroups/g2", {"CreatedAt": "2020-01-01T00:00:00Z"}, "CreatedAt", "createdat"),
        ("/registry/schemagroups/g2", {"SchemaGroupId": "g2"}, "SchemaGroupId", "schemagroupid"),
        ("/registry/schemagroups/g2", {"Labels": {"a": "b"}}, "Labels", "labels"),
        ("/registry/schemagroups/g2", {"Schemas": {}}, "Schemas", "schemas"),
        ("/registry/schemagroups/g2", {"Tags": {"a": "b"}}, "Tags", "tags"),
        ("/registry/schemagroups/g2", {"Compatibility": "none"}, "Compatibility", "compatibility"),
        ("/registry/schemagroups/g2", {"confluentMode": "READONLY"}, "confluentMode", "confluentmode"),
        ("/registry/messagegroups/mg", {"Envelope": CE_FORMAT}, "Envelope", "envelope"),
        (
            "/registry/schemagroups/g1/schemas/s1/versions/1$details",
            {"format": "Custom/1", "ContentType": "text/plain"},
            "ContentType",
            "contenttype",
        ),
        ("/registry/schemagroups/g1/schemas/s1/versions/1$details", {"Format": "Custom/1"}, "Format", "format"),
        (
            "/registry/schemagroups/g1/schemas/s2$details",
            {"SchemaUrl": "https://example.com/s"},
            "SchemaUrl",
            "schemaurl",
        ),
        (
            "/registry/messagegroups/mg/messages/m",
            {"envelope": CE_FORMAT, "DataSchemaUri": "https://example.com/s"},
            "DataSchemaUri",
            "dataschemauri",
        ),
    ],
)
def test_a_10_write_is_refused(su, team, path, body, name, known):
    make_group(su)
    post_schema(su)
    before = snapshot()
    refused(send_json(su, "PUT", path, body), name, known)
    assert snapshot() == before


def test_a_10_document_is_refused(su, team):
    before = snapshot()
    response = send_json(su, "POST", "/registry/", {"schemagroups": {"g3": {"OWNERS": {"team-a": "owner"}}}})
    refused(response, "OWNERS", "owners")
    assert snapshot() == before


def test_the_10_names_in_10_spelling_are_written(su, team):
    """The 1.0 binding's own lowercase names are what they always were there (`createdat` is the server's, `labels`
    the tags, `owners` the owners, `contenttype` and `schemabase64` the document's)."""
    group = {
        "owners": {"team-a": "owner"},
        "labels": {"a": "b"},
        "documentation": "https://example.com/doc",
        "createdat": "2020-01-01T00:00:00Z",
        "schemagroupid": "g5",
    }
    assert send_json(su, "PUT", "/registry/schemagroups/g5", group).status_code == 201
    stored = Group.objects.get(gid="g5")
    assert stored.extensions == {"owners": {"team-a": "owner"}} and stored.tags == {"a": "b"}
    version = {"format": "Custom/1", "contenttype": "text/plain", "schemabase64": "dGV4dA==", "versionid": "1"}
    response = send_json(su, "PUT", "/registry/schemagroups/g5/schemas/s$details", version)
    assert response.status_code == 201, response.content
    assert su.get("/schemaGroups/g5/schemas/s").content == b"text"


def test_a_05_header_has_no_case(su):
    """Headers are case-insensitive: `Registry-SCHEMAURI` is the schemaURI header, not a name to refuse."""
    make_group(su)
    post_schema(su)
    response = send(
        su, "PUT", "/schemaGroups/g1/schemas/s1/versions/1", b"", FORMAT="Custom/1", SCHEMAURI="https://example.com/x"
    )
    assert response.status_code == 200, response.content
    assert su.get("/schemaGroups/g1/schemas/s1/versions/1?meta").json()["schemaURI"] == "https://example.com/x"
