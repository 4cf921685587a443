"""The Confluent API under load (issue 25): registrations of new content and lookups of existing content per second
with 8 clients, and `GET /confluent/schemas/ids/{id}` per second side by side with `GET` of the same schema through
`/registry`, in one run.

Starts a throwaway PostgreSQL, migrates it, serves this checkout with gunicorn (4 workers), then:
- register: 8 client threads (httpx, Basic auth) POST /confluent/subjects/bench-N/versions, each body a new schema
  (new content: a new id, a new registry version and its change events), for `--seconds`;
- lookup: 8 client threads POST /confluent/subjects/bench-N with a schema registered before;
- reads: wrk (2 threads, 8 connections) on GET /confluent/schemas/ids/{id} and on GET
  /registry/schemagroups/confluent/schemas/bench-0/versions/1 (the same document).
Prints requests/s. Asserts nothing.

    .venv/bin/python bench/confluent.py [--seconds 10]
"""

import argparse
import os
import re
import shutil
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
CLIENTS = 8


def wrk(url: str, seconds: int) -> float:
    out = subprocess.run(["wrk", "-t", "2", "-c", "8", "-d", f"{seconds}s", url], capture_output=True, text=True).stdout
    if "Non-2xx or 3xx responses" in out:
        print(f"  (non-2xx answers for {url})")
    match = re.search(r"Requests/sec:\s+([\d.]+)", out)
    return float(match.group(1)) if match else 0.0


def schema(client: int, n: int) -> str:
    return f'{{"type": "record", "name": "R{client}x{n}", "fields": [{{"name": "f", "type": "string"}}]}}'


def hammer(base: str, seconds: float, request) -> tuple[float, int]:
    """Run `request(http, client, n)` in CLIENTS threads for `seconds`: (requests/s, failures)."""
    counts, failures = [0] * CLIENTS, [0] * CLIENTS
    deadline = time.monotonic() + seconds

    def run(client: int):
        with httpx.Client(base_url=base, auth=("bench", "pw"), timeout=60) as http:
            n = 0
            while time.monotonic() < deadline:
                if request(http, client, n).status_code == 200:
                    counts[client] += 1
                else:
                    failures[client] += 1
                n += 1

    started = time.monotonic()
    threads = [threading.Thread(target=run, args=(c,)) for c in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(counts) / (time.monotonic() - started), sum(failures)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10)
    args = parser.parse_args()
    if not shutil.which("wrk"):
        sys.exit("wrk is needed (apt-get install wrk)")
    from tests.harness.services import free_port, port_open, start_postgres, wait_for

    postgres = start_postgres()
    env = {
        **os.environ,
        "DATABASE_URL": postgres.url,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "REGISTRY_TEST_FAST_PASSWORDS": "1",
        "CELERY_BROKER_URL": "",
    }
    manage = [PYTHON, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "--noinput", "-v", "0"], env=env, cwd=ROOT, check=True)
    subprocess.run(
        [
            *manage,
            "shell",
            "-c",
            "from django.contrib.auth import get_user_model; get_user_model().objects.create_superuser('bench', '', 'pw')",
        ],
        env=env,
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    port = free_port()
    server = subprocess.Popen(
        [
            str(Path(PYTHON).parent / "gunicorn"),
            "config.wsgi",
            "-b",
            f"127.0.0.1:{port}",
            "--workers",
            "4",
            "--threads",
            "2",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_for(lambda: port_open(port), 60, "gunicorn")
        root = f"http://127.0.0.1:{port}"
        base = f"{root}/confluent"
        with httpx.Client(base_url=base, auth=("bench", "pw"), timeout=60) as http:
            for client in range(CLIENTS):  # the subjects, and the content the lookups find
                r = http.post(f"/subjects/bench-{client}/versions", json={"schema": schema(client, -1)})
                assert r.status_code == 200, r.text
            http.put("/config", json={"compatibility": "NONE"})  # new content every time: no check to pass
            first_id = http.get("/subjects/bench-0/versions/1").json()["id"]
        registered, failed = hammer(
            base,
            args.seconds,
            lambda http, c, n: http.post(f"/subjects/bench-{c}/versions", json={"schema": schema(c, n)}),
        )
        print(f"register (new content), {CLIENTS} clients: {registered:8.1f} /s  ({failed} failed)")
        looked, failed = hammer(
            base, args.seconds, lambda http, c, n: http.post(f"/subjects/bench-{c}", json={"schema": schema(c, -1)})
        )
        print(f"lookup (existing content), {CLIENTS} clients: {looked:8.1f} /s  ({failed} failed)")
        by_id = wrk(f"{base}/schemas/ids/{first_id}", args.seconds)
        by_registry = wrk(f"{root}/registry/schemagroups/confluent/schemas/bench-0/versions/1", args.seconds)
        print(f"GET /confluent/schemas/ids/{first_id}:                          {by_id:8.1f} /s")
        print(f"GET /registry/schemagroups/confluent/schemas/bench-0/versions/1: {by_registry:8.1f} /s")
        print(f"(wrk -t2 -c8 -d{args.seconds}s; gunicorn 4 workers x 2 threads; PostgreSQL; {os.cpu_count()} CPUs)")
    finally:
        os.killpg(server.pid, 15)
        server.wait(30)
        postgres.stop()


if __name__ == "__main__":
    with tempfile.TemporaryDirectory():
        main()
