"""The CPU work of one document GET in a gunicorn worker, counted in instructions (issue 40 A), for this checkout and
optionally a baseline: a figure the machine's load does not move.

For each checkout: a throwaway PostgreSQL migrated by it, with one group and one schema (`/schemaGroups/bench/
schemas/s`); gunicorn (that checkout's gunicorn.conf.py, 1 worker x 1 thread, PostgreSQL's pool) under valgrind's
callgrind (`--trace-children`: the worker is counted on its own). A client warms the worker with `--warm` requests of
each path on one keep-alive connection, zeroes the worker's counts (`callgrind_control -z`), sends `--requests` more
of the path, then dumps them (`callgrind_control -d`): the worker's instructions per request, gunicorn's parsing,
the WSGI application and the access line included (the kernel's work in system calls and PostgreSQL's are not).
Paths (`--paths`): `doc` (the 0.5 latest document, anonymous: the fast path's replay), `token` (the same with an
API token), `v10` (the 1.0 document), `healthz` (the floor: gunicorn, WSGI and the operations middleware). Both
checkouts run one after the other. About a minute a path. Asserts nothing; needs valgrind.

    .venv/bin/python bench/read_instructions.py [--baseline ../main-baseline] [--paths doc,healthz] [--requests 400]
"""

import argparse
import http.client
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TOKEN = "1" * 40
SETUP = f"""
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.authtoken.models import Token
user = get_user_model().objects.create_superuser("bench", "bench@example.com", "bench-password-not-secret")
Token.objects.create(user=user, key="{TOKEN}")
client = Client(HTTP_AUTHORIZATION="Token {TOKEN}")
assert client.put("/schemaGroups/bench", "{{}}", content_type="application/json").status_code == 201
body = '{{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}}'
answer = client.put("/schemaGroups/bench/schemas/s", body, content_type="application/json")
assert answer.status_code in (200, 201), answer.content
"""

PATHS = {
    "doc": ("/schemaGroups/bench/schemas/s", {}),
    "token": ("/schemaGroups/bench/schemas/s", {"Authorization": f"Token {TOKEN}"}),
    "v10": ("/registry/schemagroups/bench/schemas/s", {}),
    "healthz": ("/healthz", {}),
}


def send(port: int, path: str, headers: dict, count: int) -> None:
    """`count` GETs of `path` on one keep-alive connection, as a client library sends them."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=900)  # the worker's start under valgrind
    for _ in range(count):
        connection.request("GET", path, headers={"Accept": "*/*", "User-Agent": "bench", **headers})
        answer = connection.getresponse()
        answer.read()
        assert answer.status == 200, (path, answer.status)
    connection.close()


def worker_pid(arbiter: int) -> int:
    for _ in range(600):
        children = Path(f"/proc/{arbiter}/task/{arbiter}/children")
        pids = children.read_text().split() if children.exists() else []
        if pids:
            return int(pids[0])
        time.sleep(0.5)
    raise RuntimeError("no gunicorn worker")


def measure(checkout: Path, paths: list[str], requests: int, warm: int, app: list[str]) -> dict[str, float]:
    """Instructions per request of each path in `checkout`'s gunicorn worker."""
    from tests.harness import services

    postgres = services.start_postgres()
    out = Path(tempfile.mkdtemp(prefix="bench-read-instructions-"))
    env = {
        **os.environ,
        "DATABASE_URL": postgres.url,
        "REGISTRY_VAR_DIR": str(out),
        "DJANGO_DEBUG": "0",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "PYTHONPATH": "",
        "WEB_CONCURRENCY": "1",
        "GUNICORN_THREADS": "1",
        "GUNICORN_TIMEOUT": "600",
    }
    env.pop("CELERY_BROKER_URL", None)
    python = str(checkout / ".venv" / "bin" / "python")
    port = services.free_port()
    env["GUNICORN_BIND"] = f"127.0.0.1:{port}"
    server = None
    try:
        subprocess.run([python, "manage.py", "migrate", "--noinput", "-v0"], cwd=checkout, env=env, check=True)
        subprocess.run([python, "manage.py", "shell", "-v", "0", "-c", SETUP], cwd=checkout, env=env, check=True)
        server = subprocess.Popen(
            [
                "valgrind",
                "--tool=callgrind",
                "--trace-children=yes",
                f"--callgrind-out-file={out}/callgrind.%p",
                python,
                str(checkout / ".venv" / "bin" / "gunicorn"),
                "--log-level",
                "warning",
                *app,
            ],
            cwd=checkout,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        services.wait_for(lambda: services.port_open(port), 600, "gunicorn under valgrind", interval=1)
        worker = worker_pid(server.pid)
        figures = {}
        for name in paths:
            path, headers = PATHS[name]
            send(port, path, headers, warm)
            subprocess.run(["callgrind_control", "-z", str(worker)], check=True, capture_output=True)
            send(port, path, headers, requests)
            for dump in out.glob(f"callgrind.{worker}*"):
                dump.unlink()
            subprocess.run(["callgrind_control", "-d", str(worker)], check=True, capture_output=True)
            total = 0
            for dump in out.glob(f"callgrind.{worker}*"):
                found = re.search(r"^(?:summary|totals): (\d+)", dump.read_text(errors="replace"), re.M)
                total += int(found.group(1)) if found else 0
            figures[name] = total / requests
        return figures
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=120)
            except subprocess.TimeoutExpired:
                server.kill()
        postgres.stop()
        shutil.rmtree(out, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", type=Path, help="another checkout of this project")
    parser.add_argument("--paths", default="doc,healthz")
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--warm", type=int, default=50)
    parser.add_argument(
        "--app", help="`floor`: serve bench/constant_answer.py instead (gunicorn's own work; this checkout's, one path)"
    )
    args = parser.parse_args()
    if not shutil.which("valgrind"):
        sys.exit("valgrind is needed (apt-get install valgrind)")
    paths = args.paths.split(",")
    checkouts = [ROOT] + ([args.baseline.resolve()] if args.baseline else [])
    app = ["--pythonpath", str(ROOT), "bench.constant_answer:application"] if args.app == "floor" else []
    results = [measure(checkout, paths, args.requests, args.warm, app) for checkout in checkouts]
    print(f"instructions per request in the gunicorn worker (callgrind, 1 worker x 1 thread; {args.requests} requests)")
    for name in paths:
        line = f"  {name:8} this {results[0][name] / 1e3:8.1f} k"
        if len(results) > 1:
            base = results[1][name]
            line += f"   baseline {base / 1e3:8.1f} k   ratio {results[0][name] / base:.3f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
