"""Celery tasks of sync: the beat-driven schedule and one pull."""

from registry.celery import app

from .models import SyncSource
from .services import due_sources, run_sync


@app.task(acks_late=True, ignore_result=True)
def sync_source(source_id: int, trigger: str = "schedule") -> str | None:
    source = SyncSource.objects.filter(pk=source_id, enabled=True).first()
    if source is None:
        return None
    return run_sync(source, trigger).status


@app.task(ignore_result=True)
def sync_due() -> int:
    count = 0
    for source in due_sources():
        sync_source.delay(source.pk)
        count += 1
    return count
