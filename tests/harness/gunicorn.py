"""Start the production server (gunicorn with the checkout's gunicorn.conf.py), or Django's development server as
`make run` serves, over a migrated SQLite file in a test's temporary directory, with a superuser (`ops`, password
`pw`) and its token for writes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx

from tests.harness.services import ManagedProcess, free_port, port_open, start_process

ROOT = Path(__file__).resolve().parents[2]


def answers(port: int) -> bool:
    """Whether a worker has loaded the application and answers: gunicorn's arbiter opens the port before its
    workers import Django, which on a busy machine takes longer than a client's timeout."""
    if not port_open(port):
        return False
    try:
        return httpx.get(f"http://127.0.0.1:{port}/", timeout=5).status_code < 500
    except httpx.HTTPError:
        return False


def start_gunicorn(
    directory: Path, workers: int = 1, threads: int = 4, *, demo: bool = False, development: bool = False, **settings
) -> tuple[ManagedProcess, str, str]:
    """gunicorn on a free loopback port (or, `development`, Django's runserver as `make run` starts it); returns
    (process, base URL, a superuser's API token). `demo` loads the demo registry first; `settings` are environment
    variables for the server."""
    env = {
        **os.environ,
        "SQLITE_PATH": str(directory / "db.sqlite3"),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "CELERY_BROKER_URL": "",
        **settings,
    }
    env.pop("DATABASE_URL", None)
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run(manage + ["migrate", "--noinput", "-v", "0"], env=env, cwd=ROOT, check=True)
    if demo:
        subprocess.run(manage + ["load_demo"], env=env, cwd=ROOT, check=True, capture_output=True)
    token = (
        subprocess.run(
            manage
            + [
                "shell",
                "-c",
                (
                    "from django.contrib.auth import get_user_model; from rest_framework.authtoken.models import Token; "
                    "u = get_user_model().objects.create_superuser('ops', 'o@example.com', 'pw'); "
                    "print(Token.objects.create(user=u).key)"
                ),
            ],
            env=env,
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        )
        .stdout.strip()
        .splitlines()[-1]
    )  # `shell` may print a banner first
    port = free_port()
    env.update(GUNICORN_BIND=f"127.0.0.1:{port}", WEB_CONCURRENCY=str(workers), GUNICORN_THREADS=str(threads))
    command = (
        manage + ["runserver", f"127.0.0.1:{port}", "--noreload"]
        if development
        else [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py")]
    )
    process = start_process(
        command,
        env=env,
        cwd=str(ROOT),
        ready_check=lambda: answers(port),
        timeout=90,
    )
    return process, f"http://127.0.0.1:{port}", token
