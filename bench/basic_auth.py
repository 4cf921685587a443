"""Confluent lookups per second with HTTP Basic credentials (issue 37, item 10), with `--baseline` this checkout and
another one side by side on the same database.

The Confluent clients send `Authorization: Basic` with every request; the password hasher (Django's PBKDF2, its
production setting: this bench does not set REGISTRY_TEST_FAST_PASSWORDS) costs most of a CPU second a check.
Starts a throwaway PostgreSQL, migrates it with this checkout, makes a superuser `bench` (password hashed with
PBKDF2) and its API token, registers one schema in subject `bench-0`, then serves the database with gunicorn from
each checkout (2 workers x 2 threads each), one server measured at a time, the first one swapping each round:
- basic: 4 client threads (httpx, each its own connection) POST /confluent/subjects/bench-0 (a lookup of the
  registered schema) with Basic credentials, for `--seconds`;
- token: the same with `Authorization: Bearer <token>` (the yardstick: no hasher);
- wrong: 4 client threads with random wrong passwords for `bench`, after 24 of them were sent one by one (more than
  the failures the 2 workers allow together by default): answers per second and how many were 429.
Prints per measure and server the median of the rounds of answers per second and of the server's CPU time per answer
(gunicorn's processes, user + system: a figure the load of a shared machine moves less), the ratio of answers per
second, and the load average while measured. Asserts nothing.

    .venv/bin/python bench/basic_auth.py [--baseline ../baseline] [--seconds 10] [--rounds 2]

The baseline is any other checkout of this project (e.g. `git archive COMMIT | tar -x -C ../baseline`); it runs with
this checkout's .venv.
"""

import argparse
import base64
import os
import secrets
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
CLIENTS = 4
MEASURES = ("basic", "token", "wrong")
WARM_FAILURES = (
    24  # wrong passwords sent before "wrong" is measured: 2 workers x REGISTRY_BASIC_AUTH_FAILURES' 10, and some
)
SCHEMA = '{"type": "record", "name": "Looked", "fields": [{"name": "f", "type": "string"}]}'


def hammer(base: str, seconds: float, headers) -> tuple[float, dict[int, int]]:
    """CLIENTS threads POST lookups with `headers(n)` for `seconds`: (answers/s, count by status)."""
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def run():
        with httpx.Client(base_url=base, timeout=120) as http:
            n = 0
            while time.monotonic() < deadline:
                status = http.post("/subjects/bench-0", json={"schema": SCHEMA}, headers=headers(n)).status_code
                with lock:
                    statuses[status] = statuses.get(status, 0) + 1
                n += 1

    started = time.monotonic()
    threads = [threading.Thread(target=run) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(statuses.values()) / (time.monotonic() - started), statuses


def server_cpu(session: int) -> float:
    """CPU seconds (user + system) used so far by the processes of a server's session: gunicorn and its workers."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        if int(fields[3]) == session:  # fields after the command name: state, ppid, pgrp, session, ...
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def serve(checkout: Path, env: dict, port: int) -> subprocess.Popen:
    return subprocess.Popen(
        [
            *(str(Path(PYTHON).parent / "gunicorn"), "config.wsgi", "-b", f"127.0.0.1:{port}"),
            *("--workers", "2", "--threads", "2", "--log-level", "warning"),
        ],
        cwd=checkout,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another checkout of this project, measured side by side")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    from tests.harness.services import free_port, port_open, start_postgres, wait_for

    postgres = start_postgres()
    env = {
        **{k: v for k, v in os.environ.items() if k != "REGISTRY_TEST_FAST_PASSWORDS"},  # the production hasher
        "DATABASE_URL": postgres.url,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "CELERY_BROKER_URL": "",
        "PYTHONPATH": "",
    }
    manage = [PYTHON, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "--noinput", "-v", "0"], env=env, cwd=ROOT, check=True)
    token = (
        subprocess.run(
            [
                *manage,
                "shell",
                "-c",
                "from django.contrib.auth import get_user_model; from rest_framework.authtoken.models import Token; "
                "print(Token.objects.create(user=get_user_model().objects.create_superuser('bench', '', 'pw')).key)",
            ],
            env=env,
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        )
        .stdout.strip()
        .splitlines()[-1]
    )
    basic = "Basic " + base64.b64encode(b"bench:pw").decode()
    headers = {
        "basic": lambda n: {"Authorization": basic},
        "token": lambda n: {"Authorization": f"Bearer {token}"},
        "wrong": lambda n: {
            "Authorization": "Basic " + base64.b64encode(f"bench:{secrets.token_hex(8)}".encode()).decode()
        },
    }
    checkouts = {"this": ROOT, **({"baseline": args.baseline.resolve()} if args.baseline else {})}
    servers, roots = {}, {}
    try:
        for label, checkout in checkouts.items():
            port = free_port()
            servers[label] = serve(checkout, env, port)
            roots[label] = f"http://127.0.0.1:{port}"
            wait_for(lambda port=port: port_open(port), 60, f"gunicorn of {label}")
        with httpx.Client(base_url=f"{roots['this']}/confluent", timeout=60) as http:
            registered = http.post(
                "/subjects/bench-0/versions", json={"schema": SCHEMA}, headers={"Authorization": f"Bearer {token}"}
            )
            assert registered.status_code == 200, registered.text
        print(f"load average {os.getloadavg()} on {os.cpu_count()} CPUs")
        results: dict[str, dict[str, list]] = {m: {label: [] for label in checkouts} for m in MEASURES}
        for step in range(args.rounds):
            for name in MEASURES:
                order = list(checkouts) if step % 2 == 0 else list(checkouts)[::-1]
                for label in order:
                    if name == "wrong":  # past the failures a worker allows (each counts its own) before measuring
                        with httpx.Client(base_url=f"{roots[label]}/confluent", timeout=120) as http:
                            for n in range(WARM_FAILURES):
                                http.post("/subjects/bench-0", json={"schema": SCHEMA}, headers=headers[name](n))
                    before, cpu = os.getloadavg()[0], server_cpu(servers[label].pid)
                    rate, statuses = hammer(f"{roots[label]}/confluent", args.seconds, headers[name])
                    cpu_ms = (server_cpu(servers[label].pid) - cpu) * 1000 / max(sum(statuses.values()), 1)
                    results[name][label].append((rate, (before + os.getloadavg()[0]) / 2, statuses, cpu_ms))
                    time.sleep(1)
        print(
            f"{'':8s}"
            + "".join(f"{label:>52s}" for label in checkouts)
            + ("    this/baseline" if len(checkouts) > 1 else "")
        )
        for name in MEASURES:
            cells, medians = [], {}
            for label in checkouts:
                figures = results[name][label]
                medians[label] = statistics.median(f[0] for f in figures)
                loads = "/".join(f"{f[1]:.1f}" for f in figures)
                statuses: dict[int, int] = {}
                for f in figures:
                    for status, count in f[2].items():
                        statuses[status] = statuses.get(status, 0) + count
                shown = ",".join(f"{s}:{c}" for s, c in sorted(statuses.items()))
                cpu = statistics.median(f[3] for f in figures)
                cells.append(f"{medians[label]:7.1f}/s {cpu:6.1f} ms CPU (load {loads}) [{shown}]")
            ratio = (
                f"    {medians['this'] / medians['baseline']:.1f}x"
                if "baseline" in medians and medians["baseline"]
                else ""
            )
            print(f"{name:8s}" + "".join(f"{cell:>52s}" for cell in cells) + ratio)
        print(
            f"({CLIENTS} clients, {args.seconds} s a figure, each its own connection; gunicorn 2 workers x 2 threads per "
            f"server; PostgreSQL; {args.rounds} rounds, medians of answers/s and of the server's CPU ms per answer (gunicorn's "
            f"processes, user + system); [status:answers] over the rounds; wrong: measured after {WARM_FAILURES} failures)"
        )
    finally:
        for server in servers.values():
            os.killpg(server.pid, 15)
            server.wait(30)
        postgres.stop()


if __name__ == "__main__":
    with tempfile.TemporaryDirectory():
        main()
