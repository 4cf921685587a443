"""New versions of one schema that already has many, side by side (issue 29): this checkout and a baseline checkout
behind gunicorn (4 workers) on one throwaway PostgreSQL, wrk with 8 connections POSTing new versions (a JSON Schema
that differs each time, compatible with the previous ones) to the same schema, at the default compatibility
`backward_transitive`: every new version is checked against every earlier one.

For each count in `--existing` (default 10,100,1000) and each server, a fresh schema is made with that many versions
(the first through the API, the others inserted as copies of it with other descriptions: filling through the API
would check each against all before it), then written to for `--seconds` (the count grows while it runs: printed).
Prints versions/s per server (the median of the rounds) and the ratio. Without CELERY_BROKER_URL the relay runs in
the request after each commit (eager), as in `make run`; `--broker redis` starts a throwaway Redis as the broker (no
worker: the relay is queued, as in production, and never runs). Asserts nothing.

    .venv/bin/python bench/version_writes_one_schema.py --baseline ../main-baseline [--existing 10,100,1000]
        [--broker redis] [--seconds 5 --rounds 2]
"""

import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PYTHON = sys.executable
from bench.read_paths import serve, side_by_side_setup  # noqa: E402

LUA = r"""
counter = 0
request = function()
  counter = counter + 1
  local body = '{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": ' ..
               '{"a": {"type": "string"}, "n": {"type": "integer", "description": "v' .. counter .. '-' ..
               math.random(1000000000) .. '"}}}'
  return wrk.format("POST", "/schemaGroups/bench/schemas/SCHEMA", {
    ["Content-Type"] = "application/json", ["Authorization"] = "Token TOKEN"}, body)
end
"""

# copies of the schema's first version (other descriptions), as the API would store them: ids 2..N created after it
# (and before any version the bench writes), the counter moved
FILL = """
import json, os
from datetime import timedelta
from registry.models import Resource, Version
resource = Resource.objects.get(group__gid="bench", resource_type="schemas", rid=os.environ["FILL_SCHEMA"])
first = Version.objects.get(resource=resource, vid="1")
count = int(os.environ["FILL_COUNT"])
rows = []
for n in range(2, count + 1):
    doc = json.loads(bytes(first.content))
    doc["properties"]["n"]["description"] = f"filled {n}"
    rows.append(Version(resource=resource, vid=str(n), epoch=1, content=json.dumps(doc).encode(),
        media_type=first.media_type, extensions=first.extensions, created_on=first.created_on + timedelta(microseconds=n),
        modified_on=first.created_on + timedelta(microseconds=n), created_by="bench", modified_by="bench"))
Version.objects.bulk_create(rows, batch_size=500)
resource.version_counter = count
resource.latest = Version.objects.get(resource=resource, vid=str(count))
resource.save(update_fields=["version_counter", "latest"])
"""


def manage(env: dict, *args: str, **more: str) -> str:
    return subprocess.run(
        [PYTHON, "manage.py", *args], cwd=ROOT, env={**env, **more}, check=True, capture_output=True, text=True
    ).stdout


def main():
    from tests.harness import services

    existing, broker = [10, 100, 1000], None
    for option in ("--existing", "--broker"):
        if option in sys.argv:
            at = sys.argv.index(option)
            value = sys.argv[at + 1]
            del sys.argv[at : at + 2]
            if option == "--existing":
                existing = [int(n) for n in value.split(",")]
            else:
                broker = value
    args, postgres, var, env = side_by_side_setup(__doc__, "bench-writes-one-")
    redis = None
    try:
        if broker == "redis":
            redis = services.start_redis()
            env["CELERY_BROKER_URL"] = redis.url
        manage(env, "migrate", "--noinput")
        token = manage(
            env,
            "shell",
            "-c",
            "from django.contrib.auth import get_user_model; from rest_framework.authtoken.models import Token; "
            "u = get_user_model().objects.create_superuser('bench', 'b@example.com', 'pw'); "
            "print(Token.objects.create(user=u).key)",
        ).splitlines()[-1]
        port = services.free_port()
        base = f"http://127.0.0.1:{port}"
        auth = {"Authorization": f"Token {token}"}
        results: dict[int, dict[str, list[float]]] = {n: {"baseline": [], "this": []} for n in existing}
        ended: dict[int, dict[str, int]] = {n: {} for n in existing}
        for round_ in range(args.rounds):
            for label, checkout in (("baseline", args.baseline.resolve()), ("this", ROOT)):
                server = serve(checkout, env, port)
                try:
                    httpx.put(f"{base}/schemaGroups/bench", json={}, headers=auth)
                    for count in existing:
                        schema = f"s{count}-{label}-{round_}"
                        first = httpx.post(
                            f"{base}/schemaGroups/bench/schemas",
                            headers={
                                **auth,
                                "Content-Type": "application/json",
                                "Registry-id": schema,
                                "Registry-format": "JsonSchema/draft-07",
                            },
                            content=b'{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", '
                            b'"properties": {"a": {"type": "string"}, "n": {"type": "integer"}}}',
                        )
                        assert first.status_code == 201, first.text
                        manage(env, "shell", "-c", FILL, FILL_SCHEMA=schema, FILL_COUNT=str(count))
                        script = var / "post.lua"
                        script.write_text(LUA.replace("TOKEN", token).replace("SCHEMA", schema))
                        out = subprocess.run(
                            ["wrk", "-t", "2", "-c", "8", "-d", f"{args.seconds}s", "-s", str(script), base + "/"],
                            capture_output=True,
                            text=True,
                        ).stdout
                        rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
                        if "Non-2xx or 3xx responses" in out:
                            print(f"  ({label}, {count} versions: some answers were not 201)")
                        results[count][label].append(rate)
                        listed = httpx.get(f"{base}/schemaGroups/bench/schemas?limit=1000", headers=auth).json()
                        ended[count][label] = listed.get(schema, {}).get("versionsCount", 0)
                finally:
                    os.killpg(server.pid, 15)
                    server.wait(timeout=30)
        print(
            f"wrk -t2 -c8 -d{args.seconds}s POSTing new versions to one schema (backward_transitive), gunicorn 4 "
            f"workers, PostgreSQL, {'a Redis broker' if broker else 'eager relay (no broker)'}; median of "
            f"{args.rounds} rounds; this machine ({os.cpu_count()} cores)"
        )
        print(f"{'existing versions':>18} {'baseline':>10} {'this':>10} {'ratio':>7}   versions at the end")
        for count, by in results.items():
            before, after = statistics.median(by["baseline"]), statistics.median(by["this"])
            ends = ", ".join(f"{k} {v}" for k, v in ended[count].items())
            print(f"{count:>18} {before:8.0f}/s {after:8.0f}/s {after / before if before else 0:6.2f}x   {ends}")
    finally:
        postgres.stop()
        if redis is not None:
            redis.stop()


if __name__ == "__main__":
    main()
