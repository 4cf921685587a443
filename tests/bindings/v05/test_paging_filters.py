"""Paging (?limit, Link rel=next;count=N) and filtering (?filter) on every collection (docs/api-contract.md section 4)."""

import re

import pytest

from tests.helpers import assert_problem, make_group, new_version, post_schema, send_json

pytestmark = pytest.mark.django_db

LINK = re.compile(r"^<(?P<url>[^>]+)>;rel=next;count=(?P<count>\d+)$")


def follow(client, url):
    """Every page of a collection: (ids of each page, counts announced)."""
    pages, counts = [], []
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.content
        pages.append(list(response.json()))
        link = response.get("Link")
        if link is None:
            break
        match = LINK.match(link)
        assert match, link
        url = match["url"]
        assert url.startswith("http://testserver/")
        counts.append(int(match["count"]))
    return pages, counts


def test_group_paging_follows_link_to_the_end(su):
    ids = [f"g{i:02d}" for i in range(7)]
    for gid in reversed(ids):
        make_group(su, gid)
    pages, counts = follow(su, "/schemaGroups?limit=3")
    assert pages == [ids[0:3], ids[3:6], ids[6:7]]
    assert counts == [7, 7]


def test_no_link_when_everything_fits(su):
    make_group(su, "a")
    response = su.get("/schemaGroups?limit=5")
    assert "Link" not in response
    response = su.get("/schemaGroups")
    assert "Link" not in response


def test_default_and_maximum_page_size(su, settings):
    settings.REGISTRY_PAGE_SIZE = 2
    settings.REGISTRY_MAX_PAGE_SIZE = 3
    for gid in ("a", "b", "c", "d", "e"):
        make_group(su, gid)
    response = su.get("/schemaGroups")
    assert list(response.json()) == ["a", "b"]
    assert response["Link"].endswith(";rel=next;count=5")
    response = su.get("/schemaGroups?limit=100")
    assert list(response.json()) == ["a", "b", "c"]
    pages, _ = follow(su, "/schemaGroups?limit=100")
    assert sum(pages, []) == ["a", "b", "c", "d", "e"]


def test_resource_and_version_paging(su):
    make_group(su, "g1")
    for sid in ("s3", "s1", "s2"):
        post_schema(su, "g1", sid)
    pages, counts = follow(su, "/schemaGroups/g1/schemas?limit=2")
    assert pages == [["s1", "s2"], ["s3"]] and counts == [3]
    for _ in range(10):
        new_version(su, "g1", "s1")
    pages, counts = follow(su, "/schemaGroups/g1/schemas/s1/versions?limit=4")
    assert sum(pages, []) == [str(i) for i in range(1, 12)]
    assert [len(p) for p in pages] == [4, 4, 3]
    assert counts == [11, 11]


def test_paging_keeps_filters(su):
    for gid in ("a1", "a2", "a3", "b1"):
        make_group(su, gid)
    pages, counts = follow(su, "/schemaGroups?filter=id=a*&limit=2")
    assert pages == [["a1", "a2"], ["a3"]]
    assert counts == [3]


@pytest.mark.parametrize("query", ["limit=0", "limit=-1", "limit=x", "page=garbage"])
def test_bad_paging_parameters_are_400(su, query):
    make_group(su, "a")
    assert_problem(su.get(f"/schemaGroups?{query}"), 400)


def test_filter_by_name_with_wildcard(su):
    make_group(su, "g1", name="orders-v1")
    make_group(su, "g2", name="orders-v2")
    make_group(su, "g3", name="billing")
    assert set(su.get("/schemaGroups?filter=name=orders*").json()) == {"g1", "g2"}
    assert set(su.get("/schemaGroups?filter=name=*v2").json()) == {"g2"}
    assert set(su.get("/schemaGroups?filter=name=billing").json()) == {"g3"}
    assert su.get("/schemaGroups?filter=name=bill").json() == {}


def test_filter_name_defaults_to_id(su):
    make_group(su, "plain")
    make_group(su, "other", name="Other")
    assert set(su.get("/schemaGroups?filter=id=pl*").json()) == {"plain"}


def test_filter_dotted_tags(su):
    make_group(su, "g1", tags={"owner": "team-a"})
    make_group(su, "g2", tags={"owner": "team-b"})
    make_group(su, "g3")
    assert set(su.get("/schemaGroups?filter=tags.owner=team-a").json()) == {"g1"}
    assert set(su.get("/schemaGroups?filter=tags.owner=team-*").json()) == {"g1", "g2"}


def test_filter_dotted_extension(su):
    make_group(
        su, "e1", "endpoints", usage="producer", config={"protocol": "HTTP", "endpoints": ["https://example.com/a"]}
    )
    make_group(
        su,
        "e2",
        "endpoints",
        usage="consumer",
        config={"protocol": "MQTT/5.0", "endpoints": ["mqtts://example.com:8883"]},
    )
    assert set(su.get("/endpoints?filter=config.protocol=HTTP").json()) == {"e1"}
    assert set(su.get("/endpoints?filter=usage=consumer").json()) == {"e2"}


def test_two_filters_are_anded(su):
    make_group(su, "g1", name="orders", description="prod")
    make_group(su, "g2", name="orders", description="test")
    make_group(su, "g3", name="billing", description="prod")
    assert set(su.get("/schemaGroups?filter=name=orders&filter=description=prod").json()) == {"g1"}


def test_filter_on_resources_and_versions(su):
    make_group(su, "g1")
    post_schema(su, "g1", "s1", description="alpha")
    post_schema(su, "g1", "s2", description="beta")
    new_version(su, "g1", "s2", description="gamma")
    assert set(su.get("/schemaGroups/g1/schemas?filter=description=alpha").json()) == {"s1"}
    # resources are matched by their latest version's attributes
    assert set(su.get("/schemaGroups/g1/schemas?filter=description=gamma").json()) == {"s2"}
    assert set(su.get("/schemaGroups/g1/schemas/s2/versions?filter=description=beta").json()) == {"1"}
    assert set(su.get("/schemaGroups/g1/schemas?filter=format=Custom*").json()) == {"s1", "s2"}


@pytest.mark.parametrize("raw", ["name", "=x", "a..b=x", "tags.=x"])
def test_malformed_filter_is_400(su, raw):
    send_json(su, "POST", "/schemaGroups", {"id": "g"})
    assert_problem(su.get("/schemaGroups", {"filter": raw}), 400, "filter")
