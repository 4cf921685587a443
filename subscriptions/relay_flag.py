"""At most one outbox relay queued at a time: busy periods coalesce their relays (issue 14).

Every commit that writes change events kicks the relay. Queued one task per commit, a writer committing a
hundred changes a second cost a hundred relay tasks, each a broker round trip, a claim transaction and its
queries. Instead, a kick queues a relay only when none is pending,
marked by a flag in the broker's Redis (`SET NX` with a time-to-live); the relay clears the flag *before* it
reads the outbox, so an event committed after that read sets the flag again and queues the next relay, and
none is left behind. A relay task that was lost (worker killed) leaves the flag until it expires
(`REGISTRY_RELAY_FLAG_SECONDS`); the beat sweep relays in the meantime, as it always did.

Without a Redis broker (eager mode, tests, other brokers) every kick queues a relay as before.

The kicks that queue a relay after each commit are relay_kicks.py's.
"""

from __future__ import annotations

import logging

from django.conf import settings

logger = logging.getLogger(__name__)

FLAG = "cloudevents-registry:relay-pending"
_client: dict = {}


def _redis():
    url = settings.CELERY_BROKER_URL
    if settings.CELERY_TASK_ALWAYS_EAGER or not url.startswith(("redis://", "rediss://", "unix://")):
        return None
    if _client.get("url") != url:
        # here: the Redis client loads only with a Redis broker
        import redis

        _client.update(url=url, client=redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2))
    return _client["client"]


def claim() -> bool:
    """True when the caller should queue a relay (no relay pending, or no flag to coordinate with)."""
    client = _redis()
    if client is None:
        return True
    try:
        return bool(client.set(FLAG, "1", nx=True, ex=max(1, int(settings.REGISTRY_RELAY_FLAG_SECONDS))))
    except Exception:  # noqa: BLE001  Redis unreachable: queue anyway (the sweep covers a lost queue)
        logger.warning("could not read the relay flag; queueing a relay", exc_info=True)
        return True


def release() -> None:
    """Called by the relay before it reads the outbox: later commits queue the next relay."""
    client = _redis()
    if client is None:
        return
    try:
        client.delete(FLAG)
    except Exception:  # noqa: BLE001  the flag expires by itself
        logger.warning("could not clear the relay flag", exc_info=True)
