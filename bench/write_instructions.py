"""The CPU work of one new version, counted in instructions (issue 29), for this checkout and optionally a baseline:
a figure the machine's load and speed do not move.

On this 2-core machine the same code's CPU time per write moves by a quarter from one minute to the next (the host's
load), so a change of a few percent cannot be told from noise by timing it. valgrind (callgrind) counts the
instructions a process executes instead. For each checkout and each count of `--existing`: a throwaway PostgreSQL
migrated by that checkout, two schemas of that many versions (filled as version_writes_one_schema.py fills them); then
one process POSTs 20 new versions to the first schema and another `--writes` + 20 to the second, in process through
Django's test client, each under callgrind. The difference of the two counts divided by `--writes` is one write's
instructions, without the start-up (Django's import, the first write's reads) that both runs share. Counts the Python
process alone: PostgreSQL's work is not in it (bench/version_writes_one_schema.py prints its CPU), nor the kernel's
(the system calls' own work), nor gunicorn's. A throwaway Redis is the broker, its relay flag set for the whole run
so that no relay is queued (the same work in every run). Both checkouts run at once (the counts do not depend on it).
About 2 minutes a count. Asserts nothing; needs valgrind (apt-get install valgrind).

    .venv/bin/python bench/write_instructions.py [--baseline ../main-baseline] [--existing 300,1000] [--writes 100]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.version_writes_one_schema import FILL  # noqa: E402

SETUP = """
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.authtoken.models import Token
user = get_user_model().objects.create_superuser("bench", "bench@example.com", "bench-password-not-secret")
Token.objects.create(user=user, key="0" * 40)
client = Client(HTTP_AUTHORIZATION="Token " + "0" * 40)
assert client.put("/schemaGroups/bench", "{}", content_type="application/json").status_code == 201
"""

NEW_SCHEMA = """
from django.test import Client
client = Client(HTTP_AUTHORIZATION="Token " + "0" * 40)
answer = client.post("/schemaGroups/bench/schemas", BODY % 0, content_type="application/json",
                     HTTP_REGISTRY_ID=os.environ["FILL_SCHEMA"], HTTP_REGISTRY_FORMAT="JsonSchema/draft-07")
assert answer.status_code == 201, answer.content
"""

BODY = (
    '{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": '
    '{"a": {"type": "string"}, "n": {"type": "integer", "description": "v%d"}}}'
)

WRITES = """
import os, sys
import django
django.setup()
import redis
from django.test import Client
redis.Redis.from_url(os.environ["CELERY_BROKER_URL"]).set("cloudevents-registry:relay-pending", "1", ex=3600)
client = Client(HTTP_AUTHORIZATION="Token " + "0" * 40)
for n in range(int(sys.argv[1])):
    answer = client.post("/schemaGroups/bench/schemas/" + sys.argv[2], BODY % (n + 1), content_type="application/json")
    assert answer.status_code == 201, answer.content
"""


def instructions(checkout: Path, env: dict, writes: int, schema: str) -> int:
    python = checkout / ".venv" / "bin" / "python"
    script = f"BODY = {BODY!r}\n{WRITES}"
    run = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            str(python),
            "-c",
            script,
            str(writes),
            schema,
        ],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
    )
    found = re.search(r"Collected : (\d+)", run.stderr)
    if run.returncode or found is None:
        raise RuntimeError(f"{checkout}: {run.stderr[-2000:]}")
    return int(found.group(1))


def per_write(checkout: Path, counts: list[int], writes: int, redis_url: str) -> dict[int, float]:
    """Instructions per write of `checkout` at each count (its own throwaway PostgreSQL)."""
    from tests.harness import services

    postgres = services.start_postgres()
    env = {
        **os.environ,
        "DATABASE_URL": postgres.url,
        "REGISTRY_VAR_DIR": tempfile.mkdtemp(prefix="bench-instructions-"),
        "DJANGO_DEBUG": "0",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "CELERY_BROKER_URL": redis_url,
        "PYTHONPATH": "",
    }
    python = str(checkout / ".venv" / "bin" / "python")
    try:
        subprocess.run([python, "manage.py", "migrate", "--noinput", "-v0"], cwd=checkout, env=env, check=True)
        subprocess.run([python, "manage.py", "shell", "-v", "0", "-c", SETUP], cwd=checkout, env=env, check=True)
        figures = {}
        for count in counts:
            for schema in (f"a{count}", f"b{count}"):
                fill = {**env, "FILL_SCHEMA": schema, "FILL_COUNT": str(count)}
                code = f"import os\nBODY = {BODY!r}\n{NEW_SCHEMA}\n{FILL}"
                subprocess.run(
                    [python, "manage.py", "shell", "-v", "0", "-c", code], cwd=checkout, env=fill, check=True
                )
            few = instructions(checkout, env, 20, f"a{count}")
            many = instructions(checkout, env, 20 + writes, f"b{count}")
            figures[count] = (many - few) / writes
        return figures
    finally:
        postgres.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", type=Path, help="another checkout of this project")
    parser.add_argument("--existing", default="300,1000")
    parser.add_argument("--writes", type=int, default=100)
    args = parser.parse_args()
    if not shutil.which("valgrind"):
        sys.exit("valgrind is needed (apt-get install valgrind)")
    from tests.harness import services

    counts = [int(n) for n in args.existing.split(",")]
    checkouts = [ROOT] + ([args.baseline.resolve()] if args.baseline else [])
    redis = services.start_redis()
    try:
        with ThreadPoolExecutor(len(checkouts)) as pool:
            results = list(pool.map(lambda c: per_write(c, counts, args.writes, redis.url), checkouts))
    finally:
        redis.stop()
    print(f"instructions per new version (callgrind, the Python process, in process; {args.writes} writes)")
    for count in counts:
        line = f"  {count:>6} existing versions: this {results[0][count] / 1e6:7.3f} M"
        if len(results) > 1:
            base = results[1][count]
            line += f"   baseline {base / 1e6:7.3f} M   ratio {results[0][count] / base:.3f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
