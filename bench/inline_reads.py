"""Whole-registry reads side by side (issue 29): `GET /?inline` and `GET /registry/export` of 7,500 versions (10 schema
groups x 150 schemas x 5 versions), this checkout against a baseline checkout, on one PostgreSQL. Prints figures;
asserts nothing.

Both servers run at once (gunicorn, one worker each, so that every read goes to the worker that rendered before) over
the same database; each figure is measured on one server then the other, close in time:

- fully cold: the first read of a server just started (nothing rendered yet);
- after a write: the first read after a change of one schema version's description (a PUT through this checkout's
  server), in a different group each round: the baseline renders the whole registry again, this checkout only the
  changed group (registry/http/rendered_groups.py);
- again: a read with no change in between (both serve the answer kept whole).

    .venv/bin/python bench/inline_reads.py --baseline ../main-baseline [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import secrets
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
PATHS = ("/?inline", "/registry/export")

from bench.read_paths import MAKE_TOKEN, serve  # noqa: E402 - after sys.path


def timed_read(base: str, path: str) -> float:
    started = time.perf_counter()
    response = httpx.get(base + path, timeout=300)
    response.raise_for_status()
    return time.perf_counter() - started


def main():
    from tests.harness import services

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--baseline", required=True, type=Path, help="another checkout of this project")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    postgres = services.start_postgres()
    var = Path(tempfile.mkdtemp(prefix="bench-inline-"))
    env = {
        **os.environ,
        "DATABASE_URL": postgres.url,
        "REGISTRY_VAR_DIR": str(var),
        "DJANGO_DEBUG": "0",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY") or secrets.token_urlsafe(50),  # gunicorn needs one
        "PYTHONPATH": "",
        "REGISTRY_CHECK_SECONDS": "10",  # the import's checks on a loaded machine
    }
    env.pop("CELERY_BROKER_URL", None)
    servers = {}
    try:
        document = var / "bench.cereg"

        def run(*argv, **kwargs):
            return subprocess.run([PYTHON, *argv], cwd=ROOT, env=env, check=True, **kwargs)

        run("bench/generate_registry.py", "--groups", "10", "--schemas", "150", "--versions", "5", "-o", str(document))
        run("manage.py", "migrate", "--noinput", stdout=subprocess.DEVNULL)
        run("manage.py", "import_registry", str(document), stdout=subprocess.DEVNULL)
        token = run("manage.py", "shell", "-c", MAKE_TOKEN, capture_output=True, text=True).stdout.split()[-1]
        checkouts = {"baseline": args.baseline.resolve(), "this": ROOT}
        bases = {}
        one_worker = {**env, "WEB_CONCURRENCY": "1"}
        for label, checkout in checkouts.items():
            port = services.free_port()
            servers[label] = serve(checkout, one_worker, port, workers=1)
            bases[label] = f"http://127.0.0.1:{port}"
        load_before = os.getloadavg()
        cold = {path: {label: timed_read(bases[label], path) for label in checkouts} for path in PATHS}
        after = {path: {label: [] for label in checkouts} for path in PATHS}
        again = {path: {label: [] for label in checkouts} for path in PATHS}
        for n in range(args.rounds):
            order = ("baseline", "this") if n % 2 == 0 else ("this", "baseline")
            for path in PATHS:
                for label in order:
                    changed = httpx.put(
                        f"{bases['this']}/schemaGroups/com.example.group{n % 10}/schemas/Event{n}/versions/1?meta",
                        json={"description": f"round {n} {label} {path}"},
                        headers={"Authorization": f"Token {token}"},
                        timeout=60,
                    )
                    changed.raise_for_status()
                    after[path][label].append(timed_read(bases[label], path))
                    again[path][label].append(timed_read(bases[label], path))
        load_after = os.getloadavg()
        print(
            f"7,500 versions (10 groups x 150 schemas x 5), gunicorn 1 worker each, PostgreSQL; seconds per read, median "
            f"of {args.rounds} rounds, each figure on both servers in turn; everything on this machine "
            f"({os.cpu_count()} cores); load average {load_before[0]:.1f} before, {load_after[0]:.1f} after"
        )
        print(f"{'seconds':44} {'baseline':>9} {'this':>8} {'faster':>8}")
        for path in PATHS:
            rows = [
                ("fully cold (first read of a new worker)", cold[path]["baseline"], cold[path]["this"]),
                (
                    "first read after a write to one group",
                    statistics.median(after[path]["baseline"]),
                    statistics.median(after[path]["this"]),
                ),
                (
                    "again, no change in between",
                    statistics.median(again[path]["baseline"]),
                    statistics.median(again[path]["this"]),
                ),
            ]
            for name, before, now in rows:
                print(f"{path + ' ' + name:44} {before:9.3f} {now:8.3f} {before / now if now else 0:7.1f}x")
    finally:
        for server in servers.values():
            os.killpg(server.pid, 15)
            server.wait(timeout=30)
        postgres.stop()


if __name__ == "__main__":
    main()
