"""Benchmark of the core binding on PostgreSQL behind gunicorn (issue 2). Prints figures; asserts nothing.

Generates 10 schema groups x 150 schemas x 5 versions (7,500 versions), imports them, serves them with
gunicorn (--workers N) and measures: GET / latency, GET /?inline time and the worker's peak memory,
a filtered list, GET of a latest schema document with 8 concurrent clients (requests/s), and creating
versions with 8 concurrent clients (versions/s). With wrk installed it also measures the xRegistry 1.0 paths
side by side with their 0.5 counterparts (a schema document, the root, the whole registry), each pair
alternated twice in one run.

    .venv/bin/python bench/registry_api.py [--workers 4] [--database-url postgres://...]

Without --database-url (or DATABASE_URL) a throwaway PostgreSQL is started with the test harness.
"""

import argparse
import json
import os
import re
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PYTHON = sys.executable


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def manage(env, *args):
    subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)


def timed(fn, n):
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95) - 1]


def concurrent(fn, clients: int, seconds: float) -> float:
    count = [0] * clients
    stop = time.perf_counter() + seconds

    def loop(i):
        with httpx.Client(timeout=30) as client:
            while time.perf_counter() < stop:
                fn(client, i, count[i])
                count[i] += 1

    threads = [threading.Thread(target=loop, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(count) / seconds


def peak_rss_kib(pids) -> int:
    peak = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]))
        except OSError:
            pass
    return peak


def children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [int(p) for p in out]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL"))
    parser.add_argument("--groups", type=int, default=10)
    parser.add_argument("--schemas", type=int, default=150)
    parser.add_argument("--versions", type=int, default=5)
    args = parser.parse_args()

    from tests.harness import services

    postgres = None
    if not args.database_url:
        postgres = services.start_postgres()
        args.database_url = postgres.url
    # a broker, as in production: a write only queues the relay instead of running it in the request
    redis = services.start_redis() if services.redis_available() else None
    tmp = Path(tempfile.mkdtemp(prefix="bench-"))
    env = {
        **os.environ,
        "DATABASE_URL": args.database_url,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY") or secrets.token_urlsafe(50),  # gunicorn needs one
        "REGISTRY_VAR_DIR": str(tmp),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
    }
    if redis is not None:
        env["CELERY_BROKER_URL"] = redis.url
    try:
        manage(env, "migrate", "--noinput")
        doc = tmp / "bench.cereg"
        subprocess.run(
            [
                PYTHON,
                "bench/generate_registry.py",
                "--groups",
                str(args.groups),
                "--schemas",
                str(args.schemas),
                "--versions",
                str(args.versions),
                "-o",
                str(doc),
            ],
            cwd=ROOT,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        start = time.perf_counter()
        manage(env, "import_registry", str(doc))
        print(f"import of {args.groups * args.schemas * args.versions} versions: {time.perf_counter() - start:.1f} s")
        subprocess.run(
            [
                PYTHON,
                "-c",
                "import django; django.setup(); from django.contrib.auth.models import User; "
                "User.objects.filter(username='bench').exists() or "
                "User.objects.create_superuser('bench', 'b@example.com', 'bench')",
            ],
            cwd=ROOT,
            env=env,
            check=True,
        )
        token = subprocess.run(
            [PYTHON, "manage.py", "drf_create_token", "bench"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()[2]
        port = free_port()
        server = subprocess.Popen(
            [
                str(Path(PYTHON).parent / "gunicorn"),
                "config.wsgi",
                "-b",
                f"127.0.0.1:{port}",
                "--workers",
                str(args.workers),
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env=env,
        )
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                httpx.get(base + "/", timeout=2)
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        try:
            run_measurements(base, token, server.pid, args)
        finally:
            server.terminate()
            server.wait(timeout=30)
    finally:
        if postgres is not None:
            postgres.stop()
        if redis is not None:
            redis.stop()


def run_measurements(base: str, token: str, server_pid: int, args) -> None:
    auth = {"Authorization": f"Token {token}"}
    with httpx.Client(timeout=60) as client:
        client.get(base + "/")
        p50, p95 = timed(lambda: client.get(base + "/").raise_for_status(), 200)
        print(f"GET /: p50 {p50:.1f} ms, p95 {p95:.1f} ms (goal <= 20 ms)")
        rss_before = peak_rss_kib(children(server_pid))
        start = time.perf_counter()
        size = 0
        with client.stream("GET", base + "/?inline") as response:
            for chunk in response.iter_bytes():
                size += len(chunk)
        inline_s = time.perf_counter() - start
        rss_after = peak_rss_kib(children(server_pid))
        print(
            f"GET /?inline: {inline_s:.2f} s for {size / 1e6:.1f} MB (goal <= 0.5 s); worker peak RSS "
            f"{rss_before / 1024:.0f} MiB before, {rss_after / 1024:.0f} MiB after"
        )
        # each worker renders once per committed change and keeps the answer (registry/http/rendered_answers.py)
        p50, p95 = timed(lambda: client.get(base + "/?inline").raise_for_status(), 16)
        print(
            f"GET /?inline again, no change in between (16 reads over the workers): p50 {p50:.0f} ms, "
            f"p95 {p95:.0f} ms; worker peak RSS {peak_rss_kib(children(server_pid)) / 1024:.0f} MiB"
        )
        url = base + "/schemaGroups/com.example.group3/schemas?filter=name=Event1*"
        p50, p95 = timed(lambda: client.get(url).raise_for_status(), 100)
        print(f"filtered list: p50 {p50:.1f} ms, p95 {p95:.1f} ms (goal <= 50 ms)")

    latest = f"{base}/schemaGroups/com.example.group3/schemas/Event7"
    wrk = shutil.which("wrk")
    if wrk:
        compare_bindings(wrk, base)
    if wrk:  # a native load generator: Python client threads would measure themselves on 2 cores
        out = subprocess.run([wrk, "-t", "2", "-c", "8", "-d", "10s", latest], capture_output=True, text=True).stdout
        rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
        print(f"GET latest schema document, 8 connections (wrk): {rate:.0f} requests/s (goal >= 1,000)")
    else:

        def get_latest(c, i, n):
            c.get(
                f"{base}/schemaGroups/com.example.group{i % args.groups}/schemas/Event{n % args.schemas}"
            ).raise_for_status()

        print(f"GET latest schema document, 8 clients: {concurrent(get_latest, 8, 10):.0f} requests/s (goal >= 1,000)")
    from bench.generate_registry import schema_version

    def create_version(c, i, n):
        group, schema = i % args.groups, (n * 8 + i) % args.schemas
        body = json.dumps(schema_version(group, schema, args.versions))  # equal to the latest: compatible
        response = c.post(
            f"{base}/schemaGroups/com.example.group{group}/schemas/Event{schema}",
            content=body,
            headers={**auth, "Content-Type": "application/json"},
        )
        response.raise_for_status()

    print(
        f"creating versions of existing schemas, 8 clients: {concurrent(create_version, 8, 10):.0f} versions/s "
        "(goal >= 300)"
    )


def wrk_rate(wrk: str, url: str, seconds: int = 5) -> float:
    out = subprocess.run([wrk, "-t", "2", "-c", "8", "-d", f"{seconds}s", url], capture_output=True, text=True).stdout
    return float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))


def compare_bindings(wrk: str, base: str) -> None:
    """The 1.0 binding's paths against their 0.5 counterparts (issue 13: they must cost no more)."""
    pairs = [
        (
            "schema document",
            "/schemaGroups/com.example.group3/schemas/Event7",
            "/registry/schemagroups/com.example.group3/schemas/Event7",
        ),
        ("registry root", "/", "/registry/"),
        ("whole registry", "/?inline", "/registry/export"),
    ]
    for label, old, new in pairs:
        httpx.get(base + old, timeout=120).raise_for_status()  # rendered once, kept per worker after that
        httpx.get(base + new, timeout=120).raise_for_status()
        rates = {old: [], new: []}
        for _round in range(2):
            for path in (old, new):
                rates[path].append(wrk_rate(wrk, base + path))
        a, b = statistics.median(rates[old]), statistics.median(rates[new])
        print(f"{label}: 0.5 {old} {a:.0f} req/s, 1.0 {new} {b:.0f} req/s ({b / a:.2f}x)")


if __name__ == "__main__":
    main()
