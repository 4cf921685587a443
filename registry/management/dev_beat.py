"""Celery beat's schedule run inside the development server's process, when there is no broker (issue 26).

Without CELERY_BROKER_URL, tasks run eagerly in the web process after each commit, and nothing else runs: no
worker, no beat. A failed delivery was then never retried and no sync source pulled on its schedule. `manage.py
devserver` (what `make run` starts) calls `start()`: one daemon thread that runs every entry of
CELERY_BEAT_SCHEDULE (the outbox and retry sweep, due syncs) at its interval, eagerly, as beat would have queued
it. With a broker it does nothing: run `celery -A registry worker` and `celery -A registry beat` instead.

Only the development server starts it: under gunicorn each worker process would sweep on its own.
"""

from __future__ import annotations

import logging
import threading
import time

from django.conf import settings
from django.db import close_old_connections

from registry.celery import app

logger = logging.getLogger("registry.dev_beat")  # the name its log lines have always carried
_started = threading.Event()


def _entries() -> list[tuple[str, float]]:
    return [(entry["task"], float(entry["schedule"])) for entry in settings.CELERY_BEAT_SCHEDULE.values()]


def run_due(next_run: dict[str, float], now: float) -> None:
    """Run the schedule's entries due at `now` (monotonic), each in its own try: one failing does not stop the
    others or the thread."""
    app.loader.import_default_modules()  # the apps' tasks modules, as a worker imports them
    for name, interval in _entries():
        if next_run.get(name, 0.0) > now:
            continue
        next_run[name] = now + interval
        try:
            app.tasks[name].apply(throw=True)
        except Exception:  # noqa: BLE001  logged; the next interval tries again, as beat would
            logger.exception("the in-process beat's %s failed", name)
        finally:
            close_old_connections()


def _loop() -> None:
    next_run: dict[str, float] = {}
    tick = min((interval for _name, interval in _entries()), default=10.0)
    while True:
        run_due(next_run, time.monotonic())
        time.sleep(max(0.2, min(tick, 1.0)))


def start() -> bool:
    """Start the thread once per process when tasks run eagerly (no broker); whether it runs."""
    if not settings.CELERY_TASK_ALWAYS_EAGER or not settings.CELERY_BEAT_SCHEDULE:
        return False
    if not _started.is_set():
        _started.set()
        threading.Thread(target=_loop, name="dev-beat", daemon=True).start()
        logger.info("in-process beat: %s", ", ".join(f"{n} every {i:g} s" for n, i in _entries()))
    return True
