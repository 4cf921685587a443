"""Filter semantics of subscriptions, table-driven, and the candidate index against brute force."""

import random

import pytest

from subscriptions.matching import SubscriptionIndex, matches
from subscriptions.validators.filters import validate_filters

EVENT = {
    "specversion": "1.0",
    "id": "1",
    "type": "io.cloudevents.schemaregistry.updated.v1",
    "source": "http://reg",
    "subject": "/schemaGroups/orders/schemas/Placed",
    "time": "2026-01-01T00:00:00Z",
}

TABLE = [
    ([{"dialect": "basic", "type": "exact", "property": "type", "value": EVENT["type"]}], True),
    ([{"dialect": "basic", "type": "exact", "property": "type", "value": EVENT["type"].upper()}], False),
    ([{"dialect": "basic", "type": "prefix", "property": "subject", "value": "/schemaGroups/"}], True),
    ([{"dialect": "basic", "type": "prefix", "property": "subject", "value": " /schemaGroups"}], False),
    ([{"dialect": "basic", "type": "suffix", "property": "subject", "value": "/Placed"}], True),
    ([{"dialect": "basic", "type": "suffix", "property": "subject", "value": "/Placed "}], False),
    ([{"dialect": "basic", "type": "exact", "property": "missing", "value": ""}], False),
    ([{"exact": {"type": EVENT["type"], "source": "http://reg"}}], True),
    ([{"exact": {"type": EVENT["type"], "source": "http://other"}}], False),
    ([{"prefix": {"subject": "/schemaGroups/orders"}}], True),
    ([{"suffix": {"type": ".deleted.v1"}}], False),
    ([{"all": [{"prefix": {"subject": "/schema"}}, {"suffix": {"type": "updated.v1"}}]}], True),
    ([{"all": [{"prefix": {"subject": "/schema"}}, {"suffix": {"type": "deleted.v1"}}]}], False),
    ([{"any": [{"prefix": {"subject": "/endpoints"}}, {"suffix": {"type": "updated.v1"}}]}], True),
    ([{"any": [{"prefix": {"subject": "/endpoints"}}, {"exact": {"missing": "x"}}]}], False),
    ([{"not": {"prefix": {"subject": "/endpoints"}}}], True),
    ([{"not": {"exact": {"missing": "x"}}}], True),  # a missing attribute does not match, so not() does
    ([{"prefix": {"subject": "/schemaGroups"}}, {"exact": {"source": "http://other"}}], False),  # AND
    ([], True),
]


@pytest.mark.parametrize(("filters", "expected"), TABLE)
def test_filter_semantics(filters, expected):
    assert validate_filters(filters) == []
    assert matches(filters, EVENT) is expected


@pytest.mark.parametrize(
    ("filters", "error"),
    [
        ([{"dialect": "sql", "expression": "1=1"}], "dialect 'sql' is not supported"),
        ([{"dialect": "basic", "type": "regex", "property": "type", "value": "x"}], "type must be one of"),
        ([{"dialect": "basic", "type": "exact", "value": "x"}], "property must be a string"),
        ([{"cesql": "type = 'x'"}], "dialect 'cesql' is not supported"),
        ([{"exact": {}}], "non-empty map"),
        ([{"exact": {"type": 5}}], "must be a string"),
        ([{"all": []}], "non-empty array"),
        ([{"exact": {"a": "b"}, "prefix": {"a": "b"}}], "exactly one dialect"),
        ({"exact": {"a": "b"}}, "must be an array"),
    ],
)
def test_invalid_filters(filters, error):
    errors = validate_filters(filters)
    assert any(error in e for e in errors), errors


def random_filter(rng):
    attribute = rng.choice(["type", "subject", "source"])
    value = rng.choice([EVENT[attribute][: rng.randint(0, len(EVENT[attribute]))], "/endpoints", "io.", "x"])
    kind = rng.choice(["exact", "prefix", "suffix"])
    leaf = (
        {kind: {attribute: value}}
        if rng.random() < 0.7
        else {"dialect": "basic", "type": kind, "property": attribute, "value": value}
    )
    roll = rng.random()
    if roll < 0.1:
        return {"not": leaf}
    if roll < 0.2:
        return {"any": [leaf, {"prefix": {"subject": "/schemaGroups"}}]}
    if roll < 0.3:
        return {"all": [leaf, {"suffix": {"type": "v1"}}]}
    return leaf


def test_index_agrees_with_brute_force():
    rng = random.Random(7)
    index, subscriptions = SubscriptionIndex(), {}
    for number in range(3000):
        filters = [random_filter(rng) for _ in range(rng.randint(0, 2))]
        subscriptions[number] = filters
        index.add(number, filters)
    events = [
        EVENT,
        {**EVENT, "subject": "/endpoints/e1", "type": "io.cloudevents.endpointregistry.deleted.v1"},
        {**EVENT, "source": "x"},
        {k: v for k, v in EVENT.items() if k != "subject"},
    ]
    for event in events:
        expected = sorted(n for n, filters in subscriptions.items() if matches(filters, event))
        assert sorted(index.match(event)) == expected
