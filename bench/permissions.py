"""The cost of teams and owners (issue 27) on a document GET and a version POST, side by side in one run: 1,000 schema
groups owned by teams (each group one team `owner`, the next `editor`, among 50 teams) beside 1,000 groups without
owners, each group one schema of one version. The caller `bench` is in team-07 and holds the model permissions of
"Registry editors" (which open the groups without owners, and grant nothing in groups with owners). Prints figures
and the queries each request makes; asserts nothing.

The requests go through the whole Django stack in this process (django.test.Client, token authentication, the
middleware, the binding's view, the services), against a throwaway PostgreSQL (or `--sqlite`), so the figures are the
server's own time without network noise. The scenarios are interleaved request by request (owners on, owners off, ...),
so that the load of a shared machine weighs on each alike:

- document GET `/schemaGroups/G/schemas/s` with `REGISTRY_PUBLIC_READ=1` (no read check: the fast path of
  registry/http/fast_reads.py, and the whole way with it off), and with `0` (the read check: the group's owners and the
  caller's teams read, the rule evaluated) in a group without owners ("owners off") and in one of team-07's;
- version POST `/schemaGroups/G/schemas/s` (a new version; the write's checks, the audit row), owners off and on.

    .venv/bin/python bench/permissions.py [--sqlite] [--requests 300] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GROUPS, TEAMS = 1000, 50
SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {"id": {"type": "string"}},
}


def setup_database(use_sqlite: bool):
    var = tempfile.mkdtemp(prefix="bench-permissions-")
    os.environ.update({"REGISTRY_VAR_DIR": var, "DJANGO_SETTINGS_MODULE": "config.settings", "DJANGO_DEBUG": "0"})
    os.environ.pop("CELERY_BROKER_URL", None)
    postgres = None
    if use_sqlite:
        os.environ.pop("DATABASE_URL", None)
    else:
        from tests.harness import services

        postgres = services.start_postgres()
        os.environ["DATABASE_URL"] = postgres.url
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", "--noinput", verbosity=0)
    return postgres


def load():
    """1,000 groups with owners (`g0000`...) and 1,000 without (`h0000`...), one schema each; 50 teams; the caller
    `bench` in team-07 and a Registry editor."""
    from django.contrib.auth.models import Group as Team
    from django.contrib.auth.models import User
    from rest_framework.authtoken.models import Token

    from registry.access.roles import EDITORS
    from registry.documents.imports import import_document
    from registry.services import WriteContext

    teams = [Team.objects.get_or_create(name=f"team-{n:02d}")[0] for n in range(TEAMS)]
    schema = {
        "schemas": {
            "s": {
                "format": "JsonSchema/draft-07",
                "versions": {"1": {"format": "JsonSchema/draft-07", "schema": SCHEMA}},
            }
        }
    }
    groups = {f"g{n:04d}": {"owners": owners_of(n), **schema} for n in range(GROUPS)}
    groups.update({f"h{n:04d}": schema for n in range(GROUPS)})
    began = time.perf_counter()
    import_document(WriteContext(user="bench", door="import"), {"schemaGroups": groups})
    print(f"loaded {2 * GROUPS} groups in {time.perf_counter() - began:.0f} s")
    user = User.objects.create_user("bench", password="pw")
    user.groups.add(teams[7], Team.objects.get(name=EDITORS))
    return Token.objects.create(user=user).key


def owners_of(n: int) -> dict:
    return {f"team-{n % TEAMS:02d}": "owner", f"team-{(n + 1) % TEAMS:02d}": "editor"}


def team_groups() -> list[str]:
    """The owned groups team-07 owns or edits (where the caller reads and writes with owners on)."""
    return [f"g{n:04d}" for n in range(GROUPS) if 7 in (n % TEAMS, (n + 1) % TEAMS)]


def timed(send, n: int) -> float:
    began = time.perf_counter()
    response = send(n)
    elapsed = (time.perf_counter() - began) * 1e6
    assert response.status_code in (200, 201), (response.status_code, response.content[:300])
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sqlite", action="store_true", help="SQLite instead of a throwaway PostgreSQL")
    parser.add_argument("--requests", type=int, default=300, help="requests per scenario and round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    postgres = setup_database(args.sqlite)
    try:
        from django.conf import settings
        from django.db import connection
        from django.test import Client
        from django.test.utils import CaptureQueriesContext

        client = Client(HTTP_AUTHORIZATION=f"Token {load()}")
        owned = team_groups()
        plain = [f"h{n:04d}" for n in range(len(owned))]
        version = json.dumps({**SCHEMA, "description": "next"})

        def reads(groups, public: bool, fast: bool = True):
            def send(n):
                settings.REGISTRY_PUBLIC_READ, settings.REGISTRY_FAST_READS = public, fast
                return client.get(f"/schemaGroups/{groups[n % len(groups)]}/schemas/s")

            return send

        def writes(groups):
            def send(n):
                path = f"/schemaGroups/{groups[n % len(groups)]}/schemas/s"
                return client.generic("POST", path, version, content_type="application/json")

            return send

        scenarios = {
            ("GET", "public reads, fast path"): reads(plain, True),
            ("GET", "public reads, whole way"): reads(plain, True, fast=False),
            ("GET", "owners off"): reads(plain, False),
            ("GET", "owners on"): reads(owned, False),
            ("POST", "owners off"): writes(plain),
            ("POST", "owners on"): writes(owned),
        }
        queries = {}
        for key, send in scenarios.items():
            send(0)  # warm
            with CaptureQueriesContext(connection) as captured:
                send(1)
            queries[key] = len(captured)
        samples: dict = {key: [] for key in scenarios}
        for _round in range(args.rounds):
            for n in range(args.requests):
                for key, send in scenarios.items():
                    if key[0] == "GET" or n % 5 == 0:  # a fifth as many POSTs
                        samples[key].append(timed(send, n + 2))
        settings.REGISTRY_PUBLIC_READ, settings.REGISTRY_FAST_READS = True, True
        database = "SQLite" if args.sqlite else "PostgreSQL"
        print(
            f"\n{database}, {GROUPS} groups with owners and {GROUPS} without, {TEAMS} teams, {args.rounds} rounds "
            "(median and p95 in microseconds, queries per request)"
        )
        medians = {}
        for key, values in samples.items():
            values.sort()
            medians[key] = statistics.median(values)
            p95 = values[int(len(values) * 0.95) - 1]
            method, label = key
            print(
                f"  {method:4} {label:26} median {medians[key]:8.0f}  p95 {p95:8.0f}  queries {queries[key]:2d}  n={len(values)}"
            )
        for method in ("GET", "POST"):
            off, on = medians[(method, "owners off")], medians[(method, "owners on")]
            print(f"  {method}: owners on vs off {100 * (on - off) / off:+.1f}%")
        whole = medians[("GET", "public reads, whole way")]
        off = medians[("GET", "owners off")]
        print(
            f"  GET: the read check (public reads off, owners off) vs public reads the whole way {100 * (off - whole) / whole:+.1f}%"
        )
    finally:
        if postgres is not None:
            postgres.stop()


if __name__ == "__main__":
    main()
