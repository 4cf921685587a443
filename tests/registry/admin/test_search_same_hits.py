"""The search finds what it found before its lookups were bounded (issue 40 part B): over the demo registry, for every
word of the demo's documents (a sample of them), the benchmark corpus' words and pairs of them, the search page's hits
(paths, in order, with where each word was found), its total, and the resources and versions the changelists list are
those recorded from the search of main at 3ba42fc (`search_hits.json`, one digest per query and database: the full-text
search of PostgreSQL and the substring search of SQLite find different things). A registry this small never reaches
the lookups' cap, so nothing may differ.

    SEARCH_HITS_WRITE=1 .venv/bin/pytest tests/registry/admin/test_search_same_hits.py   # record (SQLite), then
    SEARCH_HITS_WRITE=1 REGISTRY_TEST_DB=postgres .venv/bin/pytest tests/registry/admin/test_search_same_hits.py
"""

import hashlib
import io
import json
import os
import re
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

from catalog.management.commands.load_demo import DEMO_DIR
from registry.models import Resource, Version
from registry.store import search

pytestmark = pytest.mark.django_db

RECORDED = Path(__file__).with_name("search_hits.json")
CORPUS_WORDS = ["amount", "currency", "customer", "address", "street", "city", "price", "status", "JsonSchema"]


def queries() -> list[str]:
    """A sample of the demo documents' words (every third, in sorted order), the corpus words, and pairs."""
    text = "\n".join(path.read_text() for path in sorted(DEMO_DIR.glob("*.cereg")))
    demo = sorted(set(re.findall(r"[A-Za-z][A-Za-z0-9_.-]{2,}", text)))[::3]
    single = sorted(set(demo + CORPUS_WORDS))
    pairs = [f"{a} {b}" for a, b in zip(single[::5], single[2::5], strict=False)]
    return single + pairs + ["JsonSchema amount", "avro sensor", "nosuchword", "%_", "a:* & !"]


def answer(query: str) -> str:
    results = search.search(query, 1000)
    hits = [[hit.kind, hit.path, hit.matched] for hit in results.hits]
    resources = sorted(r.path for r in Resource.objects.filter(pk__in=search.matching_resources(query).values("pk")))
    versions = sorted(
        f"{v.resource.path}@{v.vid}"
        for v in Version.objects.filter(pk__in=search.matching_versions(query).values("pk")).select_related("resource")
    )
    return json.dumps([hits, results.total, results.capped, resources, versions])


def test_the_search_finds_what_it_found_before(db):
    call_command("load_demo", "--no-user", stdout=io.StringIO())
    found = {query: answer(query) for query in queries()}
    digests = {query: hashlib.sha256(text.encode()).hexdigest()[:16] for query, text in found.items()}
    recorded = json.loads(RECORDED.read_text()) if RECORDED.exists() else {}
    if os.environ.get("SEARCH_HITS_WRITE"):
        recorded[connection.vendor] = digests
        RECORDED.write_text(json.dumps(recorded, indent=0, sort_keys=True) + "\n")
        return
    expected = recorded[connection.vendor]
    assert len(expected) > 300
    differ = {query: found[query] for query in expected if digests.get(query) != expected[query]}
    assert not differ, differ
