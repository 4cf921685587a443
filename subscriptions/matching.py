"""Matching change events against subscription filters, without scanning every subscription.

`matches(filters, attributes)` evaluates a subscription's filters (AND of expressions; case-sensitive,
exact on whitespace; a missing attribute matches nothing). `SubscriptionIndex` picks candidates first:
each subscription is filed under one anchor condition that every matching event must satisfy (an exact
value, a prefix or a suffix of one attribute, taken from its top-level AND); an event looks up its own
attribute values (every prefix and suffix of them) and only those candidates, plus the subscriptions
without an anchor, are evaluated. Written by hand: no library indexes CloudEvents filter dialects.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field


def _compare(kind: str, actual, expected: str) -> bool:
    if not isinstance(actual, str):
        return False
    if kind == "exact":
        return actual == expected
    if kind == "prefix":
        return actual.startswith(expected)
    return actual.endswith(expected)


def evaluate(expression: dict, attributes: dict) -> bool:
    if "dialect" in expression:
        return _compare(expression["type"], attributes.get(expression["property"]), expression["value"])
    dialect, value = next(iter(expression.items()))
    if dialect in ("exact", "prefix", "suffix"):
        return all(_compare(dialect, attributes.get(k), v) for k, v in value.items())
    if dialect == "all":
        return all(evaluate(e, attributes) for e in value)
    if dialect == "any":
        return any(evaluate(e, attributes) for e in value)
    if dialect == "not":
        return not evaluate(value, attributes)
    return False


def matches(filters: list, attributes: dict) -> bool:
    return all(evaluate(e, attributes) for e in filters or [])


def _anchor(filters: list) -> tuple[str, str, str] | None:
    """(kind, attribute, value) that every event matching these filters satisfies, or None."""
    conditions = []

    def collect(expression):
        if "dialect" in expression:
            conditions.append((expression["type"], expression["property"], expression["value"]))
            return
        dialect, value = next(iter(expression.items()))
        if dialect in ("exact", "prefix", "suffix"):
            conditions.extend((dialect, k, v) for k, v in value.items())
        elif dialect == "all":
            for sub in value:
                collect(sub)

    for expression in filters or []:
        collect(expression)
    order = {"exact": 0, "prefix": 1, "suffix": 2}
    conditions.sort(key=lambda c: (order[c[0]], -len(c[2])))
    return conditions[0] if conditions else None


@dataclass
class SubscriptionIndex:
    """Subscriptions (id, filters) filed by anchor for candidate lookup."""

    exact: dict = field(default_factory=lambda: defaultdict(list))
    prefix: dict = field(default_factory=lambda: defaultdict(list))
    suffix: dict = field(default_factory=lambda: defaultdict(list))
    unanchored: list = field(default_factory=list)
    attributes: set = field(default_factory=set)
    size: int = 0

    def add(self, key, filters: list) -> None:
        self.size += 1
        anchor = _anchor(filters)
        entry = (key, filters)
        if anchor is None:
            self.unanchored.append(entry)
            return
        kind, attribute, value = anchor
        self.attributes.add(attribute)
        getattr(self, kind)[(attribute, value)].append(entry)

    def candidates(self, attributes: dict):
        yield from self.unanchored
        for attribute in self.attributes:
            value = attributes.get(attribute)
            if not isinstance(value, str):
                continue
            yield from self.exact.get((attribute, value), ())
            if self.prefix:
                for end in range(len(value) + 1):
                    yield from self.prefix.get((attribute, value[:end]), ())
            if self.suffix:
                for start in range(len(value) + 1):
                    yield from self.suffix.get((attribute, value[start:]), ())

    def match(self, attributes: dict) -> list:
        """Keys of every subscription whose filters match, each once."""
        seen, out = set(), []
        for key, filters in self.candidates(attributes):
            if key not in seen and matches(filters, attributes):
                seen.add(key)
                out.append(key)
        return out
