"""Issue 23 item 4: a subscription's filters match the subject and type of the event format it receives.

A subscription with `config.eventformat: xregistry-1.0` receives `/schemagroups/com.acme/...` subjects and
`io.xregistry.<entity>.<action>` types: its filters are matched against those, and a 0.5 subscription's
against the 0.5 event. Each case: one change of a group, then one schema (resource and version events);
what each subscription received is read at its sink."""

import json

import pytest

from subscriptions.models import Delivery
from tests.helpers import cache_use

pytestmark = pytest.mark.django_db(transaction=True)
V10 = "xregistry-1.0"
V05 = "cloudevents-registry-0.5"
GROUP_05, RESOURCE_05, VERSION_05 = (
    "/schemaGroups/com.acme",
    "/schemaGroups/com.acme/schemas/Placed",
    "/schemaGroups/com.acme/schemas/Placed/versions/1",
)
GROUP_10, RESOURCE_10, VERSION_10 = (
    "/schemagroups/com.acme",
    "/schemagroups/com.acme/schemas/Placed",
    "/schemagroups/com.acme/schemas/Placed/versions/1",
)
CASES = [
    # (event format, filter, subjects received, in the subscription's format)
    (V10, {"prefix": {"subject": "/schemagroups/com.acme"}}, [GROUP_10, RESOURCE_10, VERSION_10]),
    (V10, {"exact": {"subject": RESOURCE_10}}, [RESOURCE_10]),
    (V10, {"suffix": {"subject": "/versions/1"}}, [VERSION_10]),
    (V10, {"exact": {"type": "io.xregistry.group.updated"}}, [GROUP_10]),
    (V10, {"prefix": {"type": "io.xregistry."}}, [GROUP_10, RESOURCE_10, VERSION_10]),
    (V10, {"suffix": {"type": ".resource.updated"}}, [RESOURCE_10]),
    (
        V10,
        {"dialect": "basic", "type": "prefix", "property": "subject", "value": "/schemagroups/"},
        [
            GROUP_10,
            RESOURCE_10,
            VERSION_10,
        ],
    ),
    # the 0.5 spelling names nothing a 1.0 subscriber receives
    (V10, {"prefix": {"subject": "/schemaGroups/com.acme"}}, []),
    (V10, {"exact": {"type": "io.cloudevents.schemaregistry.updated.v1"}}, []),
    (V05, {"prefix": {"subject": "/schemaGroups/com.acme"}}, [GROUP_05, RESOURCE_05, VERSION_05]),
    (V05, {"exact": {"subject": RESOURCE_05}}, [RESOURCE_05]),
    (V05, {"suffix": {"subject": "/versions/1"}}, [VERSION_05]),
    (V05, {"exact": {"type": "io.cloudevents.schemaregistry.updated.v1"}}, [GROUP_05, RESOURCE_05, VERSION_05]),
    (V05, {"prefix": {"type": "io.cloudevents.schema"}}, [GROUP_05, RESOURCE_05, VERSION_05]),
    (V05, {"suffix": {"type": ".deleted.v1"}}, []),
    # and the 1.0 spelling nothing a 0.5 subscriber receives
    (V05, {"prefix": {"subject": "/schemagroups/"}}, []),
    (V05, {"prefix": {"type": "io.xregistry."}}, []),
]


@pytest.mark.parametrize(("eventformat", "expression", "expected"), CASES)
def test_filters_match_the_event_the_subscription_receives(su, private_sinks, sink, eventformat, expression, expected):
    private_sinks.REGISTRY_WEBHOOK_HANDSHAKE = False
    body = {"protocol": "HTTP", "sink": sink.url, "filters": [expression], "config": {"eventformat": eventformat}}
    response = su.post("/subscriptions", body, format="json")
    assert response.status_code == 201, response.content
    assert su.put("/schemaGroups/com.acme", {}, format="json").status_code == 201
    response = su.generic(
        "POST",
        "/schemaGroups/com.acme/schemas",
        b'{"type": "object"}',
        content_type="application/json",
        HTTP_REGISTRY_ID="Placed",
        HTTP_REGISTRY_FORMAT="JsonSchema/draft-07",
    )
    assert response.status_code == 201, response.content
    received = [json.loads(r["body"]) for r in sink.requests if r["method"] == "POST"]
    assert [event["subject"] for event in received] == expected
    expected_types = {V10: "io.xregistry.", V05: "io.cloudevents.schemaregistry."}[eventformat]
    assert all(event["type"].startswith(expected_types) for event in received)
    assert Delivery.objects.count() == len(expected)
    assert all(d.status == "delivered" for d in Delivery.objects.all())


def test_one_change_reaches_each_format_by_its_own_spelling(su, private_sinks, sink):
    """Both formats' subscriptions at once: each matched in its own spelling, none twice."""
    private_sinks.REGISTRY_WEBHOOK_HANDSHAKE = False
    for eventformat, subject in ((V10, "/schemagroups/com.acme"), (V05, "/schemaGroups/com.acme")):
        body = {
            "protocol": "HTTP",
            "sink": sink.url,
            "filters": [{"exact": {"subject": subject}}],
            "config": {"eventformat": eventformat},
            "protocolsettings": {"headers": {"X-Format": eventformat}},
        }
        assert su.post("/subscriptions", body, format="json").status_code == 201
    looked_up, _entries = cache_use("subscription_indexes")
    assert su.put("/schemaGroups/com.acme", {}, format="json").status_code == 201
    received = sorted(
        (r["headers"]["x-format"], json.loads(r["body"])["subject"]) for r in sink.requests if r["method"] == "POST"
    )
    assert received == [(V05, "/schemaGroups/com.acme"), (V10, "/schemagroups/com.acme")]
    now, entries = cache_use("subscription_indexes")  # the relay's indexes, kept under the subscriptions' stamp
    assert now > looked_up and entries == 1
