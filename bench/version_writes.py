"""Creating versions of existing schemas side by side (issue 14): this checkout and a baseline checkout behind
gunicorn (4 workers) on one throwaway PostgreSQL, wrk with 8 connections POSTing new versions (a JSON Schema
that differs each time, compatible with the previous ones) to 8 schemas. Prints versions/s per server (the
median of the rounds) and the ratio. Asserts nothing.

    .venv/bin/python bench/version_writes.py --baseline ../main-baseline [--seconds 10 --rounds 2]
"""

import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PYTHON = sys.executable
from bench.read_paths import serve, side_by_side_setup  # noqa: E402

LUA = r"""
counter = 0
request = function()
  counter = counter + 1
  local schema = "s" .. (counter % 8)
  local body = '{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": ' ..
               '{"a": {"type": "string"}, "n": {"type": "integer", "description": "v' .. counter .. '-' ..
               math.random(1000000000) .. '"}}}'
  return wrk.format("POST", "/schemaGroups/bench/schemas/" .. schema, {
    ["Content-Type"] = "application/json", ["Authorization"] = "Token TOKEN"}, body)
end
"""


def main():
    from tests.harness import services

    args, postgres, var, env = side_by_side_setup(__doc__, "bench-writes-")
    try:
        subprocess.run(
            [PYTHON, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL
        )
        token = (
            subprocess.run(
                [
                    PYTHON,
                    "manage.py",
                    "shell",
                    "-c",
                    (
                        "from django.contrib.auth import get_user_model; from rest_framework.authtoken.models import Token; "
                        "u = get_user_model().objects.create_superuser('bench', 'b@example.com', 'pw'); "
                        "print(Token.objects.create(user=u).key)"
                    ),
                ],
                cwd=ROOT,
                env=env,
                check=True,
                capture_output=True,
                text=True,
            )
            .stdout.strip()
            .splitlines()[-1]
        )
        script = var / "post.lua"
        script.write_text(LUA.replace("TOKEN", token))
        port = services.free_port()
        base = f"http://127.0.0.1:{port}"
        results: dict[str, list[float]] = {"this": [], "baseline": []}
        for _round in range(args.rounds):
            for label, checkout in (("baseline", args.baseline.resolve()), ("this", ROOT)):
                server = serve(checkout, env, port)
                try:
                    auth = {"Authorization": f"Token {token}"}
                    httpx.put(f"{base}/schemaGroups/bench", json={}, headers=auth)
                    for n in range(8):
                        httpx.post(
                            f"{base}/schemaGroups/bench/schemas",
                            headers={
                                **auth,
                                "Content-Type": "application/json",
                                "Registry-id": f"s{n}",
                                "Registry-format": "JsonSchema/draft-07",
                            },
                            content=b'{"type": "object"}',
                        )
                    out = subprocess.run(
                        ["wrk", "-t", "2", "-c", "8", "-d", f"{args.seconds}s", "-s", str(script), base + "/"],
                        capture_output=True,
                        text=True,
                    ).stdout
                    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
                    if "Non-2xx or 3xx responses" in out:
                        print(f"  ({label}: some answers were not 201)")
                    results[label].append(rate)
                    httpx.delete(f"{base}/schemaGroups/bench", headers=auth)
                finally:
                    os.killpg(server.pid, 15)
                    server.wait(timeout=30)
        before, after = statistics.median(results["baseline"]), statistics.median(results["this"])
        print(
            f"wrk -t2 -c8 -d{args.seconds}s POSTing new versions to 8 schemas, gunicorn 4 workers, PostgreSQL, "
            f"eager relay (no broker); median of {args.rounds} rounds; this machine ({os.cpu_count()} cores)"
        )
        print(f"versions/s: baseline {before:.0f}, this {after:.0f}, {after / before if before else 0:.2f}x")
    finally:
        postgres.stop()


if __name__ == "__main__":
    main()
