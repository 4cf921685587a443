"""Issue 11 item 3: attribute names are validated on every write (letters, digits, '_'; unique irrespective of
case). `{"a b": "x"}` through PUT ?meta was 200, and every later GET of the document 500 (not a header name)."""

import pytest

from tests.helpers import assert_problem, make_group, post_schema, send, send_json, snapshot

pytestmark = pytest.mark.django_db

BAD = ["a b", "a:b", "a\r\nb", "ünïcode", "", "9lives", "x" * 64]


@pytest.mark.parametrize("name", BAD)
def test_bad_names_in_put_meta(su, anon, name):
    make_group(su)
    post_schema(su)
    before = snapshot()
    response = send_json(su, "PUT", "/schemaGroups/g1/schemas/s1/versions/1?meta", {name: "x", "format": "Custom/1"})
    assert_problem(response, 400, "attribute name")
    assert snapshot() == before
    assert anon.get("/schemaGroups/g1/schemas/s1").status_code == 200


@pytest.mark.parametrize("name", BAD[:4])
def test_bad_names_in_group_bodies_and_imports(su, name):
    before = snapshot()
    assert_problem(send_json(su, "POST", "/schemaGroups", {"id": "g2", name: "x"}), 400, "attribute name")
    response = send_json(su, "POST", "/", {"specversion": "0.5-wip", "schemaGroups": {"g3": {name: "x"}}})
    assert response.status_code == 400, response.content
    assert snapshot() == before


def test_names_differing_only_by_case(su):
    make_group(su)
    post_schema(su)
    before = snapshot()
    response = send_json(
        su, "PUT", "/schemaGroups/g1/schemas/s1/versions/1?meta", {"owner": "a", "Owner": "b", "format": "Custom/1"}
    )
    assert_problem(response, 400, "differ only by case")
    assert_problem(
        send_json(su, "POST", "/schemaGroups", {"id": "g4", "team": "a", "TEAM": "b"}), 400, "differ only by case"
    )
    assert snapshot() == before


def test_good_names_pass_and_read_back_as_headers(su, anon):
    make_group(su)
    post_schema(su)
    response = send_json(
        su,
        "PUT",
        "/schemaGroups/g1/schemas/s1/versions/1?meta",
        {"team_owner": "a", "tier2": "b", "format": "Custom/1"},
    )
    assert response.status_code == 200, response.content
    read = anon.get("/schemaGroups/g1/schemas/s1")
    assert read["Registry-team_owner"] == "a" and read["Registry-tier2"] == "b"


def test_bad_names_in_registry_headers(su):
    make_group(su)
    before = snapshot()
    response = send(su, "POST", "/schemaGroups/g1/schemas", b"x", id="s9", format="Custom/1", **{"x.y": "1"})
    assert_problem(response, 400, "attribute name")
    assert snapshot() == before
