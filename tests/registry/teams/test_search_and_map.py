"""Search and the catalog map with public reads off (issue 27): a caller sees no group he may not read, nor what it
holds, nor a reference from or to it; the search results show each group's owners."""

import html
import re

import pytest
from django.test import Client
from django.urls import reverse

from .conftest import (
    OPEN_GROUP,
    SECRET_DEF_GROUP,
    SECRET_GROUP,
    SECRET_SCHEMA,
    assert_hidden,
)

DEFINITION = {
    "format": "CloudEvents/1.0",
    "metadata": {"attributes": {"type": {"value": "hidden.type.b"}}},
    "schemaurl": f"#/schemaGroups/{OPEN_GROUP}/schemas/open-schema",
    "schemaformat": "JsonSchema/draft-07",
}


@pytest.fixture
def referenced(private, su, settings):
    """B's hidden definition group holds a definition whose schema is in the open group."""
    settings.REGISTRY_PUBLIC_READ = True
    response = su.generic(
        "PUT",
        f"/schemaGroups/{OPEN_GROUP}/schemas/open-schema",
        b'{"type": "object"}',
        content_type="application/json",
        headers={"Registry-format": "JsonSchema/draft-07"},
    )
    assert response.status_code == 201, response.content
    response = su.put(f"/definitionGroups/{SECRET_DEF_GROUP}/definitions/hidden-def-b-8", DEFINITION, format="json")
    assert response.status_code == 201, response.content
    settings.REGISTRY_PUBLIC_READ = False
    return private


def signed_in(teams, name) -> Client:
    client = Client()
    client.force_login(teams.users[name])
    return client


def search_page(teams, name, query) -> str:
    """The results table of the search page (the page repeats the query elsewhere)."""
    response = signed_in(teams, name).get(reverse("registry-admin-search"), {"q": query})
    assert response.status_code == 200
    found = re.search(r'<table id="search-results".*?</table>', response.content.decode(), flags=re.S)
    assert found, response.content.decode()
    return found.group(0)


def test_search_finds_only_readable_groups_and_shows_owners(referenced):
    for query in ("hidden", SECRET_GROUP, "hidden-title-b-13", "b"):
        page = search_page(referenced, "outsider", query)
        assert_hidden(page)
        assert "hidden-def-b-8" not in page
    page = search_page(referenced, "owner_b", "hidden")
    assert SECRET_SCHEMA in page and "hidden-def-b-8" in page
    assert "team-b (owner)" in page
    page = search_page(referenced, "admin", "schema")
    assert SECRET_SCHEMA in page and "team-b (owner)" in page
    assert "open-schema" in page


def test_search_shows_owners_with_public_reads_on(referenced, settings):
    settings.REGISTRY_PUBLIC_READ = True
    page = search_page(referenced, "outsider", "A")
    assert "team-a (owner), team-a-dev (editor), team-audit (reader)" in page


def map_svg(client, root=None) -> str:
    response = client.get("/map.svg", {"root": root} if root else {})
    assert response.status_code == 200, response.content[:300]
    return html.unescape(response.content.decode())  # dot writes "-" as "&#45;"


def test_the_map_draws_no_hidden_group_nor_its_references(referenced):
    for root in (None, f"/schemaGroups/{OPEN_GROUP}/schemas/open-schema", f"/schemaGroups/{OPEN_GROUP}"):
        svg = map_svg(referenced["outsider"], root)
        assert_hidden(svg)
        assert "hidden-def-b-8" not in svg
        assert "open-schema" in svg
    svg = map_svg(referenced["owner_b"], f"/schemaGroups/{OPEN_GROUP}/schemas/open-schema")
    assert "hidden-def-b-8" in svg and SECRET_DEF_GROUP in svg
    assert SECRET_GROUP in map_svg(referenced["admin"])


def test_the_map_around_a_hidden_entity_is_refused(referenced):
    response = referenced["outsider"].get("/map.svg", {"root": f"/definitionGroups/{SECRET_DEF_GROUP}"})
    assert response.status_code == 403, response.content
    assert "hidden-def-b-8" not in html.unescape(response.content.decode())
    page = signed_in(referenced, "outsider").get(
        reverse("registry-admin-map"), {"root": f"/definitionGroups/{SECRET_DEF_GROUP}/definitions/hidden-def-b-8"}
    )
    assert page.status_code == 200
    text = html.unescape(page.content.decode())
    assert "the role reader" in text and 'class="node"' not in text
    assert "hidden.type.b" not in text
    admin_page = html.unescape(signed_in(referenced, "outsider").get(reverse("registry-admin-map")).content.decode())
    assert "open-schema" in admin_page and "hidden-def-b-8" not in admin_page


def test_referenced_by_lists_only_readable_referrers(referenced):
    path = f"/schemaGroups/{OPEN_GROUP}/schemas/open-schema?referencedby"
    assert referenced["outsider"].get(path).json() == {}
    shown = referenced["owner_b"].get(path).json()
    assert list(shown) == [f"/definitionGroups/{SECRET_DEF_GROUP}/definitions/hidden-def-b-8"], shown
