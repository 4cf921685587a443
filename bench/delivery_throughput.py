"""Benchmark of change-event delivery (issue 5): PostgreSQL, Redis, two Celery workers (thread pools) and
beat, one subscription with a local HTTP sink. Three loads, each printed as events delivered per second and
commit-to-delivered latency p50/p99: one writer changing the registry through the services; a steady
--rate of change events for --seconds; a burst of --changes changes in one transaction and how fast it
drains. Prints figures; asserts nothing (goals: >= 500 events/s, p99 <= 1 s under that load).

    .venv/bin/python bench/delivery_throughput.py [--changes 1000] [--rate 500] [--seconds 10] [--concurrency 8]
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


def wait_for(committed: dict, timeout: float) -> None:
    deadline = time.time() + timeout
    while any(path not in received for path in committed) and time.time() < deadline:
        time.sleep(0.05)


def report(what: str, committed: dict) -> None:
    """Delivered rate from the first commit to the last delivery, and commit-to-delivered latency."""
    latencies = sorted(received[p] - committed[p] for p in committed if p in received)
    if not latencies:
        print(f"{what}: nothing delivered")
        return
    span = max(received[p] for p in committed if p in received) - min(committed.values())
    print(f"{what}: {len(latencies)} of {len(committed)} delivered, {len(latencies) / span:.0f} events/s; "
          f"commit-to-delivered p50 {statistics.median(latencies) * 1000:.0f} ms, "
          f"p99 {latencies[max(0, int(len(latencies) * 0.99) - 1)] * 1000:.0f} ms (goals >= 500/s, p99 <= 1 s)")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--changes", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=8, help="threads per worker")
    parser.add_argument("--rate", type=int, default=500, help="change events per second of the steady load")
    parser.add_argument("--seconds", type=float, default=10, help="how long the steady load lasts")
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
        from django.utils import timezone

        from registry.services import WriteContext, create_group
        from subscriptions.services import create_subscription

        create_subscription({"protocol": "HTTP", "sink": f"http://127.0.0.1:{sink.server_port}/hook"})
        time.sleep(3)  # workers up
        from django.db import transaction

        from registry.services.events import emit_updated

        # 1. through the services, one writer: what one API client's changes see
        committed = {}
        started = time.time()
        for n in range(args.changes):
            create_group(WriteContext(user="bench"), "schemaGroups", {"id": f"bench{n}"})
            committed[f"/schemaGroups/bench{n}"] = time.time()
        wait_for(committed, 120)
        report(f"one writer through the services ({args.changes / (time.time() - started):.0f} changes/s)", committed)

        # 2. a steady load at --rate: every 50 ms one transaction writes rate/20 change events with the engine's
        # emit_updated (what every service does after its write; 500 full registry writes a second would need
        # more cores than the workers have here)
        committed, per_tick, tick = {}, max(1, args.rate // 20), 0.05
        started = time.time()
        for n in range(int(args.seconds / tick)):
            paths = [f"/schemaGroups/load{n}-{k}" for k in range(per_tick)]
            with transaction.atomic():
                transaction.on_commit(lambda paths=paths: committed.update(dict.fromkeys(paths, time.time())))
                for path in paths:
                    emit_updated(WriteContext(user="bench"), path, timezone.now())
            time.sleep(max(0.0, started + (n + 1) * tick - time.time()))
        offered = len(committed) / (time.time() - started)
        wait_for(committed, 120)
        report(f"steady load of {offered:.0f} offered events/s for {args.seconds:.0f} s", committed)

        # 3. a burst: many changes in one transaction, then how fast the workers drain them
        before = len(received)
        commit_times = []
        with transaction.atomic():
            transaction.on_commit(lambda: commit_times.append(time.time()))  # the first callback: at commit
            for n in range(args.changes):
                create_group(WriteContext(user="bench"), "schemaGroups", {"id": f"burst{n}"})
        burst_committed = commit_times[0]
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
