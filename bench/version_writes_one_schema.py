"""New versions of one schema that already has many, side by side (issue 29): this checkout and a baseline checkout
behind gunicorn (4 workers) on one throwaway PostgreSQL, wrk with 8 connections POSTing new versions (a JSON Schema
that differs each time, compatible with the previous ones) to the same schema, at the default compatibility
`backward_transitive`: every new version is checked against every earlier one.

For each count in `--existing` (default 10,100,1000) and each server, a fresh schema is made with that many versions
(the first through the API, the others inserted as copies of it with other descriptions: filling through the API
would check each against all before it; then the table's statistics are brought up to date, as autovacuum does within
a minute of such growth and as a registry that grew to that size has them), then written to for `--seconds` (the
count grows while it runs: printed).
Both servers run at once; each count's figures of the two are measured one after the other (in turn first), so
that they see the same load. Prints versions/s per server (the median of the rounds), the ratio, the 1-minute load
average while each figure was measured and the CPU milliseconds per write of the server's processes and of
PostgreSQL's (a figure the machine's load moves less); `--lock-times`: also the median time each server's writes
held the schema's row lock and the holder's CPU time in it, measured in the servers (bench/lock_probe). Without
CELERY_BROKER_URL the relay runs in the request after each commit (eager), as in `make run`; `--broker redis` starts
a throwaway Redis as the broker (no worker: the relay is queued, as in production, and never runs). Asserts nothing.

    .venv/bin/python bench/version_writes_one_schema.py --baseline ../main-baseline [--existing 10,100,1000]
        [--broker redis] [--workers 4] [--seconds 5 --rounds 2] [--lock-times]
"""

import os
import re
import statistics
import subprocess
import sys
import time
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
from django.db import connection
if connection.vendor == "postgresql":  # the statistics autovacuum keeps of a table that grew (within a minute)
    connection.cursor().execute("ANALYZE registry_version")
"""


def manage(env: dict, *args: str, **more: str) -> str:
    return subprocess.run(
        [PYTHON, "manage.py", *args], cwd=ROOT, env={**env, **more}, check=True, capture_output=True, text=True
    ).stdout


HZ = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    """User and system CPU seconds of each of these processes so far (those still running)."""
    seconds = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        seconds[pid] = (int(fields[11]) + int(fields[12])) / HZ
    return seconds


def cpu_since(before: dict[int, float], pids: list[int]) -> float:
    """CPU seconds these processes spent since `before` (a process started since: all of its own)."""
    return sum(t - before.get(pid, 0.0) for pid, t in cpu_seconds(pids).items())


def tree(pid: int) -> list[int]:
    """A process and its children (gunicorn's master and workers)."""
    children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [pid, *(int(c) for c in children)]


def postgres_pids(postgres) -> list[int]:
    """The throwaway PostgreSQL's processes (its postmaster and their backends), not another one's on the machine."""
    postmaster = int((Path(postgres.directory) / "data" / "postmaster.pid").read_text().split()[0])
    return tree(postmaster)


def held_while(path: Path, began: float, ended: float) -> tuple[float, float]:
    """The median milliseconds the lock was held, and the holder's CPU milliseconds in that time, of the writes
    that committed between `began` and `ended` (bench/lock_probe)."""
    rows = [line.split() for line in path.read_text().splitlines()] if path.exists() else []
    rows = [(float(wall), float(cpu)) for at, wall, cpu in rows if began <= float(at) <= ended]
    if not rows:
        return 0.0, 0.0
    return statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows)


def option(name: str, default):
    if name in sys.argv:
        at = sys.argv.index(name)
        value = sys.argv[at + 1]
        del sys.argv[at : at + 2]
        return value
    return default


def new_schema(base: str, auth: dict, schema: str) -> None:
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
        timeout=60,
    )
    assert first.status_code == 201, first.text


def write_for(seconds: int, base: str, var: Path, token: str, schema: str) -> str:
    """wrk's report of `seconds` of new versions of `schema` from 8 connections."""
    script = var / "post.lua"
    script.write_text(LUA.replace("TOKEN", token).replace("SCHEMA", schema))
    return subprocess.run(
        ["wrk", "-t", "2", "-c", "8", "-d", f"{seconds}s", "-s", str(script), base + "/"],
        capture_output=True,
        text=True,
    ).stdout


def main():
    from tests.harness import services

    existing = [int(n) for n in option("--existing", "10,100,1000").split(",")]
    broker = option("--broker", None)
    lock_times = "--lock-times" in sys.argv
    if lock_times:
        sys.argv.remove("--lock-times")
    workers = int(option("--workers", "4"))
    args, postgres, var, env = side_by_side_setup(__doc__, "bench-writes-one-")
    redis = None
    servers: dict[str, tuple[subprocess.Popen, str]] = {}
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
        auth = {"Authorization": f"Token {token}"}
        labels = ("baseline", "this")
        for label, checkout in zip(labels, (args.baseline.resolve(), ROOT), strict=True):
            port = services.free_port()
            own = {**env, "PYTHONPATH": str(ROOT / "bench" / "lock_probe"), "LOCK_PROBE": str(var / f"locks-{label}")}
            servers[label] = (
                serve(checkout, own if lock_times else env, port, workers=workers),
                f"http://127.0.0.1:{port}",
            )
        httpx.put(f"{servers['this'][1]}/schemaGroups/bench", json={}, headers=auth, timeout=60)
        for label in labels:  # every worker's first requests import and cache what writes use: not measured
            new_schema(servers[label][1], auth, f"warm-{label}")
            write_for(2, servers[label][1], var, token, f"warm-{label}")
        # per count and server: writes/s, the load average while measured, server and PostgreSQL CPU ms per write
        results: dict[int, dict[str, list[tuple[float, float, float]]]] = {n: {k: [] for k in labels} for n in existing}
        ended: dict[int, dict[str, int]] = {n: {} for n in existing}
        for round_ in range(args.rounds):
            for count in existing:
                # both servers' figures of one count one after the other: under the same load
                for label in labels if round_ % 2 == 0 else labels[::-1]:
                    server, base = servers[label]
                    schema = f"s{count}-{label}-{round_}"
                    new_schema(base, auth, schema)
                    manage(env, "shell", "-c", FILL, FILL_SCHEMA=schema, FILL_COUNT=str(count))
                    pids = tree(server.pid)
                    began = time.time()
                    load, cpu, pg_cpu = os.getloadavg()[0], cpu_seconds(pids), cpu_seconds(postgres_pids(postgres))
                    out = write_for(args.seconds, base, var, token, schema)
                    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
                    writes = max(1.0, rate * args.seconds)
                    cpu, pg_cpu = cpu_since(cpu, pids), cpu_since(pg_cpu, postgres_pids(postgres))
                    load = (load + os.getloadavg()[0]) / 2
                    if "Non-2xx or 3xx responses" in out:
                        print(f"  ({label}, {count} versions: some answers were not 201)")
                    held = held_while(var / f"locks-{label}", began, time.time()) if lock_times else (0.0, 0.0)
                    results[count][label].append((rate, load, cpu * 1000 / writes, pg_cpu * 1000 / writes, *held))
                    listed = httpx.get(f"{base}/schemaGroups/bench/schemas?limit=1000", headers=auth, timeout=60).json()
                    ended[count][label] = listed.get(schema, {}).get("versionsCount", 0)
        print(
            f"wrk -t2 -c8 -d{args.seconds}s POSTing new versions to one schema (backward_transitive), gunicorn "
            f"{workers} workers x {os.environ.get('GUNICORN_THREADS', 4)} threads, PostgreSQL, "
            f"{'a Redis broker' if broker else 'eager relay (no broker)'}; median of {args.rounds} rounds; this "
            f"machine ({os.cpu_count()} cores); load: the 1-minute load average while measured; CPU: ms per write of "
            "the server's processes + PostgreSQL's"
        )
        print(f"{'existing versions':>18} {'baseline':>34} {'this':>34} {'ratio':>7}   versions at the end")
        for count, by in results.items():
            cells = []
            for label in labels:
                figures = by[label]
                rate = statistics.median(f[0] for f in figures)
                loads = "/".join(f"{f[1]:.1f}" for f in figures)
                cpu = statistics.median(f[2] for f in figures)
                pg = statistics.median(f[3] for f in figures)
                cells.append(f"{rate:6.0f}/s (load {loads}; CPU {cpu:4.1f}+{pg:3.1f})")
                if lock_times:
                    held = statistics.median(f[4] for f in figures)
                    held_cpu = statistics.median(f[5] for f in figures)
                    cells[-1] = cells[-1][:-1] + f"; lock {held:.1f} ms, its CPU {held_cpu:.1f})"
            before, after = (statistics.median(f[0] for f in by[label]) for label in labels)
            ends = ", ".join(f"{k} {v}" for k, v in ended[count].items())
            print(f"{count:>18} {cells[0]:>34} {cells[1]:>34} {after / before if before else 0:6.2f}x   {ends}")
    finally:
        for server, _base in servers.values():
            os.killpg(server.pid, 15)
            server.wait(timeout=30)
        postgres.stop()
        if redis is not None:
            redis.stop()


if __name__ == "__main__":
    main()
