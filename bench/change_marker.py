"""The whole-registry read with a long history, side by side (issue 29): this checkout and a baseline checkout behind
gunicorn (4 workers) on one throwaway PostgreSQL holding the demo registry and `--history` outbox rows (1,000,000 by
default: the change events of a registry's past, already relayed).

Every whole-registry read (`GET /?inline`, the exports, the 1.0 export) first reads the registry's change marker to
know whether its kept rendered answer is still current. The baseline counted the outbox for it; this checkout reads
a handful of counter rows (registry/store/change_marker.py). Prints, per server, `GET /?inline` (kept answer) and its
revalidation (`If-None-Match`: 304) in requests/s with wrk (2 threads, 8 connections; the median of the rounds), and
the marker query alone, timed in this process against the same database (old and new query, median of 20).
Asserts nothing.

    .venv/bin/python bench/change_marker.py --baseline ../main-baseline [--history 1000000 --seconds 10 --rounds 2]
"""

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PYTHON = sys.executable
from bench.read_paths import serve, side_by_side_setup, wrk  # noqa: E402

HISTORY_SQL = """
INSERT INTO registry_outboxevent (id, type, source, subject, time, created_at, relayed_at)
SELECT gen_random_uuid(), 'io.cloudevents.registry.schemaGroup.updated.v1', 'http://127.0.0.1:8000',
       '/schemaGroups/history-' || mod(n, 1000), now() - make_interval(secs => n), now() - make_interval(secs => n), now()
FROM generate_series(1, ROWS) AS n
"""


def timed(cursor, sql: str, runs: int = 20) -> float:
    """Median milliseconds of one query."""
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        cursor.execute(sql)
        cursor.fetchall()
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


def main():
    import psycopg

    from tests.harness import services

    history = 1_000_000
    if "--history" in sys.argv:
        at = sys.argv.index("--history")
        history = int(sys.argv[at + 1])
        del sys.argv[at : at + 2]
    args, postgres, _var, env = side_by_side_setup(__doc__, "bench-marker-")
    try:
        for command in (["migrate", "--noinput"], ["load_demo", "--no-user"]):
            subprocess.run([PYTHON, "manage.py", *command], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
        began = time.monotonic()
        with psycopg.connect(postgres.url, autocommit=True) as db:
            db.execute(HISTORY_SQL.replace("ROWS", str(int(history))))
            db.execute("VACUUM ANALYZE registry_outboxevent")
            rows = db.execute("SELECT count(*) FROM registry_outboxevent").fetchone()[0]
            print(f"{rows:,} outbox rows ({history:,} of history, written in {time.monotonic() - began:.0f} s)")
            cursor = db.cursor()
            old = timed(cursor, "SELECT count(id), max(created_at) FROM registry_outboxevent")
            new = timed(cursor, "SELECT sum(changes), max(changed_at) FROM registry_changecount")
        port = services.free_port()
        base = f"http://127.0.0.1:{port}"
        reads = {
            "GET /?inline (kept answer)": {"baseline": [], "this": []},
            "revalidation (304)": {"baseline": [], "this": []},
        }
        for _round in range(args.rounds):
            for label, checkout in (("baseline", args.baseline.resolve()), ("this", ROOT)):
                server = serve(checkout, env, port)
                try:
                    tag = httpx.get(base + "/?inline", timeout=60).headers["ETag"]
                    reads["GET /?inline (kept answer)"][label].append(wrk(base + "/?inline", args.seconds))
                    reads["revalidation (304)"][label].append(
                        wrk(base + "/?inline", args.seconds, {"If-None-Match": tag})
                    )
                finally:
                    os.killpg(server.pid, 15)
                    server.wait(timeout=30)
        print(
            f"wrk -t2 -c8 -d{args.seconds}s, gunicorn 4 workers, PostgreSQL, demo registry; median of {args.rounds} "
            f"rounds; everything on this machine ({os.cpu_count()} cores)"
        )
        print(f"{'':30} {'baseline':>10} {'this':>10} {'ratio':>7}")
        for name, by in reads.items():
            before, after = statistics.median(by["baseline"]), statistics.median(by["this"])
            print(f"{name:30} {before:8.0f}/s {after:8.0f}/s {after / before if before else 0:6.1f}x")
        print(f"{'the marker query alone':30} {old:7.1f} ms {new:7.2f} ms {old / new if new else 0:6.0f}x")
    finally:
        postgres.stop()


if __name__ == "__main__":
    main()
