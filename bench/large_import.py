"""Time `POST /` of a large registry document in process (SQLite in a temporary file): N groups, valid, and
the same with one bad attribute on the last group (issue 11 item 8). Prints seconds for each.

    .venv/bin/python bench/large_import.py [--groups 20000]
"""

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ["DATABASE_URL"] = ""
os.environ.setdefault("REGISTRY_IMPORT_MAX_ENTITIES", "1000000")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=20000)
    args = parser.parse_args()
    workdir = tempfile.mkdtemp()
    os.environ["SQLITE_PATH"] = str(Path(workdir) / "bench.sqlite3")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    settings.ALLOWED_HOSTS = ["*"]
    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_superuser("bench", "b@example.com", "pw")
    client = Client()
    client.force_login(user)
    groups = {f"g{i:05d}": {"description": f"group {i}"} for i in range(args.groups)}
    bad = json.loads(json.dumps(groups))
    bad[f"g{args.groups - 1:05d}"]["name"] = 5
    for label, doc in (
        ("invalid (one bad attribute, last group)", bad),
        ("valid", groups),
        ("valid, unchanged re-import", groups),
    ):
        body = json.dumps({"schemaGroups": doc})
        started = time.perf_counter()
        response = client.generic("POST", "/", body, content_type="application/json")
        print(
            f"{label}: {args.groups} groups, {len(body) // 1024} KiB: HTTP {response.status_code} "
            f"in {time.perf_counter() - started:.2f} s"
        )


if __name__ == "__main__":
    main()
