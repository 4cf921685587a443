"""Issue 37 (the next instance of "every door, one rule"): a subscription's status set by the system (the webhook
handshake's result, a sink's 410 Gone) is an update of the subscription like any other: it writes its audit row
(actor `system:delivery`, authtype system, door `delivery`) in its own transaction, shown by `GET /audit`. A status
the system sets again unchanged writes nothing."""

import pytest

from registry.models import AuditRecord
from subscriptions.models import Subscription
from subscriptions.webhooks import validate

pytestmark = pytest.mark.django_db(transaction=True)


def subscribe(client, sink) -> Subscription:
    response = client.post("/subscriptions", {"protocol": "HTTP", "sink": sink.url}, format="json")
    assert response.status_code == 201, response.content
    return Subscription.objects.get(pk=response.json()["id"])


def trail(subscription) -> list[tuple]:
    rows = AuditRecord.objects.filter(path=f"/subscriptions/{subscription.pk}").order_by("id")
    return list(rows.values_list("actor", "authtype", "door", "operation"))


SYSTEM_UPDATE = ("system:delivery", "system", "delivery", "update")


def test_the_handshake_s_result_is_audited_as_the_system_s(su, private_sinks, sink):
    accepted = subscribe(su, sink)
    assert accepted.status == "active"
    assert trail(accepted) == [("alice", "user", "subscriptions", "create"), SYSTEM_UPDATE]
    sink.handshake = "refuse"
    refused = subscribe(su, sink)
    assert refused.status == "failed"
    assert trail(refused) == [("alice", "user", "subscriptions", "create"), SYSTEM_UPDATE]
    # the same result again (a handshake run twice) changes nothing and records nothing
    validate(refused)
    assert trail(refused) == [("alice", "user", "subscriptions", "create"), SYSTEM_UPDATE]
    listed = su.get(f"/audit?path=/subscriptions/{refused.pk}&door=delivery")
    assert listed.status_code == 200, listed.content
    assert [(r["actor"], r["authtype"], r["operation"]) for r in listed.json()] == [
        ("system:delivery", "system", "update")
    ]
    assert listed.json()[0]["changes"] == {"status": {"before": "pending", "after": "failed"}}  # what changed


def test_a_sink_s_410_gone_is_audited_as_the_system_s(su, private_sinks, sink):
    subscription = subscribe(su, sink)
    before = trail(subscription)
    sink.statuses = [410]
    assert su.put("/schemaGroups/g", {}, format="json").status_code == 201
    subscription.refresh_from_db()
    assert subscription.status == "disabled"
    assert trail(subscription) == [*before, SYSTEM_UPDATE]


@pytest.fixture
def private_sinks(settings):
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = True
    settings.REGISTRY_DELIVERY_BACKOFF_BASE = 0.01
    return settings
