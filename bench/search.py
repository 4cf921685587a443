"""The registry's search (registry/store/search.py, the admin's search box) over 10,000 schemas, on SQLite and on a
throwaway PostgreSQL (its full-text search and GIN index). Prints the median latency of `search.search(q)`
(counting every match and listing the first 100, as the search page does) per query and database. The goal
(issue 16): under 200 ms. Asserts nothing.

    .venv/bin/python bench/search.py [--groups 20 --schemas 500 --runs 7 --databases sqlite,postgresql]

Each database is filled by importing one generated registry document through the services (the admin's
upload path), in a process of its own, then ANALYZEd (as autovacuum does soon after a bulk load: without
statistics PostgreSQL's first plans may scan the table instead of using the GIN index).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
WORDS = [
    "amount",
    "currency",
    "customer",
    "address",
    "street",
    "city",
    "country",
    "price",
    "quantity",
    "sku",
    "warehouse",
    "carrier",
    "tracking",
    "status",
    "reason",
    "discount",
    "invoice",
    "payment",
    "refund",
    "note",
]
QUERIES = {
    "a word in one document": "zebraMarker",
    "a word's start, in 1 of 5 documents": "warehou",
    "a word in every document": "orderId",
    "an id": "Event4711",
    "a tag value": "team-7",
    "two words": "invoice note",
    "nothing matches": "nosuchwordanywhere",
}


def document(groups: int, schemas: int) -> dict:
    out = {"specversion": "0.5-wip", "schemaGroups": {}}
    n = 0
    for g in range(groups):
        group = {"description": f"benchmark group {g}", "tags": {"owner": f"team-{g}"}, "schemas": {}}
        for _s in range(schemas):
            words = [WORDS[(n * 7 + k * 3) % len(WORDS)] for k in range(4)]
            properties = {
                "orderId": {"type": "string"},
                **{w: {"type": "string", "description": f"the {w} of it"} for w in words},
            }
            if n == 4242:
                properties["zebraMarker"] = {"type": "boolean"}
            group["schemas"][f"Event{n}"] = {
                "format": "JsonSchema/draft-07",
                "versions": {
                    "1": {
                        "format": "JsonSchema/draft-07",
                        "schema": {"type": "object", "title": f"Event {n}", "properties": properties},
                    }
                },
            }
            n += 1
        out["schemaGroups"][f"com.example.bench{g}"] = group
    return out


def worker(groups: int, schemas: int, runs: int) -> None:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from registry.documents.imports import import_document
    from registry.services import WriteContext
    from registry.store import search

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    import_document(WriteContext(user="bench"), document(groups, schemas))
    print(
        f"{connection.vendor}: imported {groups * schemas} schemas in {time.perf_counter() - started:.1f} s", flush=True
    )
    with connection.cursor() as cursor:  # the statistics autovacuum gathers soon after a bulk load anyway
        cursor.execute("ANALYZE")
    for label, query in QUERIES.items():
        search.search(query, 100)  # warm
        times, total = [], 0
        for _ in range(runs):
            results = search.search(query, 100)
            times.append(results.ms)
            total = results.total
        print(
            f"{connection.vendor:10} {label:38} {query!r:22} {total:6d} found  "
            f"median {statistics.median(times):7.1f} ms  max {max(times):7.1f} ms",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=20)
    parser.add_argument("--schemas", type=int, default=500)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--databases", default="sqlite,postgresql", help="which of sqlite,postgresql to run")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.groups, args.schemas, args.runs)
    from tests.harness import services

    argv = [
        sys.executable,
        __file__,
        "--worker",
        "--groups",
        str(args.groups),
        "--schemas",
        str(args.schemas),
        "--runs",
        str(args.runs),
    ]
    base = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "REGISTRY_IMPORT_MAX_ENTITIES": "1000000",
        "DJANGO_DEBUG": "0",
    }
    base.pop("CELERY_BROKER_URL", None)
    with tempfile.TemporaryDirectory(prefix="bench-search-") as var:
        sqlite = {**base, "DATABASE_URL": "", "SQLITE_PATH": str(Path(var) / "bench.sqlite3"), "REGISTRY_VAR_DIR": var}
        if "sqlite" in args.databases:
            subprocess.run(argv, env=sqlite, check=True, cwd=ROOT)
        if "postgresql" in args.databases:
            postgres = services.start_postgres()
            try:
                subprocess.run(
                    argv, env={**base, "DATABASE_URL": postgres.url, "REGISTRY_VAR_DIR": var}, check=True, cwd=ROOT
                )
            finally:
                postgres.stop()
    print(f"(median of {args.runs} runs after one warm-up; this machine: {os.cpu_count()} cores, shared)")


if __name__ == "__main__":
    main()
