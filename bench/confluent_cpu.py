"""The Confluent API's CPU cost per request, this checkout and `--baseline` side by side (issue 25): a figure that the
load of a shared machine does not move, where bench/confluent.py's requests per second move with it.

For each checkout, in a process of its own (its code, this checkout's .venv) over a throwaway PostgreSQL: a subject
filled to each count in `--existing` (level NONE) and, at each count, the CPU time of this process (Django, DRF, the
ORM, the services; PostgreSQL's own time is not in it) per request, through Django's test client:
registration of new content, lookup of existing content, GET .../versions/latest, GET /schemas/ids/{id}, and GET of
the same document through /registry. Prints milliseconds per request and the ratio. Asserts nothing.

    .venv/bin/python bench/confluent_cpu.py --baseline ../baseline [--existing 10,200]
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
MEASURES = ("register", "lookup", "latest", "by id", "registry GET")

# run in each checkout's directory: prints one JSON line {count: {measure: ms}}
PROBE = r"""
import base64, json, os, sys, time
import django
django.setup()
from django.contrib.auth import get_user_model
from django.test import Client

get_user_model().objects.create_superuser("bench", "", "pw")
auth = Client(HTTP_AUTHORIZATION="Basic " + base64.b64encode(b"bench:pw").decode(), HTTP_HOST="127.0.0.1")
anon = Client(HTTP_HOST="127.0.0.1")
MEDIA = "application/vnd.schemaregistry.v1+json"


def schema(name):
    return json.dumps({"type": "record", "name": name, "fields": [{"name": "f", "type": "string"}]})


def post(path, body):
    response = auth.post("/confluent" + path, json.dumps(body), content_type=MEDIA)
    assert response.status_code == 200, response.content
    return response


def get(client, path):
    response = client.get(path)
    assert response.status_code == 200, response.content
    return response


post("/subjects/s/versions", {"schema": schema("Looked")})  # the lookups' content, and id 1
auth.put("/confluent/config", json.dumps({"compatibility": "NONE"}), content_type=MEDIA)
filled, made, out = 1, [0], {}


def register(_n):
    made[0] += 1
    post("/subjects/s/versions", {"schema": schema(f"New{made[0]}")})


calls = {
    "register": (register, 30),
    "lookup": (lambda n: post("/subjects/s", {"schema": schema("Looked")}), 100),
    "latest": (lambda n: get(anon, "/confluent/subjects/s/versions/latest"), 100),
    "by id": (lambda n: get(anon, "/confluent/schemas/ids/1"), 300),
    "registry GET": (lambda n: get(anon, "/registry/schemagroups/confluent/schemas/s/versions/1"), 300),
}
for count in [int(c) for c in sys.argv[1].split(",")]:
    while filled + made[0] < count:
        filled += 1
        post("/subjects/s/versions", {"schema": schema(f"Fill{filled}")})
    out[count] = {}
    for name, (call, times) in calls.items():
        call(0)  # warm
        started = time.process_time()
        for n in range(times):
            call(n)
        out[count][name] = (time.process_time() - started) / times * 1000
print(json.dumps(out))
"""


def probe(checkout: Path, database_url: str, existing: str) -> dict:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "REGISTRY_TEST_FAST_PASSWORDS": "1",
        "DJANGO_DEBUG": "0",
        "PYTHONPATH": str(checkout),
    }
    env.pop("CELERY_BROKER_URL", None)  # the relay runs in the request, as in `make run`
    subprocess.run([PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=checkout, env=env, check=True)
    done = subprocess.run([PYTHON, "-c", PROBE, existing], cwd=checkout, env=env, check=True, capture_output=True)
    return {int(k): v for k, v in json.loads(done.stdout.decode().strip().splitlines()[-1]).items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True, help="another checkout of this project")
    parser.add_argument("--existing", default="10,200", help="versions the subject holds, comma-separated")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.harness.services import start_postgres

    results = {}
    for label, checkout in (("this", ROOT), ("baseline", args.baseline.resolve())):
        postgres = start_postgres()  # a database each: both start from nothing
        try:
            results[label] = probe(checkout, postgres.url, args.existing)
        finally:
            postgres.stop()
    print(f"CPU ms per request (this process; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    print(f"{'versions':>8s} {'':14s}{'this':>10s}{'baseline':>10s}{'this/baseline':>15s}")
    for count in results["this"]:
        for name in MEASURES:
            this, base = results["this"][count][name], results["baseline"][count][name]
            print(f"{count:8d} {name:14s}{this:10.2f}{base:10.2f}{this / base:14.2f}x")


if __name__ == "__main__":
    main()
