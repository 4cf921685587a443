"""At most one outbox relay queued at a time: busy periods coalesce their relays (issue 14).

Every commit that writes change events kicks the relay. Queued one task per commit, a writer committing a
hundred changes a second cost a hundred relay tasks, each a broker round trip, a claim transaction and its
queries: about 12 ms of worker CPU per change. Instead, a kick queues a relay only when none is pending,
marked by a flag in the broker's Redis (`SET NX` with a time-to-live); the relay clears the flag *before* it
reads the outbox, so an event committed after that read sets the flag again and queues the next relay, and
none is left behind. A relay task that was lost (worker killed) leaves the flag until it expires
(`REGISTRY_RELAY_FLAG_SECONDS`); the beat sweep relays in the meantime, as it always did.

Without a Redis broker (eager mode, tests, other brokers) every kick queues a relay as before.

With a broker, the kick is not the request's to wait for (issue 37): a broker that is down or slow cost each write
the client's retries, 0.6-0.8 s, before its answer. A kick only wakes a thread of the process (started at the first
kick, one per process) that claims the flag and queues the relay; kicks that come while it works are answered by one
more round. Nothing is lost when the broker cannot be reached: the outbox rows stay and the beat sweep relays them.
At the process's exit, kicks still pending are sent (for at most `EXIT_WAIT_SECONDS`), so that a command that writes
and ends (an import) does not leave its last events to the sweep. In eager mode (no broker) the relay runs in the
committing process as before: there is no broker to wait for.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading

from django.conf import settings

logger = logging.getLogger(__name__)

FLAG = "cloudevents-registry:relay-pending"
EXIT_WAIT_SECONDS = 5.0
_client: dict = {}


def _redis():
    url = settings.CELERY_BROKER_URL
    if settings.CELERY_TASK_ALWAYS_EAGER or not url.startswith(("redis://", "rediss://", "unix://")):
        return None
    if _client.get("url") != url:
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


def queue_relay() -> None:
    """Queue a relay now, unless a relay is already queued (it will read this commit's events too). If the broker
    is unreachable the beat sweep relays later; nothing is lost."""
    if not claim():
        return
    # imported here, not at the top: the tasks load Celery and the delivery code, which a process needs only once
    # a change has committed (a management command that reads would load them for nothing: start-up time)
    from .tasks import relay_outbox

    try:
        relay_outbox.apply_async(retry=False)
    except Exception:  # noqa: BLE001  broker down: logged, the outbox row waits for the sweep
        logger.warning("could not queue the outbox relay; the sweep will relay", exc_info=True)


class Kicker:
    """One thread per process that queues relays when woken; `kick()` returns at once."""

    def __init__(self) -> None:
        self.condition = threading.Condition()
        self.pending = self.running = False
        self.thread: threading.Thread | None = None

    def kick(self) -> None:
        with self.condition:
            self.pending = True
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self.run, name="relay-kicks", daemon=True)
                self.thread.start()
            self.condition.notify_all()

    def run(self) -> None:
        while True:
            with self.condition:
                self.condition.wait_for(lambda: self.pending)
                self.pending, self.running = False, True
            try:
                queue_relay()
            except Exception:  # noqa: BLE001  whatever failed, the thread keeps serving kicks; the sweep relays
                logger.warning("the outbox relay kick failed; the sweep will relay", exc_info=True)
            finally:
                with self.condition:
                    self.running = False
                    self.condition.notify_all()

    def wait(self, timeout: float) -> bool:
        """Wait until no kick is pending or being sent (at most `timeout` seconds): True when none is."""
        with self.condition:
            return self.condition.wait_for(lambda: not (self.pending or self.running), timeout)


kicker = Kicker()
atexit.register(lambda: kicker.wait(EXIT_WAIT_SECONDS))
# a process forked while the thread held the condition (a Celery worker's children) starts with a fresh one
os.register_at_fork(after_in_child=lambda: globals().update(kicker=Kicker()))


def kick_relay() -> None:
    """After a commit that wrote change events (registered with the engine in SubscriptionsConfig.ready): with a
    broker, wake the process's kicker thread and return; in eager mode, relay now."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        queue_relay()
    else:
        kicker.kick()
