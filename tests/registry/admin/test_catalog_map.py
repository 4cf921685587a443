"""The catalog map (issue 16) through Django's test client: `GET /map.svg` (public, its content type, the nodes
around a root and their links, deprecated and missing entities, the drawing by group of a large registry, the
problems for a bad root) and the "Map" section of the admin's change pages. The SVG is parsed as XML."""

import re
import xml.etree.ElementTree as ET

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from catalog.models import Schema
from endpoints.models import Endpoint
from registry.governance import catalog_map
from tests.helpers import snapshot

from .governance_seed import seed

pytestmark = pytest.mark.django_db
SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"


def nodes(svg: bytes) -> dict[str, dict]:
    """Each drawn box: its title (the entity path), its text lines, its link and whether it is dashed."""
    root = ET.fromstring(svg)
    out = {}
    for g in root.iter(f"{SVG}g"):
        if g.get("class") != "node":
            continue
        title = g.find(f"{SVG}title").text
        link = next((a.get(f"{XLINK}href") for a in g.iter(f"{SVG}a") if a.get(f"{XLINK}href")), None)
        shapes = [el for el in g.iter() if el.tag in (f"{SVG}path", f"{SVG}polygon")]
        out[title] = {
            "text": [t.text for t in g.iter(f"{SVG}text")],
            "link": link,
            "dashed": any(el.get("stroke-dasharray") for el in shapes),
        }
    return out


def edges(svg: bytes) -> dict[str, list[str]]:
    root = ET.fromstring(svg)
    return {
        g.find(f"{SVG}title").text.replace("&#45;", "-"): [t.text for t in g.iter(f"{SVG}text")]
        for g in root.iter(f"{SVG}g")
        if g.get("class") == "edge"
    }


def test_map_of_an_endpoint_is_public_svg_with_what_it_leads_to(client):
    seed()
    response = client.get("/map.svg", {"root": "/endpoints/shop.http"})
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    drawn = nodes(response.content)
    assert set(drawn) == {
        "/endpoints/shop.http",
        "/definitionGroups/Shop",
        "/definitionGroups/Shop/definitions/OrderPlaced",
        "/definitionGroups/Shop/definitions/OrderAudited",
        "/definitionGroups/Shop/definitions/OrderArchived",
        "/definitionGroups/Shop/definitions/OrderPlacedAgain",
        "/schemaGroups/Orders",
        "/schemaGroups/Orders/schemas/Placed",
    }  # not the schema nothing points at (Orders/Unused)
    assert drawn["/endpoints/shop.http"]["text"] == ["endpoint shop.http", "producer", "HTTP"]
    assert drawn["/schemaGroups/Orders/schemas/Placed"]["text"] == ["schema Placed", "JsonSchema/draft-07"]
    endpoint = Endpoint.objects.get(gid="shop.http")
    assert drawn["/endpoints/shop.http"]["link"] == reverse("admin:endpoints_endpoint_change", args=[endpoint.pk])
    placed = Schema.objects.get(rid="Placed")
    assert drawn["/schemaGroups/Orders/schemas/Placed"]["link"] == reverse(
        "admin:catalog_schema_change", args=[placed.pk]
    )
    lines = edges(response.content)
    assert lines["/endpoints/shop.http->/definitionGroups/Shop"] == []
    # the definition names version 1 and the record Order inside it
    assert lines["/definitionGroups/Shop/definitions/OrderPlaced->/schemaGroups/Orders/schemas/Placed"] == ["v1:Order"]
    assert (
        "/definitionGroups/Shop/definitions/OrderPlacedAgain->/definitionGroups/Shop/definitions/OrderPlaced" in lines
    )


def test_map_of_a_schema_shows_who_leads_to_it(client):
    seed()
    drawn = nodes(client.get("/map.svg", {"root": "/schemaGroups/Orders/schemas/Placed/versions/1"}).content)
    # upstream only: the definitions pointing at it, their group, the endpoint of that group (not OrderArchived,
    # whose reference names another registry)
    assert set(drawn) == {
        "/schemaGroups/Orders",
        "/schemaGroups/Orders/schemas/Placed",
        "/definitionGroups/Shop/definitions/OrderPlaced",
        "/definitionGroups/Shop/definitions/OrderAudited",
        "/definitionGroups/Shop/definitions/OrderPlacedAgain",
        "/definitionGroups/Shop",
        "/endpoints/shop.http",
    }


def test_deprecated_endpoint_is_dashed_and_a_deleted_target_is_drawn_missing(client, admin_client):
    seed()
    response = admin_client.put(
        "/endpoints/old.mqtt",
        {
            "usage": "consumer",
            "config": {"protocol": "MQTT/5.0"},
            "deprecated": {},
            "definitionGroups": ["#/definitionGroups/Shop"],
        },
        content_type="application/json",
    )
    assert response.status_code in (200, 201), response.content
    # the schema goes although definitions still point at it (?force=true): the map shows the broken references
    assert admin_client.delete("/schemaGroups/Orders/schemas/Placed?force=true").status_code == 200
    drawn = nodes(client.get("/map.svg", {"root": "/endpoints/old.mqtt"}).content)
    assert drawn["/endpoints/old.mqtt"]["dashed"] and drawn["/endpoints/old.mqtt"]["text"] == [
        "endpoint old.mqtt",
        "consumer",
        "MQTT/5.0",
        "deprecated",
    ]
    missing = drawn["/schemaGroups/Orders/schemas/Placed"]
    assert missing["text"] == ["missing /schemaGroups/Orders/schemas/Placed"]
    assert missing["link"] is None and missing["dashed"]
    assert "/endpoints/shop.http" not in drawn  # another producer of the group: not downstream of this endpoint


def test_whole_registry_and_a_large_one_drawn_by_group(client, monkeypatch):
    seed()
    drawn = nodes(client.get("/map.svg").content)
    assert "/schemaGroups/Orders/schemas/Unused" in drawn  # small: every resource
    monkeypatch.setattr(catalog_map, "MAX_DETAILED_RESOURCES", 3)
    response = client.get("/map.svg")
    drawn = nodes(response.content)
    assert set(drawn) == {"/endpoints/shop.http", "/definitionGroups/Shop", "/schemaGroups/Orders"}
    assert drawn["/definitionGroups/Shop"]["text"][-1] == "4 resources"
    assert edges(response.content)["/definitionGroups/Shop->/schemaGroups/Orders"] == ["2 references"]


def test_past_the_node_budget_the_map_draws_group_types(client, monkeypatch, settings):
    """issue 24: 1,000 groups of each type and 20,000 references drew nothing in 600 s; above REGISTRY_MAP_MAX_NODES
    groups the map draws one box per group type, with its counts and the references between types"""
    seed()
    monkeypatch.setattr(catalog_map, "MAX_DETAILED_RESOURCES", 3)
    settings.REGISTRY_MAP_MAX_NODES = 2
    response = client.get("/map.svg")
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    drawn = nodes(response.content)
    assert set(drawn) == {"endpoints", "definitionGroups", "schemaGroups"}, drawn
    assert drawn["definitionGroups"]["text"] == ["definitionGroups", "1 group, 4 resources"], drawn
    assert edges(response.content)["definitionGroups->schemaGroups"] == ["2 references"]
    assert "draw ?root=PATH for detail" in response.content.decode()
    settings.REGISTRY_MAP_MAX_NODES = 300
    assert "/definitionGroups/Shop" in nodes(client.get("/map.svg").content)  # within the budget: by group


def test_above_its_resource_limit_the_whole_map_is_refused_naming_group_maps(client, admin_client, settings):
    """issue 40: the whole registry's map read every resource and every reference (0.8 s at 10,000 versions on a
    busy machine, growing with the registry); above REGISTRY_MAP_MAX_RESOURCES it is refused with a problem naming
    the maps of groups, which read only what connects to them, and the admin's map page says so."""
    seed()
    settings.REGISTRY_MAP_MAX_RESOURCES = 3
    before = snapshot()
    response = client.get("/map.svg")
    assert response.status_code == 400 and response["Content-Type"].startswith("application/problem+json")
    body = response.json()
    assert body["type"].endswith(":too-many-entities") and "REGISTRY_MAP_MAX_RESOURCES" in body["detail"], body
    assert "more than 3" in body["detail"] and "/map.svg?root=" in body["detail"], body
    assert "/map.svg?root=/schemaGroups/Orders" in body["alternatives"], body
    assert "/map.svg?root=/endpoints/shop.http" in body["alternatives"], body
    page = admin_client.get("/admin/registry/map/").content.decode()
    the_map = page.split("REGISTRY_MAP_MAX_RESOURCES", 1)
    assert len(the_map) == 2 and "errornote" in the_map[0][-300:] and 'class="node"' not in page, page
    instead = re.findall(r"<a href='(/admin/registry/map/\?root=[^']+)'>", page.split("id='map-instead'", 1)[1])
    assert "/admin/registry/map/?root=%2FschemaGroups%2FOrders" in instead, page  # the alternatives, as links here
    assert 'class="node"' in admin_client.get(instead[0]).content.decode()
    for alternative in body["alternatives"]:
        drawn = client.get(alternative)
        assert drawn.status_code == 200 and drawn["Content-Type"] == "image/svg+xml", alternative
    assert snapshot() == before
    settings.REGISTRY_MAP_MAX_RESOURCES = 5_000
    assert client.get("/map.svg").status_code == 200


def test_a_layout_past_its_time_answers_503_naming_the_setting(client, settings):
    """`dot` had no timeout, and a killed `dot` ended the request in a 500 (CalledProcessError)"""
    seed()
    settings.REGISTRY_MAP_SECONDS = 0.001
    response = client.get("/map.svg")
    assert response.status_code == 503, response.content
    body = response.json()
    assert body["budget"] == "REGISTRY_MAP_SECONDS" and "REGISTRY_MAP_SECONDS" in body["detail"], body
    with pytest.raises(catalog_map.MapUnavailable, match="exit status 1"):  # dot refusing its input
        catalog_map.render_svg("digraph {", 10)


def test_roots_in_the_10_names(client):
    seed()
    the_05 = nodes(client.get("/map.svg", {"root": "/definitionGroups/Shop"}).content)
    for root in (
        "/messagegroups/Shop",
        "/registry/messagegroups/Shop",
        "/registry/messagegroups/Shop/messages/OrderPlaced",
    ):
        response = client.get("/map.svg", {"root": root})
        assert response.status_code == 200, (root, response.content[:300])
        assert set(nodes(response.content)) <= set(the_05) and "/definitionGroups/Shop" in nodes(response.content)


def test_bad_roots_are_problems(client):
    seed()
    answer = client.get("/map.svg", {"root": "nothing/here"})
    assert answer.status_code == 400 and "root must be the path" in answer.json()["detail"]
    answer = client.get("/map.svg", {"root": "/nothing/here"})
    assert (
        answer.status_code == 404
        and answer.json()["detail"] == "/nothing/here names no group, resource or version of this registry"
    )
    answer = client.get("/map.svg", {"root": "/endpoints/absent"})
    assert answer.status_code == 404 and answer.json()["detail"] == "/endpoints/absent does not exist, so it has no map"
    assert client.get("/map.svg", {"roots": "/endpoints/shop.http"}).status_code == 400


def test_admin_change_page_shows_the_map_inline_with_links(admin_client):
    seed()
    endpoint = Endpoint.objects.get(gid="shop.http")
    html = admin_client.get(reverse("admin:endpoints_endpoint_change", args=[endpoint.pk])).content.decode()
    the_map = html.split("id='catalog-map'", 1)[1]
    assert "<svg" in the_map and "<?xml" not in the_map
    placed = Schema.objects.get(rid="Placed")
    assert f'xlink:href="{reverse("admin:catalog_schema_change", args=[placed.pk])}"' in the_map
    assert "/map.svg?root=%2Fendpoints%2Fshop.http" in html
    page = admin_client.get(reverse("registry-admin-map")).content.decode()
    assert "Catalog map" in page and "<svg" in page


@pytest.mark.skipif("connection.vendor != 'postgresql'")
def test_references_into_a_group_are_looked_for_with_the_groups_pattern_alone(client):
    """issue 40: the documents that may point into a group and its resources were found with one pattern per root
    (`%g%` and `%g%r%` for each resource), each tried on every document of the types that hold references: the map
    of a definition group of a hundred definitions tried a hundred and one (most of its time, growing with the
    registry's definitions). The group's pattern matches every text its resources' patterns match."""
    seed()
    with CaptureQueriesContext(connection) as queries:
        drawn = nodes(client.get("/map.svg", {"root": "/definitionGroups/Shop"}).content)
    likes = [q["sql"].lower() for q in queries.captured_queries if "ILIKE ANY" in q["sql"]]
    assert any("%shop%" in sql for sql in likes), likes
    assert not [sql for sql in likes if "%shop%order" in sql], likes
    assert {
        "/definitionGroups/Shop/definitions/OrderPlaced",
        "/definitionGroups/Shop/definitions/OrderPlacedAgain",
        "/endpoints/shop.http",
        "/schemaGroups/Orders/schemas/Placed",
    } <= set(drawn)
