"""Celery task: run a bulk import started from the admin and record its outcome on the ImportRun."""

import json
from pathlib import Path

from celery import shared_task
from django.utils import timezone

from .models import ImportRun
from .services import resolve_server_path, run_spark_import


@shared_task(acks_late=True, ignore_result=True)
def run_import(run_id: int) -> str | None:
    run = ImportRun.objects.filter(pk=run_id).first()
    if run is None:
        return None
    ImportRun.objects.filter(pk=run_id).update(status=ImportRun.Status.RUNNING)
    try:
        # checked again here: the admin checked when the run was created, but a symlink may have changed since
        path = run.upload.path if run.upload else resolve_server_path(run.source)
        result = run_spark_import([path], dry_run=run.dry_run, user=run.created_by or None)
    except Exception as exc:  # recorded on the run, shown in the admin
        run.status, run.error = ImportRun.Status.FAILED, f"{type(exc).__name__}: {exc}"
    else:
        run.status = ImportRun.Status.REJECTED if result.rejected else ImportRun.Status.DONE
        run.summary = result.summary()
        run.report = json.loads(Path(result.report_path).read_text(encoding="utf-8"))
    run.finished_at = timezone.now()
    run.save()
    return run.status
