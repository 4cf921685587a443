"""Who hears of a committed change: apps that deliver events (subscriptions/) register a callback here, and the
engine calls every callback once after each transaction that wrote change events (registry/services/events.py).

A module of its own, outside the services package, so that an app registers at start-up (AppConfig.ready)
without loading every service: a management command that only reads starts faster.
"""

from __future__ import annotations

from collections.abc import Callable

on_commit_listeners: list[Callable[[], None]] = []


def register_on_commit(callback: Callable[[], None]) -> None:
    """Run callback after every transaction that wrote outbox rows (the relay it triggers is idempotent)."""
    if callback not in on_commit_listeners:
        on_commit_listeners.append(callback)


def announce() -> None:
    for callback in on_commit_listeners:
        callback()
