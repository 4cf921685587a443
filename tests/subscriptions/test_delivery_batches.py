"""Deliveries go out in batches (one task, one claim, one write per outcome for many deliveries). What a
subscriber sees must not change: each subscription gets its events in change order, a failing sink holds
back only its own events (not other subscriptions'), 410 disables at once, and a batch that runs out of
time hands back what it did not send, counting no attempt for it."""

import json

import pytest
from django.db import transaction

from registry.services import EntityAddress, WriteContext, create_group
from subscriptions.delivery import attempts
from subscriptions.models import Delivery, Subscription
from tests.subscriptions.conftest import Sink, serve

pytestmark = pytest.mark.django_db(transaction=True)


def subscribe(client, sink, **extra):
    response = client.post("/subscriptions", {"protocol": "HTTP", "sink": sink.url, **extra}, format="json")
    assert response.status_code == 201, response.content
    return Subscription.objects.get(pk=response.json()["id"])


def commit_groups(*names):
    """Several changes in one transaction: the relay makes one batch of their deliveries."""
    with transaction.atomic():
        for name in names:
            create_group(ctx=WriteContext(user="t"), address=EntityAddress("schemaGroups"), data={"id": name})


def posted_subjects(sink):
    return [json.loads(r["body"])["subject"] for r in sink.requests if r["method"] == "POST"]


def make_due(queryset):
    queryset.update(next_attempt_at=Delivery.objects.first().created_at.replace(year=2000))


def test_one_batch_arrives_in_change_order(su, private_sinks, sink):
    subscribe(su, sink)
    names = [f"g{n:02}" for n in range(12)]
    commit_groups(*names)
    assert posted_subjects(sink) == [f"/schemaGroups/{n}" for n in names]
    assert set(Delivery.objects.values_list("status", "attempts")) == {("delivered", 1)}
    assert all(d.attempt_log.count() == 1 for d in Delivery.objects.all())


def test_a_failure_holds_back_the_rest_of_that_subscriptions_batch(su, private_sinks, sink):
    subscribe(su, sink)
    sink.statuses = [200, 503]
    commit_groups("a", "b", "c", "d")
    by_subject = {d.event.subject: d for d in Delivery.objects.select_related("event")}
    assert posted_subjects(sink) == ["/schemaGroups/a", "/schemaGroups/b"]  # c and d were not tried
    assert (by_subject["/schemaGroups/a"].status, by_subject["/schemaGroups/a"].attempts) == ("delivered", 1)
    failed = by_subject["/schemaGroups/b"]
    assert (failed.status, failed.attempts, failed.last_status_code) == ("retrying", 1, 503)
    for subject in ("/schemaGroups/c", "/schemaGroups/d"):
        waiting = by_subject[subject]
        assert (waiting.status, waiting.attempts) == ("retrying", 0)  # no attempt counted
        assert waiting.next_attempt_at == failed.next_attempt_at
        assert f"waiting behind delivery {failed.pk}" in waiting.last_error
        assert waiting.attempt_log.count() == 0
    # when the retry comes, the held-back events follow in order
    due = Delivery.objects.exclude(status="delivered")
    make_due(due)
    again = attempts.attempt_batch(due.values_list("pk", flat=True))
    assert again == []
    assert posted_subjects(sink)[2:] == ["/schemaGroups/b", "/schemaGroups/c", "/schemaGroups/d"]
    assert set(Delivery.objects.values_list("status", flat=True)) == {"delivered"}
    assert Delivery.objects.get(pk=failed.pk).attempts == 2


def test_a_failing_sink_does_not_hold_back_other_subscriptions(su, private_sinks, sink):
    healthy = Sink()
    with serve(healthy):
        failing_sub = subscribe(su, sink)
        healthy_sub = subscribe(su, healthy)
        sink.statuses = [500] * 10
        commit_groups("x", "y", "z")
    assert posted_subjects(healthy) == ["/schemaGroups/x", "/schemaGroups/y", "/schemaGroups/z"]
    assert set(Delivery.objects.filter(subscription=healthy_sub).values_list("status", flat=True)) == {"delivered"}
    assert sorted(Delivery.objects.filter(subscription=failing_sub).values_list("attempts", flat=True)) == [0, 0, 1]


def test_gone_disables_and_ends_the_rest_of_the_batch(su, private_sinks, sink):
    subscription = subscribe(su, sink)
    sink.statuses = [410]
    commit_groups("p", "q", "r")
    subscription.refresh_from_db()
    assert subscription.status == "disabled"
    assert posted_subjects(sink) == ["/schemaGroups/p"]
    assert list(Delivery.objects.order_by("pk").values_list("status", "attempts")) == [
        ("dead", 1),
        ("dead", 1),
        ("dead", 1),
    ]
    assert "410" in Delivery.objects.order_by("pk").last().last_error


def test_a_batch_hands_back_what_it_could_not_send_within_half_its_lease(su, private_sinks, sink):
    private_sinks.REGISTRY_DELIVERY_LEASE_SECONDS = 1  # half a second to send
    subscribe(su, sink)
    sink.delay = 0.3
    commit_groups("s1", "s2", "s3", "s4", "s5")
    statuses = list(Delivery.objects.order_by("pk").values_list("status", "attempts"))
    sent = [s for s in statuses if s == ("delivered", 1)]
    assert 1 <= len(sent) <= 3 and statuses[: len(sent)] == sent
    assert statuses[len(sent) :] == [("pending", 0)] * (5 - len(sent))  # handed back, nothing counted
    sink.delay = 0
    private_sinks.REGISTRY_DELIVERY_LEASE_SECONDS = 45
    again = attempts.attempt_batch(Delivery.objects.values_list("pk", flat=True))
    assert again == []
    assert posted_subjects(sink) == [f"/schemaGroups/s{n}" for n in range(1, 6)]
