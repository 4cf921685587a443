"""Benchmark of event matching (issue 5): 10,000 subscriptions with realistic filters in the index,
p50/p99 time to match one event over 1,000 events. Prints figures; asserts nothing (goal <= 20 ms)."""

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from subscriptions.matching import SubscriptionIndex, matches  # noqa: E402

TYPES = [
    "io.cloudevents.schemaregistry.updated.v1",
    "io.cloudevents.schemaregistry.deleted.v1",
    "io.cloudevents.messagecatalog.updated.v1",
    "io.cloudevents.endpointregistry.updated.v1",
]


def subscription(rng, n):
    group = f"/schemaGroups/team{n % 500}"
    kind = rng.random()
    if kind < 0.5:
        return [{"prefix": {"subject": group}}]
    if kind < 0.7:
        return [{"exact": {"type": rng.choice(TYPES)}}, {"prefix": {"subject": group}}]
    if kind < 0.85:
        return [{"dialect": "basic", "type": "suffix", "property": "subject", "value": f"/schemas/S{n % 900}"}]
    if kind < 0.95:
        return [{"any": [{"prefix": {"subject": group}}, {"prefix": {"subject": f"/definitionGroups/d{n % 300}"}}]}]
    return []


def main():
    rng = random.Random(1)
    index, subscriptions = SubscriptionIndex(), {}
    for n in range(10_000):
        subscriptions[n] = subscription(rng, n)
        index.add(n, subscriptions[n])
    timings, scan = [], []
    for i in range(1000):
        event = {
            "type": rng.choice(TYPES),
            "source": "https://registry.example.com",
            "id": str(i),
            "subject": f"/schemaGroups/team{rng.randrange(500)}/schemas/S{rng.randrange(900)}/versions/2",
        }
        started = time.perf_counter()
        found = index.match(event)
        timings.append((time.perf_counter() - started) * 1000)
        if i < 100:
            started = time.perf_counter()
            brute = [n for n, f in subscriptions.items() if matches(f, event)]
            scan.append((time.perf_counter() - started) * 1000)
            assert sorted(found) == sorted(brute)
    timings.sort()
    print(
        f"10,000 subscriptions, 1,000 events: p50 {statistics.median(timings):.3f} ms, "
        f"p99 {timings[989]:.3f} ms per event (goal <= 20 ms); full scan p50 {statistics.median(scan):.2f} ms"
    )


if __name__ == "__main__":
    main()
