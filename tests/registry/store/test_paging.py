"""Pages of the registry's collections read by key (registry/store/paging.py, issue 40): following `Link` from the
first page to the last gives every entry once, in the collection's order, also when entries are added or deleted
between pages; a token this server issued before (an offset) still reads its page; a deep page reads about as many
rows as the first (on PostgreSQL, each of its statements' plan says how many rows it read)."""

import base64
import json
import re

import pytest
from django.db import connection

from registry.store.paging import encode_token
from tests.helpers import snapshot

pytestmark = pytest.mark.django_db

NEXT = re.compile(r"<(?P<url>[^>]+)>;rel=next;count=(?P<count>\d+)")


def post(client, path: str, body: dict) -> None:
    response = client.post(path, data=json.dumps(body), content_type="application/json")
    assert response.status_code in (200, 201), response.content


def following(response) -> tuple[str | None, int | None]:
    """The next page's URL and the count the `Link` announces (None, None on the last page)."""
    match = NEXT.search(response.get("Link", ""))
    return (match["url"], int(match["count"])) if match else (None, None)


def walk(client, url: str, between=lambda page: None) -> tuple[list[list[str]], set[int]]:
    """Every page's ids from `url` on, following `Link`; `between(n)` runs after the n-th page (1 the first)."""
    pages, counts = [], set()
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.content
        pages.append(list(response.json()))
        between(len(pages))
        url, count = following(response)
        if count is not None:
            counts.add(count)
        assert len(pages) < 50
    return pages, counts


def fill(client, groups: int = 0, schemas: int = 0, versions: int = 0) -> None:
    """`groups` groups g000..., group `w` of `schemas` schemas s000..., group `l` of one schema `long` of `versions`
    versions 1, 2, ... (created in that order)."""
    if groups:
        post(client, "/registry/schemagroups", {f"g{n:03d}": {} for n in range(groups)})
    if schemas:
        post(client, "/registry/schemagroups", {"w": {}})
        post(client, "/registry/schemagroups/w/schemas", {f"s{n:03d}": {"schema": {}} for n in range(schemas)})
    if versions:
        post(client, "/registry/schemagroups", {"l": {}})
        body = {str(n): {"schema": {"n": n}} for n in range(1, versions + 1)}
        post(client, "/registry/schemagroups/l/schemas/long/versions", body)


COLLECTIONS = {
    "0.5 groups": "/schemaGroups",
    "1.0 groups": "/registry/schemagroups",
    "0.5 schemas": "/schemaGroups/w/schemas",
    "1.0 schemas": "/registry/schemagroups/w/schemas",
    "0.5 versions": "/schemaGroups/l/schemas/long/versions",
    "1.0 versions": "/registry/schemagroups/l/schemas/long/versions",
}


@pytest.mark.parametrize("binding", ["0.5", "1.0"])
def test_every_page_in_order_while_entries_come_and_go(su, binding):
    """Between the first page and the second, a seen entry is deleted, an entry that sorts before the cursor and one
    that sorts after every entry are added: the walk shows every entry present throughout once, in order, and the
    one added at the end (an offset would skip one entry and show another twice)."""
    fill(su, groups=12, schemas=12, versions=12)
    prefix = "/registry/schemagroups" if binding == "1.0" else "/schemaGroups"

    def change_groups(page):
        if page == 1:
            for gid in ("g001", "g003"):
                assert su.delete(f"/registry/schemagroups/{gid}").status_code == 204
            post(su, "/registry/schemagroups", {"a": {}, "z": {}})

    pages, counts = walk(su, f"{prefix}?limit=5", change_groups)
    assert sum(pages, []) == [f"g{n:03d}" for n in range(12)] + ["l", "w", "z"]
    assert counts == {14}  # 14 on the first page, 14 - 2 + 2 after

    def change_versions(page):
        if page == 1:
            for vid in ("2", "4"):
                assert su.delete(f"/registry/schemagroups/l/schemas/long/versions/{vid}").status_code == 204
            post(su, "/registry/schemagroups/l/schemas/long/versions", {"13": {"schema": {}}})

    pages, _ = walk(su, f"{prefix}/l/schemas/long/versions?limit=5", change_versions)
    assert sum(pages, []) == [str(n) for n in range(1, 14)]

    def change_schemas(page):
        if page == 1:
            for sid in ("s000", "s002"):
                assert su.delete(f"/registry/schemagroups/w/schemas/{sid}").status_code == 204
            post(su, "/registry/schemagroups/w/schemas", {"a": {"schema": {}}, "t": {"schema": {}}})

    pages, _ = walk(su, f"{prefix}/w/schemas?limit=5", change_schemas)
    assert sum(pages, []) == [f"s{n:03d}" for n in range(12)] + ["t"]


@pytest.mark.parametrize("name", list(COLLECTIONS))
def test_a_walk_gives_the_order_of_one_page(su, name):
    """Page by page, the entries are those of one page holding them all, in its order, with the count announced."""
    fill(su, groups=7, schemas=7, versions=7)
    whole = list(su.get(f"{COLLECTIONS[name]}?limit=100").json())
    pages, counts = walk(su, f"{COLLECTIONS[name]}?limit=2")
    assert sum(pages, []) == whole and [len(p) for p in pages[:-1]] == [2] * (len(pages) - 1)
    assert counts == {len(whole)}


def test_versions_are_in_the_order_they_were_created(su):
    """Version ids that sort otherwise ("10" before "9" as text, "b" before "a" by creation) keep creation order."""
    post(su, "/registry/schemagroups", {"l": {}})
    for vid in ("b", "a", "10", "9", "C"):
        post(su, "/registry/schemagroups/l/schemas/long/versions", {vid: {"schema": {}}})
    for groups in ("/schemaGroups", "/registry/schemagroups"):
        pages, _ = walk(su, f"{groups}/l/schemas/long/versions?limit=2")
        assert sum(pages, []) == ["b", "a", "10", "9", "C"]
    # the order of the latest version: 9, C, a, b, 10 (the default); each one's ancestor the one before it
    answer = su.get("/registry/schemagroups/l/schemas/long/versions?limit=2&page=" + encode_token(2)).json()
    assert {vid: v["ancestorid"] for vid, v in answer.items()} == {"10": "b", "9": "9"}
    assert [v["isdefault"] for v in answer.values()] == [True, False]


@pytest.mark.parametrize("name", list(COLLECTIONS))
def test_a_token_of_the_offset_spelling_still_reads_its_page(su, name):
    """Tokens issued before the pages were read by key were offsets: such a token reads the page at that offset, and
    its `Link` goes on from there (for one release: registry/store/paging.py)."""
    fill(su, groups=7, schemas=7, versions=7)
    whole = list(su.get(f"{COLLECTIONS[name]}?limit=100").json())
    response = su.get(f"{COLLECTIONS[name]}?limit=2&page={encode_token(3)}")
    assert list(response.json()) == whole[3:5]
    url, _count = following(response)
    assert "page=" in url and encode_token(5) not in url
    pages, _ = walk(su, url)
    assert sum(pages, []) == whole[5:]


def refused(response) -> None:
    """A 400 problem that names the token (0.5's and 1.0's problem documents)."""
    assert response.status_code == 400, response.content
    assert "is not a continuation token this server issued" in response.json()["detail"]


def key_token(values) -> str:
    return base64.urlsafe_b64encode(("k" + json.dumps(values)).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "token",
    [
        "garbage",
        key_token([]),
        key_token({"a": 1}),
        key_token([1]),  # a number where groups are keyed by id
        key_token(["a\x00b"]),  # what the database cannot hold
        key_token(["\ud800"]),
        key_token(["g1", "g2"]),  # another collection's key
    ],
)
def test_a_token_this_server_did_not_issue_is_refused(su, token):
    fill(su, groups=3)
    before = snapshot()
    for path in ("/schemaGroups", "/registry/schemagroups"):
        refused(su.get(f"{path}?limit=2&page={token}"))
    assert snapshot() == before


@pytest.mark.parametrize(
    "token",
    [
        key_token(["g1"]),
        key_token(["not a time", 1]),
        key_token(["2026-01-01T00:00:00", 1]),
        key_token(["2026-01-01T00:00:00+00:00", 2**70]),
        key_token(["0001-01-01T00:00:00+14:00", 1]),  # before the first time a database holds
        base64.urlsafe_b64encode(b"o" + b"9" * 30).decode().rstrip("="),  # past any database's integers
    ],
)
def test_a_versions_token_this_server_did_not_issue_is_refused(su, token):
    fill(su, versions=3)
    for path in ("/schemaGroups", "/registry/schemagroups"):
        refused(su.get(f"{path}/l/schemas/long/versions?limit=2&page={token}"))


def rows_read(sql: str, params) -> int:
    """The rows a statement's scans read, by its plan on PostgreSQL (`EXPLAIN ANALYZE`), counts aside: the rows
    under an aggregate (the `count=` of `Link`, a resource's `versionscount`) are the index's count, not a page's.
    Planned as for a large table: a test's table of a few pages is cheapest read whole, whatever the indexes, so
    sequential and bitmap scans are off (for the test's transaction), and so are merge and hash joins (a page's few
    rows join a large table by its index, not by walking it whole), and the tables analyzed."""

    def walk_plan(node) -> int:
        if node["Node Type"] == "Aggregate":
            return 0
        own = node["Actual Rows"] * node["Actual Loops"] if "Scan" in node["Node Type"] else 0
        return own + sum(walk_plan(child) for child in node.get("Plans", []))

    with connection.cursor() as cursor:
        cursor.execute(
            "SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; "
            "SET LOCAL enable_mergejoin = off; SET LOCAL enable_hashjoin = off"
        )
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, params)
        (plan,) = cursor.fetchone()
    return walk_plan((plan if isinstance(plan, list) else json.loads(plan))[0]["Plan"])


def page_rows(client, url: str) -> tuple[int, str | None]:
    """The rows a page's statements read (registry/store: counts aside), and the next page's URL."""
    sent = []

    def keep(execute, sql, params, many, context):
        sent.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(keep):
        response = client.get(url)
    assert response.status_code == 200
    selects = [(sql, params) for sql, params in sent if sql.lstrip().upper().startswith("SELECT")]
    return sum(rows_read(sql, params) for sql, params in selects), following(response)[0]


@pytest.mark.skipif("connection.vendor != 'postgresql'", reason="the plan's rows are PostgreSQL's EXPLAIN")
@pytest.mark.parametrize("name", list(COLLECTIONS))
def test_a_deep_page_reads_what_the_first_does(su, name):
    """In a collection of 150 entries paged by 10, the page at 90% reads about the rows of the first: no statement
    skips or sorts the entries before it."""
    kind = name.split()[1]
    fill(
        su,
        groups=150 if kind == "groups" else 0,
        schemas=150 if kind == "schemas" else 0,
        versions=150 if kind == "versions" else 0,
    )
    with connection.cursor() as cursor:  # the tables' sizes known to the planner (as autovacuum would, at times)
        cursor.execute("ANALYZE registry_group, registry_resource, registry_version")
    first, url = page_rows(su, f"{COLLECTIONS[name]}?limit=10")
    for _ in range(12):
        url = following(su.get(url))[0]
    deep, _url = page_rows(su, url)
    assert first <= 8 * 11 and deep <= first + 10, (first, deep)


@pytest.mark.skipif("connection.vendor != 'postgresql'", reason="the plan's rows are PostgreSQL's EXPLAIN")
def test_a_page_of_schemas_reads_no_more_rows_when_they_have_more_versions(su):
    """A 1.0 page of schemas shows each one's default version, its `ancestorid` and `versionscount`: each read by key
    or counted on an index, not by reading every version of every schema of the page (the wide group's page at 1M,
    issue 40)."""
    url = "/registry/schemagroups/w/schemas?limit=10"
    fill(su, schemas=10)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE registry_group, registry_resource, registry_version")
    before, _url = page_rows(su, url)
    for n in range(10):
        versions = {str(v): {"schema": {"v": v}} for v in range(2, 32)}
        post(su, f"/registry/schemagroups/w/schemas/s{n:03d}/versions", versions)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE registry_group, registry_resource, registry_version")
    after, _url = page_rows(su, url)
    page = su.get(url).json()
    assert page["s000"]["versionid"] == "31" and page["s000"]["ancestorid"] == "30"
    assert page["s000"]["versionscount"] == 31
    assert after <= before + 10, (before, after)
