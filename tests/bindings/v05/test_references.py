"""References and impact (docs/api-contract.md section 14): `?referencedby`, the 409 on deleting a referenced
entity, `?force=true`, and deletes of referrers and referees together."""

from __future__ import annotations

import json

import pytest

from tests.helpers import (
    assert_problem,
    definition,
    make_definition_group,
    make_group,
    new_version,
    post_definition,
    post_schema,
    send_json,
    snapshot,
)

SCHEMA = "/schemaGroups/g1/schemas/s1"
DEFINITION = "/definitionGroups/dg1/definitions/d1"


@pytest.fixture
def referenced(su):
    """Schema g1/s1 (versions 1 and 2) and definition dg1/d1 pointing at version 1 with a `:Name` suffix."""
    make_group(su, "g1")
    post_schema(su)
    new_version(su)
    make_definition_group(su, "dg1")
    post_definition(
        su,
        doc=definition(schemaformat="Avro/1.11.0", schemaurl="#/schemaGroups/g1/schemas/s1/versions/1:com.example.Rec"),
    )
    return su


def referenced_by(client, path):
    response = client.get(f"{path}?referencedby")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("application/json")
    return response.json()


def test_referencedby_version_schema_and_group(referenced, anon):
    entry = {
        DEFINITION: {"attribute": "schemaurl", "reference": "#/schemaGroups/g1/schemas/s1/versions/1:com.example.Rec"}
    }
    for path in (f"{SCHEMA}/versions/1", SCHEMA, "/schemaGroups/g1"):
        assert referenced_by(anon, path) == entry  # public like other reads
    assert referenced_by(anon, f"{SCHEMA}/versions/2") == {}
    assert referenced_by(anon, DEFINITION) == {}
    assert_problem(anon.get("/schemaGroups/g1/schemas/nope?referencedby"), 404)


def test_referencedby_absolute_url_and_path_without_version(su):
    make_group(su, "g1")
    post_schema(su)
    make_definition_group(su, "dg1")
    post_definition(
        su, did="a", doc=definition(schemaformat="Custom/1", schemaurl="http://testserver/schemaGroups/g1/schemas/s1")
    )
    post_definition(su, did="b", doc=definition(schemaformat="Custom/1", schemaurl="/schemaGroups/g1/schemas/s1"))
    post_definition(
        su,
        did="c",
        doc=definition(schemaformat="Custom/1", schemaurl="https://elsewhere.example/schemaGroups/g1/schemas/s1"),
    )
    assert referenced_by(su, SCHEMA) == {
        "/definitionGroups/dg1/definitions/a": {
            "attribute": "schemaurl",
            "reference": "http://testserver/schemaGroups/g1/schemas/s1",
        },
        "/definitionGroups/dg1/definitions/b": {"attribute": "schemaurl", "reference": "/schemaGroups/g1/schemas/s1"},
    }
    assert referenced_by(su, f"{SCHEMA}/versions/1") == {}  # the schema, not this version, is named


def test_referencedby_finds_ids_escaped_in_the_json_text(su):
    """`?referencedby` reads only the documents whose text may name the entity (issue 40): one spelling an id's
    letters as JSON `\\uXXXX` escapes is found all the same; one naming a schema whose id merely starts the same
    is not."""
    make_group(su, "g1")
    post_schema(su)
    post_schema(su, sid="s10")
    make_definition_group(su, "dg1")
    escaped = json.dumps(definition(schemaformat="Custom/1", schemaurl="#/schemaGroups/g1/schemas/SCHEMA"))
    post_definition(su, did="escaped", doc=escaped.replace("SCHEMA", "\\u0073\\u0031"))
    post_definition(su, did="other", doc=definition(schemaformat="Custom/1", schemaurl="#/schemaGroups/g1/schemas/s10"))
    assert referenced_by(su, SCHEMA) == {
        "/definitionGroups/dg1/definitions/escaped": {
            "attribute": "schemaurl",
            "reference": "#/schemaGroups/g1/schemas/s1",
        },
    }


def test_referencedby_definition_group_from_endpoint(su):
    make_definition_group(su, "dg1")
    make_group(su, "e1", "endpoints", usage="producer", definitionGroups=["#/definitionGroups/dg1"])
    assert referenced_by(su, "/definitionGroups/dg1") == {
        "/endpoints/e1": {"attribute": "definitionGroups", "reference": "#/definitionGroups/dg1"}
    }


def test_delete_referenced_refused_then_forced(referenced):
    su = referenced
    for path in (f"{SCHEMA}/versions/1", SCHEMA, "/schemaGroups/g1"):
        before = snapshot()
        body = assert_problem(su.delete(path), 409, DEFINITION)
        assert body["type"].endswith("conflict")
        assert body["referencedby"] == {
            DEFINITION: {
                "attribute": "schemaurl",
                "reference": "#/schemaGroups/g1/schemas/s1/versions/1:com.example.Rec",
            }
        }
        assert snapshot() == before
    assert su.delete(f"{SCHEMA}/versions/2").status_code == 200  # not referenced
    before = snapshot()
    assert_problem(send_json(su, "DELETE", "/schemaGroups", [{"id": "g1"}]), 409, DEFINITION)
    assert_problem(send_json(su, "DELETE", "/schemaGroups"), 409, DEFINITION)
    assert_problem(send_json(su, "DELETE", "/schemaGroups/g1/schemas", [{"id": "s1"}]), 409, DEFINITION)
    assert snapshot() == before
    assert su.delete(f"{SCHEMA}?force=true").status_code == 200
    assert su.get(SCHEMA + "?meta").status_code == 404
    assert su.get(DEFINITION).status_code == 200  # the reference dangles, as the spec allows


def test_force_on_a_group_and_unknown_flag(referenced):
    su = referenced
    assert_problem(su.delete("/schemaGroups/g1?forced=true"), 400)
    assert su.delete("/schemaGroups/g1?force=true").status_code == 200
    assert su.get("/schemaGroups/g1").status_code == 404


def test_delete_referrer_first_then_referee(referenced):
    su = referenced
    assert su.delete(DEFINITION).status_code == 200
    assert referenced_by(su, SCHEMA) == {}
    assert su.delete("/schemaGroups/g1").status_code == 200


def test_delete_definition_group_referenced_by_endpoint(su):
    make_definition_group(su, "dg1")
    make_group(su, "e1", "endpoints", usage="producer", definitionGroups=["#/definitionGroups/dg1"])
    before = snapshot()
    before = snapshot()
    body = assert_problem(su.delete("/definitionGroups/dg1"), 409, "/endpoints/e1")
    assert list(body["referencedby"]) == ["/endpoints/e1"]
    assert snapshot() == before
    assert snapshot() == before
    assert su.delete("/endpoints/e1").status_code == 200
    assert su.delete("/definitionGroups/dg1").status_code == 200


def test_bulk_delete_of_referrers_and_referees_together(su):
    make_group(su, "g1", "definitionGroups", format="CloudEvents/1.0")
    post_definition(su, gid="g1", did="base")
    post_definition(su, gid="g1", did="borrow", doc=definition(uri="#/definitionGroups/g1/definitions/base"))
    make_group(su, "g2", "definitionGroups", format="CloudEvents/1.0")
    make_group(su, "e1", "endpoints", usage="producer", definitionGroups=["#/definitionGroups/g1"])
    # a reference from inside the deleted set does not count
    assert referenced_by(su, "/definitionGroups/g1/definitions/base") == {
        "/definitionGroups/g1/definitions/borrow": {
            "attribute": "uri",
            "reference": "#/definitionGroups/g1/definitions/base",
        }
    }
    assert referenced_by(su, "/definitionGroups/g1") == {
        "/endpoints/e1": {"attribute": "definitionGroups", "reference": "#/definitionGroups/g1"}
    }
    response = send_json(su, "DELETE", "/definitionGroups/g1/definitions", [{"id": "base"}, {"id": "borrow"}])
    assert response.status_code == 200, response.content
    before = snapshot()
    before = snapshot()
    assert_problem(send_json(su, "DELETE", "/definitionGroups"), 409, "/endpoints/e1")
    assert snapshot() == before
    assert snapshot() == before
    make_group(su, "g3", "schemaGroups")
    post_schema(su, "g3", "s")
    post_definition(
        su, gid="g2", did="d", doc=definition(schemaformat="Custom/1", schemaurl="#/schemaGroups/g3/schemas/s")
    )
    assert send_json(su, "DELETE", "/endpoints").status_code == 200
    assert send_json(su, "DELETE", "/definitionGroups").status_code == 200
    assert send_json(su, "DELETE", "/schemaGroups").status_code == 200


@pytest.mark.parametrize(
    ("reference", "path"),
    [
        ("#/schemaGroups/g/schemas/s", "/schemaGroups/g/schemas/s"),
        ("#/schemaGroups/g/schemas/s/versions/2:com.example.Rec", "/schemaGroups/g/schemas/s/versions/2"),
        ("/schemaGroups/g/schemas/s/versions/2", "/schemaGroups/g/schemas/s/versions/2"),
        ("http://testserver/schemaGroups/g/schemas/s:Name", "/schemaGroups/g/schemas/s"),
        ("HTTP://TestServer:80/schemagroups/g", "/schemaGroups/g"),
        ("https://reg.example/prefix/definitionGroups/dg", "/definitionGroups/dg"),
        ("#/schemaGroups/g/schemas", "/schemaGroups/g"),
        ("https://elsewhere.example/schemaGroups/g", None),
        ("https://reg.example/schemaGroups/g", None),  # outside the registry's own path
        ("#/unknownGroups/g", None),
        ("#/schemaGroups/g/unknown/s", None),
        ("#/schemaGroups", None),
        ("urn:example:x", None),
    ],
)
def test_resolve(reference, path):
    from registry.domain.references import resolve

    assert resolve(reference, ["http://testserver", "https://reg.example/prefix"]) == path
