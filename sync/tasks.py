"""Celery tasks of sync: the beat-driven schedule and one pull."""

from celery import shared_task

from .models import SyncSource
from .services import due_sources, run_sync


@shared_task(acks_late=True, ignore_result=True)
def sync_source(source_id: int, trigger: str = "schedule") -> str | None:
    source = SyncSource.objects.filter(pk=source_id, enabled=True).first()
    if source is None:
        return None
    return run_sync(source, trigger).status


@shared_task(ignore_result=True)
def sync_due() -> int:
    count = 0
    for source in due_sources():
        sync_source.delay(source.pk)
        count += 1
    return count
