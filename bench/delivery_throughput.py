"""Benchmark of change-event delivery (issue 5): PostgreSQL, Redis, two Celery workers and beat, a local
HTTP sink. Commits N changes, then prints events delivered per second and commit-to-delivered latency
p50/p99. Prints figures; asserts nothing (goals: >= 500 events/s, p99 <= 1 s).

    .venv/bin/python bench/delivery_throughput.py [--changes 3000] [--concurrency 8]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

received: dict[str, float] = {}


class Sink(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):  # noqa: N802
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        received.setdefault(json.loads(body)["subject"], time.time())
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--changes", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, default=8, help="threads per worker")
    args = parser.parse_args()
    from tests.harness import services

    postgres, redis = services.start_postgres(), services.start_redis()
    tmp = Path(tempfile.mkdtemp(prefix="bench-delivery-"))
    env = {**os.environ, "DATABASE_URL": postgres.url, "CELERY_BROKER_URL": redis.url, "REGISTRY_VAR_DIR": str(tmp),
           "REGISTRY_ALLOW_PRIVATE_SINKS": "1", "REGISTRY_WEBHOOK_HANDSHAKE": "0", "REGISTRY_SWEEP_SECONDS": "1",
           "DJANGO_SETTINGS_MODULE": "config.settings"}
    os.environ.update(env)
    sink = ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    processes = []
    try:
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        celery = [sys.executable, "-m", "celery", "-A", "registry"]
        for name in ("w1", "w2"):
            processes.append(services.start_process([*celery, "worker", "-P", "threads", "-c", str(args.concurrency),
                                                     "-n", f"{name}@%h", "--without-gossip", "--without-mingle",
                                                     "-l", "error"], env, cwd=str(ROOT)))
        processes.append(services.start_process([*celery, "beat", "-s", str(tmp / "beat"), "-l", "error"], env,
                                                cwd=str(ROOT)))
        import django

        django.setup()
        from registry.services import WriteContext, create_group
        from subscriptions.services import create_subscription

        create_subscription({"protocol": "HTTP", "sink": f"http://127.0.0.1:{sink.server_port}/hook"})
        time.sleep(3)  # workers up
        committed = {}
        started = time.time()
        for n in range(args.changes):
            path = f"/schemaGroups/bench{n}"
            create_group(WriteContext(user="bench"), "schemaGroups", {"id": f"bench{n}"})
            committed[path] = time.time()
        commit_seconds = time.time() - started
        deadline = time.time() + 120
        while len(received) < args.changes and time.time() < deadline:
            time.sleep(0.1)
        done = time.time()
        latencies = sorted(received[p] - committed[p] for p in committed if p in received)
        delivered = len(latencies)
        print(f"{args.changes} changes committed in {commit_seconds:.1f} s ({args.changes / commit_seconds:.0f}/s, one "
              f"writer); {delivered} delivered, {delivered / (done - started):.0f} events/s end to end (goal >= 500)")
        if latencies:
            print(f"commit-to-delivered latency: p50 {statistics.median(latencies) * 1000:.0f} ms, "
                  f"p99 {latencies[int(len(latencies) * 0.99) - 1] * 1000:.0f} ms (goal p99 <= 1 s)")
        # a burst: many changes in one transaction, then how fast the workers drain them
        from django.db import transaction

        before = len(received)
        with transaction.atomic():
            for n in range(args.changes):
                create_group(WriteContext(user="bench"), "schemaGroups", {"id": f"burst{n}"})
        burst_committed = time.time()
        deadline = burst_committed + 120
        while len(received) < before + args.changes and time.time() < deadline:
            time.sleep(0.05)
        drained = len(received) - before
        print(f"burst of {args.changes} changes in one transaction: {drained} delivered in "
              f"{time.time() - burst_committed:.1f} s = {drained / (time.time() - burst_committed):.0f} events/s "
              f"by 2 workers (goal >= 500)")
    finally:
        for process in processes:
            process.kill()
        sink.shutdown()
        redis.stop()
        postgres.stop()


if __name__ == "__main__":
    main()
