"""Readiness: whether this process can serve the registry now (what `/readyz` answers).

Three checks, in order, each named in the answer:
- database: a connection and `SELECT 1` on the default database;
- migrations: every migration on disk is applied (Django's own plan, as `migrate --check` computes it): new
  code whose migrations have not run yet is not ready, so an upgrade runs the migrations first;
- broker: with a Celery broker configured (CELERY_BROKER_URL), a connection to it; without one, tasks run in
  the web process and there is nothing to reach.
A failed check stops the ones after it (no migrations can be read from a database that cannot be reached).

`/readyz` answers anyone (a kubelet, a load balancer): a failed check's answer names the component and the error's
class, never the error's message, which names hosts, ports, users or databases (issue 37); the message is logged
(logger `operations.readiness`, WARNING) for the operator.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor

BROKER_TIMEOUT_SECONDS = 2.0
logger = logging.getLogger(__name__)


@dataclass
class Readiness:
    checks: dict[str, str] = field(default_factory=dict)
    reason: str = ""

    @property
    def ready(self) -> bool:
        return not self.reason


def failed(what: str, exc: Exception) -> str:
    """The answer's words for a failed check (the component and the error's class), the whole error logged."""
    logger.warning("readiness: %s: %s: %s", what, type(exc).__name__, exc)
    return f"{what} ({type(exc).__name__}; the server's log has the error)"


def check_database() -> str | None:
    """None when the database answers, else why not."""
    connection = connections[DEFAULT_DB_ALIAS]
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # noqa: BLE001 - any driver error means: not reachable
        # a broken connection is not reused by the next check or request
        connection.close_if_unusable_or_obsolete()
        return failed("database unreachable", exc)
    return None


def check_migrations() -> str | None:
    """None when every migration on disk is applied, else how many are not and the first few."""
    connection = connections[DEFAULT_DB_ALIAS]
    try:
        executor = MigrationExecutor(connection)
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except Exception as exc:  # noqa: BLE001 - e.g. the migrations table cannot be read
        return failed("migrations unreadable", exc)
    if not plan:
        return None
    names = [f"{migration.app_label}.{migration.name}" for migration, _backwards in plan]
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return f"{len(names)} migration(s) not applied: {shown} (run manage.py migrate)"


def broker_configured() -> bool:
    return not settings.CELERY_TASK_ALWAYS_EAGER


def check_broker() -> str | None:
    """None when the Celery broker accepts a connection, else why not."""
    # here: Celery loads only when a probe checks the broker, not at the start-up of every process
    from registry.celery import app

    try:
        with app.connection_for_write(settings.CELERY_BROKER_URL) as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=BROKER_TIMEOUT_SECONDS)
    except Exception as exc:  # noqa: BLE001 - any transport error means: not reachable
        return failed("broker unreachable", exc)
    return None


def readiness() -> Readiness:
    result = Readiness()
    for name, check, applies in (
        ("database", check_database, True),
        ("migrations", check_migrations, True),
        ("broker", check_broker, broker_configured()),
    ):
        if not applies:
            result.checks[name] = "not configured"
        elif result.reason:
            result.checks[name] = "not checked"
        elif problem := check():
            result.checks[name] = "failed"
            result.reason = problem
        else:
            result.checks[name] = "ok"
    return result
