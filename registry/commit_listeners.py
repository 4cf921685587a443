"""Who hears of a committed change: apps that deliver events (subscriptions/) register a callback here, and the
engine calls every callback once after each transaction that wrote change events (registry/services/events.py).
Apps that keep something derived from the entities (the Confluent API's subject version numbers) register with
`register_on_commit_paths`: their callback gets the entity paths the transaction wrote events for (a bulk import's
events stand for its groups), once, after it commits; a failing callback is logged and fails nothing (what it keeps
must be rebuilt when read, should it be missing).

A module of its own, outside the services package, so that an app registers at start-up (AppConfig.ready)
without loading every service: a management command that only reads starts faster.
"""

from __future__ import annotations

from collections.abc import Callable

on_commit_listeners: list[Callable[[], None]] = []
on_commit_path_listeners: list[Callable[[list[str]], None]] = []


def register_on_commit(callback: Callable[[], None]) -> None:
    """Run callback after every transaction that wrote outbox rows (the relay it triggers is idempotent)."""
    if callback not in on_commit_listeners:
        on_commit_listeners.append(callback)


def announce() -> None:
    for callback in on_commit_listeners:
        callback()


def register_on_commit_paths(callback: Callable[[list[str]], None]) -> None:
    """Run callback(paths) after every transaction that wrote outbox rows, with their entity paths in order."""
    if callback not in on_commit_path_listeners:
        on_commit_path_listeners.append(callback)


class WrittenPaths:
    """The entity paths one transaction wrote events for; called after it commits (`transaction.on_commit`), it
    hands them to every path listener."""

    def __init__(self) -> None:
        self.paths: dict[str, None] = {}  # ordered, each once
        self.__qualname__ = type(self).__qualname__  # Django's robust on_commit names the failing callback by it

    def __call__(self) -> None:
        paths = list(self.paths)
        for callback in on_commit_path_listeners:
            callback(paths)
