"""The registry's search (registry/store/search.py) through the selector and the admin pages: ids, names,
descriptions, tag values, formats and words inside documents; every word must match. Runs on SQLite and, with
REGISTRY_TEST_DB=postgres, on PostgreSQL's full-text search."""

import pytest
from django.db import connection
from django.urls import reverse

from registry.store import search

from .governance_seed import seed

pytestmark = pytest.mark.django_db


@pytest.fixture
def seeded(db):
    seed()


def paths(query):
    return [hit.path for hit in search.search(query).hits]


def test_finds_by_each_kind_of_attribute(seeded):
    assert "/schemaGroups/Orders/schemas/Placed" in paths("warehouseLocation")  # a word inside a document
    hit = next(h for h in search.search("warehouseLocation").hits if h.path.endswith("/Placed"))
    assert hit.matched == ["document (version 1)"]
    assert paths("warehouse") == ["/schemaGroups/Orders/schemas/Placed"]  # a word's beginning
    assert paths("team-orders") == ["/schemaGroups/Orders"]  # a tag value
    assert paths("shop.http") == ["/endpoints/shop.http"]  # an id
    assert "/definitionGroups/Shop/definitions/OrderPlaced" in paths("OrderPlaced")
    found = paths("order schemas")  # a description (the definitions' documents name the group's schemas)
    assert "/schemaGroups/Orders" in found and "/schemaGroups/Orders/schemas/Unused" not in found
    found = paths("JsonSchema")  # a format
    assert "/schemaGroups/Orders/schemas/Unused" in found and "/schemaGroups/Orders/schemas/Placed" in found
    assert paths("warehouseLocation nosuchword") == []
    # one word in the resource (its id), the other in a version's document: found
    assert paths("Unused string") == ["/schemaGroups/Orders/schemas/Unused"]
    assert paths("   ") == [] and search.search("").total == 0
    assert search.search("warehouseLocation").full_text == (connection.vendor == "postgresql")


def test_odd_input_is_only_text(seeded):
    for query in ("a:* & !", "'\"", "%_", "(", "\\", "x" * 300, "ü ß"):
        search.search(query)  # no error: punctuation is searched for, never parsed


def test_search_page_and_changelists(seeded, client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("gov", "g@example.com", "pw"))
    page = client.get(reverse("admin:index")).content.decode()
    assert 'id="registry-search"' in page
    page = client.get(reverse("registry-admin-search"), {"q": "warehouseLocation"}).content.decode()
    assert "1 result " in page and "/schemaGroups/Orders/schemas/Placed</a>" in page
    page = client.get(reverse("admin:catalog_schema_changelist"), {"q": "warehouseLocation"}).content.decode()
    assert ">Placed</a>" in page and ">Unused</a>" not in page
    page = client.get(reverse("admin:catalog_schema_changelist"), {"q": "Orders"}).content.decode()
    assert ">Placed</a>" in page and ">Unused</a>" in page  # by their group's id
    page = client.get(reverse("admin:catalog_schemaversion_changelist"), {"q": "warehouseLocation"}).content.decode()
    assert "1 result" in page
    page = client.get(reverse("admin:catalog_schemagroup_changelist"), {"q": "team-orders"}).content.decode()
    assert ">Orders</a>" in page
    page = client.get(reverse("admin:endpoints_endpoint_changelist"), {"q": "shop"}).content.decode()
    page = page.replace("<wbr>", "")  # ids may wrap after their separators
    assert ">shop.http</a>" in page
    assert client.get(reverse("registry-admin-search"), {"q": ""}).status_code == 200
    client.logout()
    assert client.get(reverse("registry-admin-search"), {"q": "x"}).status_code == 302  # the admin's login


@pytest.mark.skipif("connection.vendor != 'postgresql'")
def test_a_word_in_more_documents_than_the_cap_is_said_so(seeded, client, django_user_model, monkeypatch):
    """issue 40: a word in every document sent every document's id back to the database, a cost that grew with
    the registry; a word is now looked up in at most LOOKUP_CAP documents, and the page says when there were more
    (PostgreSQL's full-text search; SQLite's substring search has no list of ids)."""
    assert not search.search("type").capped
    monkeypatch.setattr(search, "LOOKUP_CAP", 1)
    results = search.search("type")
    assert results.capped and results.hits, results
    assert not search.search("warehouseLocation").capped  # in one document
    client.force_login(django_user_model.objects.create_superuser("gov", "g@example.com", "pw"))
    page = client.get(reverse("registry-admin-search"), {"q": "type"}).content.decode()
    assert 'id="search-capped"' in page and "more than 1 versions or resources" in page
    page = client.get(reverse("registry-admin-search"), {"q": "warehouseLocation"}).content.decode()
    assert 'id="search-capped"' not in page


@pytest.mark.skipif("connection.vendor != 'postgresql'")
def test_a_capped_changelist_search_is_said_so(seeded, client, django_user_model, monkeypatch):
    """issue 40: the schemas' and versions' changelists look a word up in at most LOOKUP_CAP documents too, and
    listed what those held without saying so; they now say it on the page, as the search page does (and only on
    that page: the message is not carried to the next one)."""
    client.force_login(django_user_model.objects.create_superuser("gov", "g@example.com", "pw"))
    said, cap = (
        "is in more than 1 versions or resources: the list holds the matches among the first 1 found",
        search.LOOKUP_CAP,
    )
    for changelist in ("admin:catalog_schema_changelist", "admin:catalog_schemaversion_changelist"):
        assert "is in more than" not in client.get(reverse(changelist), {"q": "type"}).content.decode()
        monkeypatch.setattr(search, "LOOKUP_CAP", 1)
        page = client.get(reverse(changelist), {"q": "type"}).content.decode()
        assert said in page and "result" in page, changelist
        assert said not in client.get(reverse(changelist), {"q": "warehouseLocation"}).content.decode()
        assert said not in client.get(reverse(changelist)).content.decode()  # not carried to the next page
        monkeypatch.setattr(search, "LOOKUP_CAP", cap)


def test_a_page_is_the_first_hits_in_path_order_and_the_total_counts_all(seeded):
    """The page's resources are chosen by their ids in path order (issue 40: no longer every matching row joined to
    its group): a shorter page is the start of a longer one, groups first, then resources by group and id."""
    everything = search.search("JsonSchema", 1000)
    assert everything.total == len(everything.hits) >= 3
    resources = [h.obj for h in everything.hits if not hasattr(h.obj, "gid")]
    assert resources == sorted(resources, key=lambda r: (r.group.group_type, r.group.gid, r.rid))
    for limit in range(1, len(everything.hits) + 1):
        page = search.search("JsonSchema", limit)
        assert [h.path for h in page.hits] == [h.path for h in everything.hits][:limit]
        assert page.total == everything.total


def schemas(group: str, count: int) -> dict:
    """A group of `count` schemas, each of one JSON Schema version holding `amount` (and one of them `zebraMarker`)."""
    documents = {
        f"Event{n}": {"type": "object", "properties": {"amount": {"type": "number"}, f"field{n}": {"type": "string"}}}
        for n in range(count)
    }
    documents["Event7"]["properties"]["zebraMarker"] = {"type": "boolean"}
    versions = {
        name: {"format": "JsonSchema/draft-07", "versions": {"1": {"format": "JsonSchema/draft-07", "schema": doc}}}
        for name, doc in documents.items()
    }
    return {"specversion": "0.5-wip", "schemaGroups": {group: {"schemas": versions}}}


def rows_read() -> int:
    """The rows of versions and resources this transaction has read so far, by PostgreSQL's own counters: rows read by
    sequential scans and rows fetched through indexes (not the entries of a GIN index's list of the documents holding a
    word, which a common word's full-text lookup still reads whole: docs/performance.md)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(seq_tup_read + coalesce(idx_tup_fetch, 0)), 0) FROM pg_stat_xact_user_tables "
            "WHERE relname IN ('registry_version', 'registry_resource')"
        )
        return int(cursor.fetchone()[0])


@pytest.mark.skipif("connection.vendor != 'postgresql'")
def test_a_word_in_every_version_is_answered_without_reading_every_row(db, monkeypatch):
    """issue 40: at 1M versions the search for a format every version has (`JsonSchema`) ran for more than 10 minutes
    (its substring match read every version, then every matching resource was ordered and counted). Each word is now
    looked up in at most LOOKUP_CAP rows per lookup: the rows a search reads do not grow with the registry, its first
    page is full and says it was capped, and a rare word with a common one still finds every match."""
    from registry.documents.imports import import_document
    from registry.services import WriteContext

    monkeypatch.setattr(search, "LOOKUP_CAP", 20)
    read: dict[str, list[int]] = {}
    groups: set[str] = set()
    for group, count in (("small", 150), ("large", 900)):
        groups.add(group)
        import_document(WriteContext(user="test"), schemas(group, count))
        with connection.cursor() as cursor:  # statistics, and plans as on a large registry (where reading a table
            # costs more than its indexes): a table read whole here is one the search reads whole at any size
            cursor.execute("ANALYZE registry_version; ANALYZE registry_resource; SET LOCAL enable_seqscan = off")
        for query in ("JsonSchema", "amount", "JsonSchema amount"):
            before = rows_read()
            results = search.search(query, 10)
            list(search.matching_versions(query).values_list("pk"))  # the versions' changelist's lookups
            read.setdefault(query, []).append(rows_read() - before)
            assert results.capped and len(results.hits) == 10 and results.total < 150, (query, results)
        rare = search.search("amount zebraMarker JsonSchema", 10)  # the rare word's matches, each checked for the rest
        assert not rare.capped and [h.path for h in rare.hits] == [
            f"/schemaGroups/{g}/schemas/Event7" for g in sorted(groups)
        ]
    for query, (small, large) in read.items():
        assert large < small * 2 + 50, (query, read)  # 1,050 versions against 150: not 7 times the rows


def entries_read() -> int:
    """The entries this transaction's scans have read from the indexes of versions and resources (`idx_tup_read`, which
    has no view per transaction: a GIN index's list of the documents holding a word counts each document), and the rows
    read besides (`rows_read`)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(pg_stat_get_xact_tuples_returned(indexrelid)), 0) FROM pg_index "
            "WHERE indrelid IN ('registry_version'::regclass, 'registry_resource'::regclass)"
        )
        return int(cursor.fetchone()[0]) + rows_read()


@pytest.mark.skipif("connection.vendor != 'postgresql'")
def test_a_word_in_every_document_is_not_read_in_every_entry_of_the_index(db, rf, django_user_model, monkeypatch):
    """issue 40: a GIN index reads a word's whole list of documents before a lookup's LIMIT applies, so at 1M versions
    the search for a word in every document read a million entries, and the changelists' search joined its page to
    every version, or read a whole index, through a subquery of the matching ids. A common word is now looked up in
    the sparsest sample of the documents expected to hold the lookup's matches (migration 0020), and the changelists
    filter by the ids themselves: what the search page (one common word, and two) and the changelists' search (their
    page of 100 and its count) read does not grow with the registry."""
    from catalog.models import Schema, SchemaVersion
    from registry.documents.imports import import_document
    from registry.governance.discovery import discover_admin
    from registry.services import WriteContext

    monkeypatch.setattr(search, "LOOKUP_CAP", 20)
    request = rf.get("/", {"q": "amount"})
    request.user = django_user_model.objects.create_superuser("gov", "g@example.com", "pw")
    read: list[int] = []
    for group, count in (("small", 150), ("large", 1500)):
        import_document(WriteContext(user="test"), schemas(group, count))
        with connection.cursor() as cursor:  # statistics, and plans as on a large registry (test_a_word_in_every...)
            cursor.execute("ANALYZE registry_version; ANALYZE registry_resource; SET LOCAL enable_seqscan = off")
        before = entries_read()
        results = search.search("amount", 10)
        both = search.search("amount field", 10)  # two common words: the second looked up again among the first's
        assert both.capped and len(both.hits) == 10, both
        for model in (Schema, SchemaVersion):
            changelist = discover_admin().get_model_admin(model)
            found, _ = changelist.get_search_results(request, changelist.get_queryset(request), "amount")
            assert len(found.order_by(*changelist.get_ordering(request))[:100]) == 20 and found.count() == 20
        read.append(entries_read() - before)
        assert results.capped and len(results.hits) == 10, results
        assert all(hit.matched == ["document (version 1)"] for hit in results.hits)
    small, large = read
    assert large < small * 2 + 50, read  # 1,650 versions against 150: not 11 times the entries


def test_a_hit_reads_only_its_newest_versions_documents(db, monkeypatch):
    """issue 40: the page read every version's document of each hit to name the latest holding a word; a long schema
    (5,000 versions of up to 5,000 properties at 1M) on the first page was hundreds of megabytes. Only the newest
    SHOWN_AMONG versions are read: a word only in an older one still finds the resource (its lookup saw it), and the
    page says "document" without naming that version."""
    from registry.documents.imports import import_document
    from registry.services import WriteContext

    versions = {
        str(v): {
            "format": "JsonSchema/draft-07",
            "schema": {"type": "object", "title": "oldest" if v == 1 else f"v{v}"},
        }
        for v in range(1, 9)
    }
    schema = {"format": "JsonSchema/draft-07", "versions": versions}
    import_document(
        WriteContext(user="test"), {"specversion": "0.5-wip", "schemaGroups": {"g": {"schemas": {"Long": schema}}}}
    )
    monkeypatch.setattr(search, "SHOWN_AMONG", 3)
    assert [(h.path, h.matched) for h in search.search("oldest").hits] == [
        ("/schemaGroups/g/schemas/Long", ["document"])
    ]
    assert search.search("v7").hits[0].matched == ["document (version 7)"]
    monkeypatch.setattr(search, "SHOWN_AMONG", 50)
    assert search.search("oldest").hits[0].matched == ["document (version 1)"]
