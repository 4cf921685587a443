"""The time budget of a check that runs a user's schema or data (issue 24): no such check may hold a worker.

gunicorn's `timeout` does not end a request of a threaded worker, so every check is bounded here, in process:
the entry point of a check (a message check, a compatibility dry run or version check, a diff, the meta-validation
of a schema document) runs inside `limit(what)`, and the engines it drives call `spend()` at their steps (a
JSON Schema keyword, a comparison of two subschemas, an XPath evaluation of an XSD assertion, an element of XML
data, a grammar rule of a .proto file). Once the check's thread has used `REGISTRY_CHECK_SECONDS` of CPU time
since the check began, `spend` raises `Exhausted`, and the outermost `limit` answers a 503 problem naming the
budget, its setting and the check it stopped. CPU time rather than wall-clock time: the budget measures the work
an input causes, the same on a busy server as on an idle one (a worker waiting for the CPU does not fail a
check that would pass alone). Reading the thread's CPU clock costs a system call, so `spend` reads it every
CLOCK_EVERY steps. Nested `limit`s share the outermost one's budget: a dry run that meta-validates the candidate
and then compares it with every earlier version has one budget for all of it. Outside any `limit` (a command,
a Spark executor), `spend` does nothing.

`Exhausted` derives from BaseException so that no library's `except Exception` mistakes it for a failure of
its own input and carries on; only `limit` catches it. Code between a `spend` and its `limit` must not catch
BaseException.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import time

from django.conf import settings

from registry.domain.errors import Problem

DEFAULT_SECONDS = 1.0  # = REGISTRY_CHECK_SECONDS's default; used where no Django settings exist
SETTING = "REGISTRY_CHECK_SECONDS"
CLOCK_EVERY = 16  # steps between two readings of the CPU clock (a reading costs about as much as a step)


class Exhausted(BaseException):
    """The running check used its budget; `limit` turns it into a 503 problem."""


class _Budget:
    __slots__ = ("deadline", "seconds", "steps", "what")

    def __init__(self, what: str, seconds: float):
        self.what, self.seconds, self.steps = what, seconds, 0
        self.deadline = time.thread_time() + seconds


_current: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar("check_budget", default=None)


def budget_seconds() -> float:
    """The setting REGISTRY_CHECK_SECONDS; where Django is not configured (a Spark executor), the environment
    variable of that name, else DEFAULT_SECONDS: every door checks with the same budget."""
    if not settings.configured:
        return float(os.environ.get(SETTING) or DEFAULT_SECONDS)
    return float(getattr(settings, SETTING, DEFAULT_SECONDS))


def exceeded_problem(what: str, seconds: float) -> Problem:
    return Problem(
        "service-unavailable",
        f"{what} ran past its time budget of {seconds:g} s of CPU ({SETTING}) and was stopped: the schema or "
        "the data is too costly to check on this server",
        members={"budget": SETTING, "budgetSeconds": seconds},
    )


@contextlib.contextmanager
def limit(what: str):
    """Run the block as the check `what` ("the message check"), within the budget of the outermost one."""
    if _current.get() is not None:
        yield
        return
    budget = _Budget(what, budget_seconds())
    token = _current.set(budget)
    try:
        yield
    except Exhausted:
        raise exceeded_problem(budget.what, budget.seconds) from None
    finally:
        _current.reset(token)


@contextlib.contextmanager
def paused():
    """Run the block outside the running check's budget: for a library's one-time start-up (loading a
    metaschema once per process), which is no cost of the user's input and must not fail the first check. The
    time it takes is given back to the running check."""
    budget = _current.get()
    token = _current.set(None)
    started = time.thread_time()
    try:
        yield
    finally:
        _current.reset(token)
        if budget is not None:
            budget.deadline += time.thread_time() - started


def spend() -> None:
    """One step of the running check: raises Exhausted once its budget has passed (no-op outside a check)."""
    budget = _current.get()
    if budget is not None:
        budget.steps += 1
        if not budget.steps % CLOCK_EVERY and time.thread_time() > budget.deadline:
            raise Exhausted()


def remaining() -> float | None:
    """CPU seconds left to the running check (at least a millisecond), or None outside a check."""
    budget = _current.get()
    if budget is None:
        return None
    left = budget.deadline - time.thread_time()
    if left <= 0:
        raise Exhausted()
    return max(left, 0.001)


__all__ = ["DEFAULT_SECONDS", "Exhausted", "budget_seconds", "limit", "paused", "remaining", "spend"]
