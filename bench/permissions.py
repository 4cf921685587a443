"""The cost of teams and owners (issue 27) on a document GET and a version POST, side by side in one run: 1,000 schema
groups (each one schema, one version) and 50 teams, with owners off (no group has any; the writer holds the model
permissions of "Registry editors") and on (every group owned by one team, edited by another; the writer is in one
team and holds no model permission). Prints figures; asserts nothing.

The requests go through the whole Django stack in this process (django.test.Client, token authentication, the
middleware, the binding's view, the services), against a throwaway PostgreSQL (or `--sqlite`), so the figures are the
server's own time without network noise. Scenarios alternate round by round, owners switched between rounds:

- document GET `/schemaGroups/G/schemas/s` with `REGISTRY_PUBLIC_READ=1` (no read check at all), and with `0` (the
  check: the group's owners looked up, the rule evaluated) with owners off and on;
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
    """1,000 groups of one schema each, 50 teams, the writer `bench` in team-07 (and, for owners off, a Registry
    editor)."""
    from django.contrib.auth.models import Group as Team
    from django.contrib.auth.models import User
    from rest_framework.authtoken.models import Token

    from registry.documents.imports import import_document
    from registry.roles import EDITORS
    from registry.services import WriteContext

    document = {
        "schemaGroups": {
            f"g{n:04d}": {
                "schemas": {
                    "s": {
                        "format": "JsonSchema/draft-07",
                        "versions": {"1": {"format": "JsonSchema/draft-07", "schema": SCHEMA}},
                    }
                }
            }
            for n in range(GROUPS)
        }
    }
    began = time.perf_counter()
    import_document(WriteContext(user="bench", door="import"), document)
    print(f"loaded {GROUPS} groups in {time.perf_counter() - began:.0f} s")
    teams = [Team.objects.get_or_create(name=f"team-{n:02d}")[0] for n in range(TEAMS)]
    user = User.objects.create_user("bench", password="pw")
    user.groups.add(teams[7])
    token = Token.objects.create(user=user).key
    return user, token, Team.objects.get(name=EDITORS)


def owners_of(n: int) -> dict:
    return {f"team-{n % TEAMS:02d}": "owner", f"team-{(n + 1) % TEAMS:02d}": "editor"}


def switch(owners_on: bool, user, editors) -> None:
    """Owners on every group (the writer a member of team-07, no model permission) or on none (the writer a
    Registry editor)."""
    from registry.models import Group

    groups = list(Group.objects.all())
    for group in groups:
        n = int(group.gid[1:])
        group.extensions = {"owners": owners_of(n)} if owners_on else {}
    Group.objects.bulk_update(groups, ["extensions"], batch_size=500)
    if owners_on:
        user.groups.remove(editors)
    else:
        user.groups.add(editors)


def team_groups() -> list[str]:
    """The groups team-07 owns or edits (where the writer writes, owners on or off)."""
    return [f"g{n:04d}" for n in range(GROUPS) if 7 in (n % TEAMS, (n + 1) % TEAMS)]


def timed(send, count: int) -> list[float]:
    samples = []
    for n in range(count):
        began = time.perf_counter()
        response = send(n)
        samples.append((time.perf_counter() - began) * 1e6)
        assert response.status_code in (200, 201), (response.status_code, response.content[:300])
    return samples


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sqlite", action="store_true", help="SQLite instead of a throwaway PostgreSQL")
    parser.add_argument("--requests", type=int, default=300, help="requests per scenario and round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    postgres = setup_database(args.sqlite)
    try:
        from django.conf import settings
        from django.test import Client

        user, token, editors = load()
        client = Client(HTTP_AUTHORIZATION=f"Token {token}")
        mine = team_groups()
        version = json.dumps({**SCHEMA, "description": "next"})

        def get(n):
            return client.get(f"/schemaGroups/{mine[n % len(mine)]}/schemas/s")

        def post(n):
            return client.generic(
                "POST",
                f"/schemaGroups/{mine[n % len(mine)]}/schemas/s",
                version,
                content_type="application/json",
            )

        scenarios = {
            ("GET", "public reads (no check)"): [],
            ("GET", "owners off"): [],
            ("GET", "owners on"): [],
            ("POST", "owners off"): [],
            ("POST", "owners on"): [],
        }
        for _round in range(args.rounds):
            for owners_on in (False, True):
                switch(owners_on, user, editors)
                user = type(user).objects.get(pk=user.pk)
                label = "owners on" if owners_on else "owners off"
                if not owners_on:
                    settings.REGISTRY_PUBLIC_READ = True
                    timed(get, 20)  # warm
                    scenarios[("GET", "public reads (no check)")] += timed(get, args.requests)
                settings.REGISTRY_PUBLIC_READ = False
                timed(get, 20)
                scenarios[("GET", label)] += timed(get, args.requests)
                scenarios[("POST", label)] += timed(post, max(20, args.requests // 5))
                settings.REGISTRY_PUBLIC_READ = True
        database = "SQLite" if args.sqlite else "PostgreSQL"
        print(f"\n{database}, {GROUPS} groups, {TEAMS} teams, {args.rounds} rounds (median, p95 in microseconds)")
        medians = {}
        for (method, label), samples in scenarios.items():
            samples.sort()
            medians[(method, label)] = statistics.median(samples)
            p95 = samples[int(len(samples) * 0.95) - 1]
            print(f"  {method:4} {label:26} median {medians[(method, label)]:8.0f}  p95 {p95:8.0f}  n={len(samples)}")
        for method in ("GET", "POST"):
            off, on = medians[(method, "owners off")], medians[(method, "owners on")]
            print(f"  {method}: owners on vs off {100 * (on - off) / off:+.1f}%")
        public = medians[("GET", "public reads (no check)")]
        off = medians[("GET", "owners off")]
        print(
            f"  GET: the read check itself (public reads off, owners off, vs public reads) {100 * (off - public) / public:+.1f}%"
        )
    finally:
        if postgres is not None:
            postgres.stop()


if __name__ == "__main__":
    main()
