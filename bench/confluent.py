"""The Confluent API under load (issue 25): registrations of new content and lookups of existing content per second
with 8 clients, and `GET /confluent/schemas/ids/{id}` per second side by side with `GET` of the same schema through
`/registry`, in one run; with `--baseline`, this checkout and another one side by side on the same database.

Starts a throwaway PostgreSQL, migrates it with this checkout, serves it with gunicorn (4 workers x 2 threads; with
`--baseline` a second gunicorn serves the same database from the baseline checkout), makes 8 subjects `bench-N`
(level NONE: every registration is new content that needs no check) holding `--existing` versions each, then, per
round, figure by figure, each server in turn (one measured at a time, the first one swapping each round):
- register: 8 client threads (httpx, Basic auth) POST /confluent/subjects/bench-N/versions, each body a new schema
  (new content: a new id, a new registry version and its change events), for `--seconds`;
- lookup: 8 client threads POST /confluent/subjects/bench-N with a schema registered before;
- reads: wrk (2 threads, 8 connections) on GET /confluent/schemas/ids/{id} and on GET
  /registry/schemagroups/confluent/schemas/bench-0/versions/1 (the same document).
Prints requests/s per measure and server (the median of the rounds), the ratio, and the machine's load average while
each was measured (the machine may be shared: the /registry read, the same code in both checkouts, shows what the
load did to a figure). Subjects are shared by both servers, so they grow alike. Asserts nothing.

    .venv/bin/python bench/confluent.py [--baseline ../baseline] [--seconds 8] [--rounds 2] [--existing 0]

The baseline is any other checkout of this project (e.g. `git archive COMMIT | tar -x -C ../baseline`); it runs with
this checkout's .venv.
"""

import argparse
import os
import re
import secrets
import shutil
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
CLIENTS = 8
MEASURES = ("register", "lookup", "by id", "registry GET")


def wrk(url: str, seconds: int) -> float:
    out = subprocess.run(["wrk", "-t", "2", "-c", "8", "-d", f"{seconds}s", url], capture_output=True, text=True).stdout
    if "Non-2xx or 3xx responses" in out:
        print(f"  (non-2xx answers for {url})")
    match = re.search(r"Requests/sec:\s+([\d.]+)", out)
    return float(match.group(1)) if match else 0.0


def schema(name: str) -> str:
    return f'{{"type": "record", "name": "{name}", "fields": [{{"name": "f", "type": "string"}}]}}'


def hammer(base: str, seconds: float, request) -> tuple[float, int]:
    """Run `request(http, client, n)` in CLIENTS threads for `seconds`: (requests/s, failures)."""
    counts, failures = [0] * CLIENTS, [0] * CLIENTS
    deadline = time.monotonic() + seconds

    def run(client: int):
        with httpx.Client(base_url=base, auth=("bench", "pw"), timeout=120) as http:
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


def serve(checkout: Path, env: dict, port: int) -> subprocess.Popen:
    return subprocess.Popen(
        [
            *(str(Path(PYTHON).parent / "gunicorn"), "config.wsgi", "-b", f"127.0.0.1:{port}"),
            *("--workers", "4", "--threads", "2", "--log-level", "warning"),
        ],
        cwd=checkout,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def load() -> float:
    return os.getloadavg()[0]


def measure(name: str, label: str, root: str, first_id: int, args, step: int) -> tuple[float, float, int]:
    """One figure of one server: (per second, the load average while measured, failures)."""
    base = f"{root}/confluent"
    started = load()
    failed = 0
    if name == "register":
        rate, failed = hammer(
            base,
            args.seconds,
            lambda http, c, n: http.post(
                f"/subjects/bench-{c}/versions", json={"schema": schema(f"R{label}{step}c{c}n{n}")}
            ),
        )
    elif name == "lookup":
        rate, failed = hammer(
            base, args.seconds, lambda http, c, n: http.post(f"/subjects/bench-{c}", json={"schema": schema(f"L{c}")})
        )
    elif name == "by id":
        rate = wrk(f"{base}/schemas/ids/{first_id}", args.seconds)
    else:
        rate = wrk(f"{root}/registry/schemagroups/confluent/schemas/bench-0/versions/1", args.seconds)
    return rate, (started + load()) / 2, failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another checkout of this project, measured side by side")
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--existing", type=int, default=0, help="versions each subject holds before measuring")
    args = parser.parse_args()
    if not shutil.which("wrk"):
        sys.exit("wrk is needed (apt-get install wrk)")
    from tests.harness.services import free_port, port_open, start_postgres, wait_for

    postgres = start_postgres()
    env = {
        **os.environ,
        "DATABASE_URL": postgres.url,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY") or secrets.token_urlsafe(50),  # gunicorn needs one
        "REGISTRY_TEST_FAST_PASSWORDS": "1",
        "CELERY_BROKER_URL": "",
        "PYTHONPATH": "",
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
    checkouts = {"this": ROOT, **({"baseline": args.baseline.resolve()} if args.baseline else {})}
    servers, roots = {}, {}
    try:
        for label, checkout in checkouts.items():
            port = free_port()
            servers[label] = serve(checkout, env, port)
            roots[label] = f"http://127.0.0.1:{port}"
            wait_for(lambda port=port: port_open(port), 60, f"gunicorn of {label}")
        base = f"{roots['this']}/confluent"
        with httpx.Client(base_url=base, auth=("bench", "pw"), timeout=60) as http:
            assert http.put("/config", json={"compatibility": "NONE"}).status_code == 200  # new content: no check
            for client in range(CLIENTS):  # the subjects, and the content the lookups find
                r = http.post(f"/subjects/bench-{client}/versions", json={"schema": schema(f"L{client}")})
                assert r.status_code == 200, r.text
            first_id = http.get("/subjects/bench-0/versions/1").json()["id"]
        if args.existing > 1:
            filled = [0] * CLIENTS

            def fill(http, c, n):
                filled[c] += 1
                return http.post(f"/subjects/bench-{c}/versions", json={"schema": schema(f"F{c}n{n}")})

            remaining = args.existing - 1
            while min(filled) < remaining:
                hammer(base, 2, lambda http, c, n: fill(http, c, n) if filled[c] < remaining else http.get("/"))
        print(f"8 subjects of {args.existing or 1}+ versions; load average {os.getloadavg()} on {os.cpu_count()} CPUs")
        results: dict[str, dict[str, list]] = {m: {label: [] for label in checkouts} for m in MEASURES}
        for step in range(args.rounds):
            for name in MEASURES:  # each figure of both servers one after the other: under the same load
                order = list(checkouts) if step % 2 == 0 else list(checkouts)[::-1]
                for label in order:
                    results[name][label].append(measure(name, label, roots[label], first_id, args, step))
        print(
            f"{'':14s}"
            + "".join(f"{label:>26s}" for label in checkouts)
            + ("    this/baseline" if args.baseline else "")
        )
        for name in MEASURES:
            cells, medians = [], {}
            for label in checkouts:
                figures = results[name][label]
                medians[label] = statistics.median(f[0] for f in figures)
                loads = "/".join(f"{f[1]:.1f}" for f in figures)
                failed = sum(f[2] for f in figures)
                cells.append(f"{medians[label]:8.1f}/s (load {loads}){'!' * bool(failed):1s}")
            ratio = f"    {medians['this'] / medians['baseline']:.2f}x" if args.baseline and medians["baseline"] else ""
            print(f"{name:14s}" + "".join(f"{cell:>26s}" for cell in cells) + ratio)
        print(
            f"({CLIENTS} clients for register and lookup; wrk -t2 -c8 -d{args.seconds}s for reads; gunicorn 4 workers "
            f"x 2 threads per server; PostgreSQL; {args.rounds} rounds, medians; load: the 1-minute load average "
            f"while measured, per round; ! some requests failed)"
        )
    finally:
        for server in servers.values():
            os.killpg(server.pid, 15)
            server.wait(30)
        postgres.stop()


if __name__ == "__main__":
    with tempfile.TemporaryDirectory():
        main()
