"""NATS delivery with nats-py: the structured-mode CloudEvent JSON published to `protocolsettings.subject`
with a `Content-Type` header; a flush confirms the server received it.

The client is given the parsed sink's one server (no user info in the URL: the sink's `user:password@` or
`token@` and the `user`/`password`/`token` settings are passed as options) and never reconnects, so servers
that the server's INFO advertises are never dialled. Connecting and publishing are each bounded by
`REGISTRY_DELIVERY_TIMEOUT`: nats-py's own loop retries a refused server forever when
`max_reconnect_attempts` is 0, so the attempt is also cut by `asyncio.wait_for`.
"""

from __future__ import annotations

import asyncio
import threading

import nats
from django.conf import settings

from ..validators.sink_urls import Sink, SinkError
from ..validators.sinks import deliverable
from .events import event_format, structured
from .outcome import Outcome


def credentials(sink: Sink, options: dict) -> dict:
    """user/password or token: from the settings, else from the sink's user info."""
    if options.get("user") or options.get("token"):
        return {"user": options.get("user"), "password": options.get("password"), "token": options.get("token")}
    if sink.username and sink.password is not None:
        return {"user": sink.username, "password": sink.password}
    if sink.username:
        return {"token": sink.username}
    return {}


async def _publish(sink: Sink, options: dict, body: bytes, timeout: float) -> None:
    path = sink.path if sink.scheme in ("ws", "wss") else ""
    seen: list[BaseException] = []

    async def record(error: BaseException) -> None:  # nats-py's error callback: keep the cause for the report
        seen.append(error)

    try:
        connection = await asyncio.wait_for(
            nats.connect(
                servers=[sink.origin() + path],
                connect_timeout=timeout,
                allow_reconnect=False,
                max_reconnect_attempts=1,  # 0 means "forever" to nats-py's server selection
                reconnect_time_wait=0,
                error_cb=record,
                **credentials(sink, options),
            ),
            timeout,
        )
    except TimeoutError:
        raise TimeoutError(f"could not connect to {sink.origin()} within {timeout:g} s") from None
    except Exception as exc:  # NoServersError hides the cause: name the last error seen
        cause = seen[-1] if seen else exc
        raise ConnectionError(f"could not connect to {sink.origin()}: {type(cause).__name__}: {cause}") from None
    try:
        await asyncio.wait_for(
            connection.publish(options["subject"], body, headers={"Content-Type": "application/cloudevents+json"}),
            timeout,
        )
        # nats-py annotates the timeout as int; it hands it to asyncio.wait_for, which takes the float
        await connection.flush(timeout=timeout)  # type: ignore[arg-type]
    finally:
        try:
            await asyncio.wait_for(connection.close(), timeout)
        except (TimeoutError, OSError):
            pass


def run_in_own_loop(coroutine, timeout: float) -> None:
    """Run a coroutine to completion on a fresh event loop in a short-lived thread, so that delivery works
    whether or not the calling thread already runs a loop (eager tasks inside async code, test runners);
    give up waiting after `timeout` seconds."""
    failure: list[BaseException] = []

    def target():
        try:
            asyncio.run(coroutine)
        except BaseException as exc:  # re-raised in the caller
            failure.append(exc)

    thread = threading.Thread(target=target, name="nats-publish", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise TimeoutError(f"the NATS client did not finish within {timeout:g} s")
    if failure:
        raise failure[0]


def send(subscription, event) -> Outcome:
    try:
        sink = deliverable(subscription)
    except SinkError as exc:
        return Outcome(ok=False, error=f"refused: {exc}")
    _headers, body = structured(event, event_format(subscription))
    timeout = settings.REGISTRY_DELIVERY_TIMEOUT
    try:
        run_in_own_loop(_publish(sink, subscription.protocolsettings or {}, body, timeout), 3 * timeout + 1)
    except Exception as exc:  # nats-py raises its own error types, OSError and timeouts
        return Outcome(ok=False, error=f"{type(exc).__name__}: {exc or 'no reason given'}")
    return Outcome(ok=True)
