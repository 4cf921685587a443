"""Reads side by side (issue 14): this checkout and a baseline checkout behind gunicorn, on one PostgreSQL.

Starts a throwaway PostgreSQL, migrates it and loads the demo registry with this checkout, then serves the same
database from both checkouts (gunicorn, 4 workers each, one server at a time so they never compete) and runs
wrk (2 threads, 8 connections) against each read path, alternating servers, `--rounds` times. Prints requests/s
per path and server (the median of the rounds) and the ratio. Asserts nothing.

    .venv/bin/python bench/read_paths.py --baseline ../main-baseline [--seconds 10 --rounds 2]

The baseline is any other checkout of this project (e.g. `git worktree add ../main-baseline main`); it runs
with this checkout's .venv.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PYTHON = sys.executable


def wrk(url: str, seconds: int, headers: dict | None = None) -> float:
    argv = ["wrk", "-t", "2", "-c", "8", "-d", f"{seconds}s"]
    for name, value in (headers or {}).items():
        argv += ["-H", f"{name}: {value}"]
    out = subprocess.run([*argv, url], capture_output=True, text=True).stdout
    match = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if "Non-2xx or 3xx responses" in out:
        print(f"  (non-2xx answers for {url})")
    return float(match.group(1)) if match else 0.0


def serve(checkout: Path, env: dict, port: int) -> subprocess.Popen:
    server = subprocess.Popen(
        [
            str(Path(PYTHON).parent / "gunicorn"),
            "config.wsgi",
            "-b",
            f"127.0.0.1:{port}",
            "--workers",
            "4",
            "--log-level",
            "warning",
        ],
        cwd=checkout,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    for _ in range(200):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    server.kill()
    raise RuntimeError(f"gunicorn of {checkout} did not start")


def side_by_side_setup(description: str, prefix: str):
    """The arguments of a side-by-side bench (--baseline, --seconds, --rounds), a throwaway PostgreSQL and the
    environment both checkouts run with: (args, postgres, var directory, env). Also used by version_writes.py."""
    from tests.harness import services

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--baseline", required=True, type=Path, help="another checkout of this project")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if not shutil.which("wrk"):
        sys.exit("wrk is needed (apt-get install wrk)")
    postgres = services.start_postgres()
    var = Path(tempfile.mkdtemp(prefix=prefix))
    env = {
        **os.environ,
        "DATABASE_URL": postgres.url,
        "REGISTRY_VAR_DIR": str(var),
        "DJANGO_DEBUG": "0",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PYTHONPATH": "",
    }
    env.pop("CELERY_BROKER_URL", None)  # eager relay in both servers
    return args, postgres, var, env


def main():
    from tests.harness import services

    args, postgres, _var, env = side_by_side_setup(__doc__, "bench-reads-")
    try:
        subprocess.run(
            [PYTHON, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL
        )
        subprocess.run(
            [PYTHON, "manage.py", "load_demo", "--no-user"], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL
        )
        port = services.free_port()
        base = f"http://127.0.0.1:{port}"
        group, schema = "Contoso.CRM.Events", "customerAddressUpdatedEventData"
        latest_version = "1.0"
        paths = {
            "GET schema document (latest)": f"/schemaGroups/{group}/schemas/{schema}",
            "GET schema document (by version)": f"/schemaGroups/{group}/schemas/{schema}/versions/{latest_version}",
            "GET / ": "/",
            "GET /?inline (whole registry)": "/?inline",
            "GET schema (older binding)": f"/schemaregistry/schemagroups/{group}/schemas/{schema}",
        }
        results: dict[str, dict[str, list[float]]] = {name: {"this": [], "baseline": []} for name in paths}
        revalidate: list[float] = []
        for _round in range(args.rounds):
            for label, checkout in (("baseline", args.baseline.resolve()), ("this", ROOT)):
                server = serve(checkout, env, port)
                try:
                    for name, path in paths.items():
                        results[name][label].append(wrk(base + path, args.seconds))
                    if label == "this":
                        tag = httpx.get(base + paths["GET schema document (latest)"]).headers.get("ETag")
                        if tag:
                            revalidate.append(
                                wrk(base + paths["GET schema document (latest)"], args.seconds, {"If-None-Match": tag})
                            )
                finally:
                    os.killpg(server.pid, 15)
                    server.wait(timeout=30)
        print(
            f"wrk -t2 -c8 -d{args.seconds}s, gunicorn 4 workers, PostgreSQL, demo registry; "
            f"median of {args.rounds} rounds; everything on this machine ({os.cpu_count()} cores)"
        )
        print(f"{'path':38} {'baseline':>10} {'this':>10} {'ratio':>7}")
        for name, by in results.items():
            before, after = statistics.median(by["baseline"]), statistics.median(by["this"])
            print(f"{name:38} {before:10.0f} {after:10.0f} {after / before if before else 0:6.2f}x")
        if revalidate:
            print(f"{'revalidation with If-None-Match (304)':38} {'':>10} {statistics.median(revalidate):10.0f}")
    finally:
        postgres.stop()


if __name__ == "__main__":
    main()
