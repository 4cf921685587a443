"""Kicking the outbox relay after a commit (subscriptions/relay_flag.py says when a kick queues one).

With a broker, the kick is not the request's to wait for (issue 37): a broker that is down or slow cost each write
the client's retries before its answer. A kick only wakes a thread of the process (started at the first
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

from . import relay_flag

logger = logging.getLogger(__name__)
EXIT_WAIT_SECONDS = 5.0


def queue_relay() -> None:
    """Queue a relay now, unless a relay is already queued (it will read this commit's events too). If the broker
    is unreachable the beat sweep relays later; nothing is lost."""
    if not relay_flag.claim():
        return
    # imported here, not at the top (no cycle: the tasks import relay_flag, not this module): the tasks load Celery
    # and the delivery code, which a process needs only once a change has committed (a management command
    # that reads would load them for nothing: start-up time)
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
