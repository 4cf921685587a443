"""Two checkouts side by side in process, taking turns (issue 40): the figure a loaded 2-core machine can still
tell apart, for a change of a few percent.

Each checkout gets a throwaway PostgreSQL of its own (migrated by it) and one Python process of its own (its
`.venv`), which calls its WSGI application (`config.wsgi.application`: the whole stack but gunicorn) in process. The
driver asks each process in turn for a block of `--block` requests, `--rounds` times, so that both see the same
minutes of the machine's load; each block reports its wall time, the process's CPU time and its PostgreSQL's
(every process of that server). Prints, per checkout, the medians of the blocks per request, and the ratios.

Kinds (`--kind`): `write`: POST a new version to one schema of `--existing` versions (JSON Schema, compatible with the
previous ones, the default `backward_transitive`); `read`: GET a document (`/schemaGroups/bench/schemas/s`, anonymous,
public reads: the fast path's replay); `inline`: `GET /?inline`; `root`: `GET /`. A throwaway Redis is the broker,
its relay flag set for the whole run so that no relay is queued (the same work on both sides). Asserts only that each answer is 200 or 201.

    .venv/bin/python bench/paired.py --baseline ../main-baseline [--kind write] [--existing 300] [--block 40]
        [--rounds 12]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.version_writes_one_schema import FILL, cpu_seconds, cpu_since, postgres_pids  # noqa: E402

BODY = (
    '{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": '
    '{"a": {"type": "string"}, "n": {"type": "integer", "description": "v%d"}}}'
)

WORKER = r"""
import io, json, os, sys, time
import django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
user = get_user_model().objects.create_superuser("bench", "b@example.com", "bench-password-not-secret")
token = Token.objects.create(user=user, key="0" * 40).key
from config.wsgi import application

def call(method, path, body=b"", token=token):
    path, _, query = path.partition("?")
    environ = {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": query, "SERVER_NAME": "localhost",
        "SERVER_PORT": "80", "HTTP_HOST": "localhost", "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr, "CONTENT_LENGTH": str(len(body)),
        "CONTENT_TYPE": "application/json", "wsgi.multithread": False, "wsgi.multiprocess": True}
    if token:
        environ["HTTP_AUTHORIZATION"] = "Token " + token
    status = []
    answer = application(environ, lambda s, h, exc_info=None: status.append(s))
    content = b"".join(answer)
    getattr(answer, "close", lambda: None)()
    assert status[0][:3] in ("200", "201"), (status, content[:500])

call("PUT", "/schemaGroups/bench", b"{}")
os.environ["FILL_SCHEMA"], os.environ["FILL_COUNT"] = "s", os.environ["BENCH_EXISTING"]
call("POST", "/schemaGroups/bench/schemas", (BODY % 0).encode())  # (its id: below)
"""

WORKER_TAIL = r"""
exec(FILL)
import redis
redis.Redis.from_url(os.environ["CELERY_BROKER_URL"]).set("cloudevents-registry:relay-pending", "1", ex=3600)
kind = os.environ["BENCH_KIND"]
n = 0
def one():
    global n
    n += 1
    if kind == "write":
        call("POST", "/schemaGroups/bench/schemas/s", (BODY % (n + 1_000_000)).encode())
    elif kind == "read":
        call("GET", "/schemaGroups/bench/schemas/s", token=None)
    elif kind == "inline":
        call("GET", "/?inline", token=None)
    else:
        call("GET", "/", token=None)
for _ in range(20):
    one()  # warm: the first requests' reads and compilations
print("ready", flush=True)
for line in sys.stdin:
    count = int(line)
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(count):
        one()
    print(json.dumps([time.perf_counter() - wall, time.process_time() - cpu]), flush=True)
"""


def start(checkout: Path, kind: str, existing: int, broker: str):
    from tests.harness import services

    postgres = services.start_postgres()
    env = {
        **os.environ,
        "DATABASE_URL": postgres.url,
        "REGISTRY_VAR_DIR": tempfile.mkdtemp(prefix="bench-paired-"),
        "DJANGO_DEBUG": "0",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "BENCH_KIND": kind,
        "BENCH_EXISTING": str(existing),
        "PYTHONPATH": "",
    }
    env["CELERY_BROKER_URL"] = broker
    # the first POST names the schema `s`
    script = f"BODY = {BODY!r}\nFILL = {FILL!r}\n" + WORKER.replace(
        'call("POST", "/schemaGroups/bench/schemas", (BODY % 0).encode())',
        'call("PUT", "/schemaGroups/bench/schemas/s", (BODY % 0).encode())',
    )
    script += WORKER_TAIL
    process = subprocess.Popen(
        [str(checkout / ".venv" / "bin" / "python"), "-c", script],
        cwd=checkout,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    if line.strip() != "ready":
        process.kill()
        postgres.stop()
        raise RuntimeError(f"{checkout}: the worker did not start")
    return process, postgres


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", type=Path, required=True, help="another checkout of this project")
    parser.add_argument("--kind", choices=["write", "read", "inline", "root"], default="write")
    parser.add_argument("--existing", type=int, default=300)
    parser.add_argument("--block", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=12)
    args = parser.parse_args()
    checkouts = {"this": ROOT, "baseline": args.baseline.resolve()}
    from tests.harness import services

    redis = services.start_redis()
    running = {name: start(path, args.kind, args.existing, redis.url) for name, path in checkouts.items()}
    blocks: dict[str, list[tuple[float, float, float]]] = {name: [] for name in checkouts}
    try:
        for round_ in range(args.rounds):
            order = list(checkouts) if round_ % 2 == 0 else list(reversed(checkouts))
            for name in order:
                process, postgres = running[name]
                pids = postgres_pids(postgres)
                before = cpu_seconds(pids)
                process.stdin.write(f"{args.block}\n")
                process.stdin.flush()
                wall, cpu = json.loads(process.stdout.readline())
                blocks[name].append((wall, cpu, cpu_since(before, pids)))
    finally:
        for process, postgres in running.values():
            process.stdin.close()
            process.wait(timeout=30)
            postgres.stop()
        redis.stop()
    load = os.getloadavg()[0]
    print(
        f"{args.kind}, {args.existing} existing versions, {args.rounds} x {args.block} requests each, load {load:.1f}"
    )
    medians = {}
    for name in checkouts:
        wall, cpu, pg = (statistics.median(b[i] for b in blocks[name]) * 1000 / args.block for i in range(3))
        medians[name] = (wall, cpu, pg)
        print(f"  {name:9} wall {wall:6.3f} ms   CPU {cpu:6.3f} ms   PostgreSQL CPU {pg:6.3f} ms   (per request)")
    this, base = medians["this"], medians["baseline"]
    print(
        f"  ratio this/baseline: wall {this[0] / base[0]:.3f}  CPU {this[1] / base[1]:.3f}  "
        f"CPU+PostgreSQL {(this[1] + this[2]) / (base[1] + base[2]):.3f}"
    )


if __name__ == "__main__":
    main()
