"""Run a bulk import started from the admin, in the background, and record its progress and outcome on the
ImportRun.

`start_import(run_id)` hands the run to a Celery worker when a broker is configured; without one (eager Celery,
`make run`), to a thread of the web process, so that the request that started it answers at once either way.
`run_import` writes each step of the import to the run's `progress` as it happens (the run's page shows it), with the
rights of the user who started the run (`run_user`). An uploaded input comes from the database (ImportUpload) and is
copied, for Spark to read, into a directory of the run's own under REGISTRY_VAR_DIR/imports, removed when the run
ends."""

import json
import shutil
import threading
import time
from pathlib import Path

from django.conf import settings
from django.db import connections
from django.utils import timezone

from registry.celery import app

from .models import ImportRun, ImportUpload
from .services import resolve_server_path, run_spark_import


def start_import(run_id: int) -> None:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        threading.Thread(target=_in_thread, args=(run_id,), name=f"import-run-{run_id}", daemon=True).start()
    else:
        run_import.delay(run_id)


def _in_thread(run_id: int) -> None:
    try:
        run_import(run_id)
    finally:
        connections.close_all()  # this thread's own connections: nobody else closes them


def run_user(run: ImportRun):
    """The user whose rights decide each entity of the run, as for every door (docs/teams.md): the one who started
    it, by id; PermissionError (the run fails, saying so) when they were deleted (a user made again under their name
    is someone else) or are inactive, or when the run names nobody: a run is never the system's."""
    user = run.started_by
    if user is None:
        if run.created_by:
            raise PermissionError(f"the user {run.created_by!r} who started this import no longer exists")
        raise PermissionError("this import names no user who started it: it runs with nobody's rights")
    if not user.is_active:
        raise PermissionError(f"the user {user.get_username()!r} who started this import is inactive")
    return user


@app.task(acks_late=True, ignore_result=True)
def run_import(run_id: int) -> str | None:
    run = ImportRun.objects.filter(pk=run_id).select_related("started_by").first()
    if run is None:
        return None
    began, lines = time.monotonic(), []

    def step(message: str) -> None:
        lines.append(f"{time.monotonic() - began:7.1f} s  {message}")
        ImportRun.objects.filter(pk=run_id).update(progress="\n".join(lines))

    ImportRun.objects.filter(pk=run_id).update(status=ImportRun.Status.RUNNING, started_at=timezone.now())
    step("started")
    scratch = Path(settings.VAR_DIR) / "imports" / f"upload-{run_id}"
    try:
        # checked again here: the admin checked when the run was created, but a symlink may have changed since
        path = uploaded_copy(run, scratch) if run.upload_name else resolve_server_path(run.source)
        actor = run_user(run)
        result = run_spark_import([path], dry_run=run.dry_run, user=actor.get_username(), actor=actor, progress=step)
    except Exception as exc:  # recorded on the run, shown in the admin
        run.status, run.error = ImportRun.Status.FAILED, f"{type(exc).__name__}: {exc}"
        step("failed")
    else:
        run.status = ImportRun.Status.REJECTED if result.rejected else ImportRun.Status.DONE
        run.summary = result.summary()
        run.report = json.loads(Path(result.report_path).read_text(encoding="utf-8"))
        step(f"done: {run.summary}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    run.finished_at = timezone.now()
    run.progress = "\n".join(lines)
    run.save(update_fields=["status", "error", "summary", "report", "finished_at", "progress"])
    return run.status


def uploaded_copy(run: ImportRun, scratch: Path) -> str:
    """The run's uploaded input as a file under `scratch`, by its own name (the name's suffix says how to read it)."""
    content = ImportUpload.objects.filter(run_id=run.pk).values_list("content", flat=True).first()
    if content is None:
        raise FileNotFoundError(f"the uploaded input {run.upload_name!r} is no longer kept")
    scratch.mkdir(parents=True, exist_ok=True)
    path = scratch / Path(run.upload_name).name
    path.write_bytes(content)
    return str(path)
