"""Prometheus metrics: what `/metrics` exposes (prometheus-client).

Two kinds of figure, collected two ways:

- Requests (counts and latency by route, method and status) happen in whichever gunicorn worker process
  answered, so each process counts its own. Under gunicorn with several workers, prometheus-client's
  multiprocess mode adds them up: gunicorn.conf.py gives the workers a shared directory
  (PROMETHEUS_MULTIPROC_DIR), each process writes its values to files there, and a scrape, whichever worker
  answers it, reads them all. Without that directory (runserver, tests, one process) they are kept in memory.
  Deriving them from the database instead would cost a write per request.
- The per-process caches (registry/store/bounded_cache.py): entries, bytes, hits and misses by cache, counted where they
  happen as the requests are (in multiprocess mode the entries and bytes of the live workers are added up).
- Backlogs (outbox, deliveries by status and protocol, dead letters, Spark import runs) belong to the whole
  deployment and are already in the database: they are read at each scrape (operations/selectors.py) by a
  custom collector, so they are current and agree across replicas, and no worker or beat process needs an
  endpoint of its own. A database that cannot be read makes `registry_database_up` 0, not a failed scrape.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest, multiprocess
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from pipeline.models import ImportRun
from registry.store.bounded_cache import CACHE_METRICS
from subscriptions.models import Delivery

from . import selectors

logger = logging.getLogger(__name__)

# seconds; the registry's reads answer in milliseconds, imports and whole-registry answers take seconds
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


def multiprocess_mode() -> bool:
    """prometheus-client's own switch (it reads the variable when its values are created)."""
    return bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))


if multiprocess_mode():  # gunicorn.conf.py creates it; a process started otherwise with the variable set may not
    Path(os.environ["PROMETHEUS_MULTIPROC_DIR"]).mkdir(parents=True, exist_ok=True)

# in multiprocess mode their values go to the shared files whatever registry they are in
REQUEST_METRICS = CollectorRegistry()
REQUESTS = Counter(
    "registry_http_requests",
    "HTTP requests answered, by route (the URL pattern), method and status.",
    ["route", "method", "status"],
    registry=REQUEST_METRICS,
)
LATENCY = Histogram(
    "registry_http_request_duration_seconds",
    "Time to produce an answer (a streamed body's transfer not included), by route, method and status.",
    ["route", "method", "status"],
    buckets=LATENCY_BUCKETS,
    registry=REQUEST_METRICS,
)


# any other method is counted as OTHER: a label value per made-up method would be a new series each (routes and
# statuses are already few: URL patterns, and the statuses the registry answers)
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


# (route, method, status) -> the two series of that label set: prometheus-client's `labels()` checks and looks
# them up under a lock at each call; routes, methods and statuses are few, so they are kept
_series: dict[tuple[str, str, int], tuple] = {}


def observe_request(*, route: str, method: str, status: int, seconds: float) -> None:
    if method not in METHODS:
        method = "OTHER"
    series = _series.get((route, method, status))
    if series is None:
        labels = {"route": route, "method": method, "status": str(status)}
        series = _series[(route, method, status)] = (REQUESTS.labels(**labels), LATENCY.labels(**labels))
    series[0].inc()
    series[1].observe(seconds)


class BacklogCollector(Collector):
    """The deployment's backlogs, read from the database at each scrape."""

    def collect(self):
        started = time.perf_counter()
        up = GaugeMetricFamily("registry_database_up", "1 when the backlog figures below could be read.")
        try:
            families = list(self.backlog_families())
        except Exception:  # noqa: BLE001 - a scrape still answers, with the database marked down
            logger.warning("metrics: the backlog figures could not be read", exc_info=True)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield from families
        took = GaugeMetricFamily(
            "registry_metrics_backlog_query_seconds", "How long this scrape's backlog queries took."
        )
        took.add_metric([], time.perf_counter() - started)
        yield took

    def backlog_families(self):
        backlog = selectors.outbox_backlog()
        outbox = GaugeMetricFamily("registry_outbox_backlog_events", "Committed change events not yet relayed.")
        outbox.add_metric([], backlog.events)
        yield outbox
        age = GaugeMetricFamily(
            "registry_outbox_oldest_event_age_seconds", "Age of the oldest change event not yet relayed (0: none)."
        )
        age.add_metric([], (time.time() - backlog.oldest.timestamp()) if backlog.oldest else 0.0)
        yield age

        counts = selectors.deliveries_by_status_and_protocol()
        protocols = sorted({protocol for _status, protocol in counts})
        deliveries = GaugeMetricFamily(
            "registry_deliveries", "Delivery records by status and protocol.", labels=["status", "protocol"]
        )
        dead = GaugeMetricFamily(
            "registry_dead_letters", "Deliveries given up on (dead letters), by protocol.", labels=["protocol"]
        )
        for protocol in protocols:
            for status in Delivery.Status.values:  # every status, zeros included: alerts need the series
                deliveries.add_metric([status, protocol], counts.get((status, protocol), 0))
            dead.add_metric([protocol], counts.get((Delivery.Status.DEAD, protocol), 0))
        yield deliveries
        yield dead

        runs = selectors.import_runs_by_status()
        imports = GaugeMetricFamily(
            "registry_import_runs", "Bulk (Spark) import runs started from the admin, by status.", labels=["status"]
        )
        for status in ImportRun.Status.values:
            imports.add_metric([status], runs.get(status, 0))
        yield imports
        last = selectors.last_import_finished()
        finished = GaugeMetricFamily(
            "registry_import_last_finished_timestamp_seconds",
            "When the last bulk import run finished (Unix time; 0: none yet).",
        )
        finished.add_metric([], last.timestamp() if last else 0.0)
        yield finished


def exposition() -> bytes:
    """The text a scrape gets: this deployment's request figures and its backlogs."""
    registry = CollectorRegistry()
    if multiprocess_mode():
        multiprocess.MultiProcessCollector(registry)
    else:
        registry.register(_InMemoryRequests())
        registry.register(_InMemory(CACHE_METRICS))
    registry.register(BacklogCollector())
    return generate_latest(registry)


class _InMemory(Collector):
    """The figures of one of this process's registries (one process: no files to add up)."""

    def __init__(self, registry: CollectorRegistry):
        self.registry = registry

    def collect(self):
        return self.registry.collect()


class _InMemoryRequests(Collector):
    """This process's request figures (one process: no files to add up)."""

    def collect(self):
        return REQUEST_METRICS.collect()
