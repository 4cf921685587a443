"""NATS delivery with nats-py: the structured-mode CloudEvent JSON published to `protocolsettings.subject`
with a `Content-Type` header; a flush confirms the server received it."""

from __future__ import annotations

import asyncio
import threading

from django.conf import settings

from ..validators.sinks import check_sink
from .events import event_format, structured
from .outcome import Outcome


async def _publish(subscription, body: bytes, timeout: float) -> None:
    import nats

    options = subscription.protocolsettings or {}
    connection = await nats.connect(
        servers=[subscription.sink],
        connect_timeout=timeout,
        max_reconnect_attempts=0,
        allow_reconnect=False,
        user=options.get("user"),
        password=options.get("password"),
        token=options.get("token"),
    )
    try:
        await connection.publish(options["subject"], body, headers={"Content-Type": "application/cloudevents+json"})
        await connection.flush(timeout=timeout)
    finally:
        await connection.close()


def run_in_own_loop(coroutine) -> None:
    """Run a coroutine to completion on a fresh event loop in a short-lived thread, so that delivery works
    whether or not the calling thread already runs a loop (eager tasks inside async code, test runners)."""
    failure: list[BaseException] = []

    def target():
        try:
            asyncio.run(coroutine)
        except BaseException as exc:  # re-raised in the caller
            failure.append(exc)

    thread = threading.Thread(target=target, name="nats-publish", daemon=True)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]


def send(subscription, event) -> Outcome:
    reason = check_sink(subscription.sink, settings.REGISTRY_ALLOW_PRIVATE_SINKS)
    if reason:
        return Outcome(ok=False, error=f"refused: {reason}")
    _headers, body = structured(event, event_format(subscription))
    try:
        run_in_own_loop(_publish(subscription, body, settings.REGISTRY_DELIVERY_TIMEOUT))
    except Exception as exc:  # nats-py raises its own error types, OSError and timeouts
        return Outcome(ok=False, error=f"{type(exc).__name__}: {exc}")
    return Outcome(ok=True)
