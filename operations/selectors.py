"""The registry's backlog figures for `/metrics`, read from the database at each scrape.

They describe the whole deployment, not the process that answers (every web replica reports the same values):
the outbox events not yet relayed, deliveries by status and protocol, dead letters, and the bulk import runs
started from the admin. Each is one aggregate query; the outbox's uses its partial index of unrelayed events.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Max, Min

from pipeline.models import ImportRun
from registry.models import OutboxEvent
from subscriptions.models import Delivery


@dataclass
class OutboxBacklog:
    events: int
    oldest: datetime | None  # when the oldest unrelayed event was committed


def outbox_backlog() -> OutboxBacklog:
    row = OutboxEvent.objects.filter(relayed_at__isnull=True).aggregate(n=Count("id"), oldest=Min("created_at"))
    return OutboxBacklog(events=row["n"], oldest=row["oldest"])


def deliveries_by_status_and_protocol() -> dict[tuple[str, str], int]:
    """Delivery records by (status, the subscription's protocol); statuses without a record are absent."""
    rows = Delivery.objects.values_list("status", "subscription__protocol").annotate(n=Count("id")).order_by()
    return {(status, protocol): n for status, protocol, n in rows}


def import_runs_by_status() -> dict[str, int]:
    rows = ImportRun.objects.values_list("status").annotate(n=Count("id")).order_by()
    return {status: n for status, n in rows}


def last_import_finished() -> datetime | None:
    return ImportRun.objects.aggregate(last=Max("finished_at"))["last"]
