"""Reads side by side (issues 14, 29): this checkout and a baseline checkout behind gunicorn, on one PostgreSQL.

Starts a throwaway PostgreSQL, migrates it and loads the demo registry with this checkout (plus a user with an API
token and a schema with integer versions, which the Schema Registry binding addresses), then serves the same
database from both checkouts (gunicorn, 4 workers each; both up, one measured at a time) and runs wrk (2 threads, 8
connections) against each read path on one server then the other, `--rounds` times (the order swapped each round),
so that both are measured close in time whatever else the machine does: document GETs, latest and by version, in
the 0.5 binding, xRegistry 1.0 and the Schema Registry binding, anonymous and with the token, a revalidation
(If-None-Match: 304), `GET /` and `GET /?inline`. Prints requests/s per path and server (the median of the rounds),
the ratio, the CPU each request cost in gunicorn's and PostgreSQL's processes, and the machine's load average before
and after (everything shares its cores: wrk, PostgreSQL, gunicorn, and whatever else runs). Asserts nothing.

    .venv/bin/python bench/read_paths.py --baseline ../main-baseline [--seconds 10 --rounds 2 --workers 4 --threads N --baseline-threads M]

The baseline is any other checkout of this project (e.g. `git worktree add ../main-baseline main`); it runs
with this checkout's .venv.
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
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PYTHON = sys.executable


def cpu_seconds(roots: list[int]) -> float:
    """CPU time (user + system) of the processes `roots` and their children, from /proc."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        pid = int(stat.parent.name)
        parents[pid] = int(fields[1])
        times[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return sum(t for pid, t in times.items() if pid in roots or parents.get(pid) in roots)


def wrk(url: str, seconds: int, headers: dict | None = None) -> float:
    argv = ["wrk", "-t", "2", "-c", "8", "-d", f"{seconds}s"]
    for name, value in (headers or {}).items():
        argv += ["-H", f"{name}: {value}"]
    out = subprocess.run([*argv, url], capture_output=True, text=True).stdout
    match = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if "Non-2xx or 3xx responses" in out:
        print(f"  (non-2xx answers for {url})")
    return float(match.group(1)) if match else 0.0


def serve(checkout: Path, env: dict, port: int, workers: int = 4) -> subprocess.Popen:
    server = subprocess.Popen(
        [
            str(Path(PYTHON).parent / "gunicorn"),
            "config.wsgi",
            "-b",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
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
    parser.add_argument(
        "--workers",
        type=int,
        default=4,
        help="gunicorn workers of each server (default 4; the deployment's: 2 x CPUs + 1)",
    )
    parser.add_argument("--threads", type=int, help="threads per worker (default: each checkout's gunicorn.conf.py)")
    parser.add_argument("--baseline-threads", type=int, help="the baseline's threads per worker, if not --threads")
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
        "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY") or secrets.token_urlsafe(50),  # gunicorn needs one
        "PYTHONPATH": "",
    }
    env.pop("CELERY_BROKER_URL", None)  # eager relay in both servers
    if args.threads:
        env["GUNICORN_THREADS"] = str(args.threads)
    return args, postgres, var, env


MAKE_TOKEN = """
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
user = get_user_model().objects.create_superuser("bench", "bench@example.com", "bench-password-not-secret")
print(Token.objects.create(user=user).key)
"""


def create_numbered(base: str, group: str, schema: str, token: str) -> None:
    """A schema with integer version ids (the demo's are `1.0`), which the Schema Registry binding addresses."""
    response = httpx.post(
        f"{base}/schemaregistry/schemagroups/{group}/schemas/{schema}?format=JsonSchema/draft-07",
        content=b'{"type": "object", "properties": {"id": {"type": "string"}}}',
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    response.raise_for_status()


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
        token = subprocess.run(
            [PYTHON, "manage.py", "shell", "-c", MAKE_TOKEN],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()[-1]
        group, schema, numbered = "Contoso.CRM.Events", "customerAddressUpdatedEventData", "benchNumbered"
        paths = {
            "0.5 latest": f"/schemaGroups/{group}/schemas/{schema}",
            "0.5 by version": f"/schemaGroups/{group}/schemas/{schema}/versions/1.0",
            "1.0 latest": f"/registry/schemagroups/{group}/schemas/{schema}",
            "1.0 by version": f"/registry/schemagroups/{group}/schemas/{schema}/versions/1.0",
            "Schema Registry latest": f"/schemaregistry/schemagroups/{group}/schemas/{numbered}",
            "Schema Registry by version": f"/schemaregistry/schemagroups/{group}/schemas/{numbered}/versions/1",
        }
        cases = {f"GET {name} (anonymous)": (path, {}) for name, path in paths.items()}
        cases.update(
            {f"GET {name} (token)": (path, {"Authorization": f"Token {token}"}) for name, path in paths.items()}
        )
        cases["0.5 latest, If-None-Match (304)"] = (paths["0.5 latest"], "revalidate")
        cases["GET /healthz (the floor: no view, no query)"] = ("/healthz", {})
        cases["GET /"] = ("/", {})
        cases["GET /?inline (whole registry)"] = ("/?inline", {})
        checkouts = {"baseline": args.baseline.resolve(), "this": ROOT}
        ports = {label: services.free_port() for label in checkouts}
        bases = {label: f"http://127.0.0.1:{port}" for label, port in ports.items()}
        rates: dict[str, dict[str, list[float]]] = {name: {label: [] for label in checkouts} for name in cases}
        costs: dict[str, dict[str, list[float]]] = {name: {label: [] for label in checkouts} for name in cases}
        postmaster = int((Path(postgres.extra["data"]) / "postmaster.pid").read_text().split()[0])
        servers = {}
        try:
            # both servers up (an idle one costs nothing), so that each path is measured on both in turn, close in
            # time, whatever else the machine does meanwhile
            shapes = {
                "baseline": {**env, "GUNICORN_THREADS": str(args.baseline_threads)} if args.baseline_threads else env,
                "this": env,
            }
            servers = {
                label: serve(checkout, shapes[label], ports[label], workers=args.workers)
                for label, checkout in checkouts.items()
            }
            create_numbered(bases["this"], group, numbered, token)  # this checkout's migrations are the database's
            load_before = os.getloadavg()
            for n in range(args.rounds):
                for name, (path, headers) in cases.items():
                    for label in ("baseline", "this") if n % 2 == 0 else ("this", "baseline"):
                        sent = headers
                        if sent == "revalidate":
                            sent = {"If-None-Match": httpx.get(bases[label] + path).headers["ETag"]}
                        watched = [servers[label].pid, postmaster]
                        cpu = cpu_seconds(watched)
                        rate = wrk(bases[label] + path, args.seconds, sent)
                        rates[name][label].append(rate)
                        if rate:
                            costs[name][label].append((cpu_seconds(watched) - cpu) / (rate * args.seconds) * 1e6)
            load_after = os.getloadavg()
        finally:
            for server in servers.values():
                os.killpg(server.pid, 15)
                server.wait(timeout=30)
        threads = args.threads or "the checkout's gunicorn.conf.py's"
        if args.baseline_threads:
            threads = f"{threads} (the baseline's: {args.baseline_threads})"
        print(
            f"wrk -t2 -c8 -d{args.seconds}s, gunicorn {args.workers} workers x "
            f"{threads} threads each, PostgreSQL, demo registry; median of "
            f"{args.rounds} rounds, each path on both servers in turn; everything on this machine ({os.cpu_count()} "
            f"cores); load average {load_before[0]:.1f} before, {load_after[0]:.1f} after. CPU: microseconds of CPU "
            "per request in gunicorn's processes and PostgreSQL's (less sensitive to what else runs than requests/s)"
        )
        print(f"{'':44} {'requests/s':^27} {'CPU us/request':^17}")
        print(f"{'':44} {'baseline':>9} {'this':>8} {'ratio':>8} {'baseline':>9} {'this':>7}")
        for name in cases:
            before, after = (statistics.median(rates[name][label]) for label in ("baseline", "this"))
            cost = [
                statistics.median(costs[name][label]) if costs[name][label] else 0 for label in ("baseline", "this")
            ]
            ratio = after / before if before else 0
            print(f"{name:44} {before:9.0f} {after:8.0f} {ratio:7.2f}x {cost[0]:9.0f} {cost[1]:7.0f}")
    finally:
        postgres.stop()


if __name__ == "__main__":
    main()
