"""HTTP delivery end to end: handshake, one structured CloudEvent per change, retries, 410, dead letters."""

import json

import pytest
from cloudevents.core.bindings.http import HTTPMessage, from_structured_event

from registry.models import OutboxEvent
from subscriptions import services
from subscriptions.delivery import attempts, policy
from subscriptions.models import Delivery, Subscription

pytestmark = pytest.mark.django_db(transaction=True)


def subscribe(client, sink, **extra):
    body = {"protocol": "HTTP", "sink": sink.url, **extra}
    response = client.post("/subscriptions", body, format="json")
    assert response.status_code == 201, response.content
    return Subscription.objects.get(pk=response.json()["id"])


def test_handshake_states(su, private_sinks, sink):
    subscription = subscribe(su, sink)
    assert subscription.status == "active"
    options = sink.requests[0]
    assert options["method"] == "OPTIONS" and options["headers"]["webhook-request-origin"]
    sink.handshake = "refuse"
    refused = subscribe(su, sink)
    assert refused.status == "failed" and "refused" in refused.status_reason
    assert su.get(f"/subscriptions/{refused.pk}").json()["status"] == "failed"
    private_sinks.REGISTRY_WEBHOOK_HANDSHAKE = False
    assert subscribe(su, sink).status == "active"


def test_a_change_reaches_the_sink_as_one_cloudevent(su, private_sinks, sink):
    subscribe(
        su,
        sink,
        filters=[{"prefix": {"subject": "/schemaGroups/orders/schemas"}}],
        protocolsettings={"headers": {"X-Team": "orders"}},
    )
    su.put("/schemaGroups/orders", {}, format="json")
    response = su.generic(
        "POST",
        "/schemaGroups/orders/schemas",
        b'{"type": "object"}',
        content_type="application/json",
        HTTP_REGISTRY_ID="Placed",
        HTTP_REGISTRY_FORMAT="JsonSchema/draft-07",
    )
    assert response.status_code == 201
    posts = [r for r in sink.requests if r["method"] == "POST"]
    subjects = [json.loads(r["body"])["subject"] for r in posts]
    assert subjects == ["/schemaGroups/orders/schemas/Placed", "/schemaGroups/orders/schemas/Placed/versions/1"]
    message = posts[0]
    assert message["headers"]["content-type"] == "application/cloudevents+json"
    assert message["headers"]["x-team"] == "orders"
    event = from_structured_event(HTTPMessage(headers=message["headers"], body=message["body"]))
    assert event.get_type() == "io.cloudevents.schemaregistry.updated.v1"
    assert event.get_source() == "http://testserver"
    assert event.get_subject() == "/schemaGroups/orders/schemas/Placed"
    meta = su.get("/schemaGroups/orders/schemas/Placed?meta").json()
    stored = OutboxEvent.objects.get(subject="/schemaGroups/orders/schemas/Placed")
    assert str(stored.id) == event.get_id()
    assert event.get_time().isoformat().replace("+00:00", "Z").startswith(meta["createdOn"][:19])


def test_retries_until_delivered_with_the_same_id(su, private_sinks, sink):
    subscribe(su, sink)
    sink.statuses = [500, 503]
    su.put("/schemaGroups/g", {}, format="json")
    delivery = Delivery.objects.get()
    assert delivery.status == "retrying" and delivery.attempts == 1
    for _ in range(5):
        delivery.refresh_from_db()
        if delivery.status == "delivered":
            break
        Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=delivery.next_attempt_at.replace(year=2000))
        attempts.attempt_batch([delivery.pk])
    delivery.refresh_from_db()
    assert delivery.status == "delivered" and delivery.attempts == 3
    ids = {json.loads(r["body"])["id"] for r in sink.requests if r["method"] == "POST"}
    assert len(ids) == 1
    log = list(delivery.attempt_log.values_list("status_code", flat=True))
    assert log == [500, 503, 200]
    assert all(a.latency_ms is not None for a in delivery.attempt_log.all())


def test_gone_disables_and_4xx_is_not_retried(su, private_sinks, sink):
    subscription = subscribe(su, sink)
    sink.statuses = [400]
    su.put("/schemaGroups/a", {}, format="json")
    assert Delivery.objects.get().status == "dead"
    sink.statuses = [410]
    su.put("/schemaGroups/b", {}, format="json")
    subscription.refresh_from_db()
    assert subscription.status == "disabled"
    su.put("/schemaGroups/c", {}, format="json")
    assert Delivery.objects.count() == 2  # nothing matched for a disabled subscription


def test_max_attempts_dead_letter_then_redeliver(su, private_sinks, sink):
    subscription = subscribe(su, sink)
    Subscription.objects.filter(pk=subscription.pk).update(max_attempts=2)
    sink.statuses = [500, 500]
    su.put("/schemaGroups/g", {}, format="json")
    delivery = Delivery.objects.get()
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=delivery.next_attempt_at.replace(year=2000))
    attempts.attempt_batch([delivery.pk])
    delivery.refresh_from_db()
    assert delivery.status == "dead" and delivery.attempts == 2
    response = su.post(f"/subscriptions/{subscription.pk}/redeliver")
    assert response.status_code == 200 and response.json() == {"redelivered": 1}
    delivery.refresh_from_db()
    assert delivery.status == "delivered"
    assert services.redeliver(delivery_ids=[delivery.pk]) == 0  # only dead letters are redelivered


def test_rolled_back_change_delivers_nothing(su, private_sinks, sink):
    subscribe(su, sink)
    response = su.generic("POST", "/schemaGroups", '{"id": "x", "tags": []}', content_type="application/json")
    assert response.status_code == 400
    assert [r for r in sink.requests if r["method"] == "POST"] == []
    assert OutboxEvent.objects.count() == 0


def test_retry_policy():
    assert policy.retry_after_seconds("7") == 7
    assert policy.retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0
    assert policy.retry_after_seconds("soon") is None
    assert all(policy.is_retryable(code) for code in (None, 404, 408, 409, 429, 500, 503))
    assert not any(policy.is_retryable(code) for code in (400, 401, 403, 410, 422))
    delays = [policy.backoff_seconds(n) for n in range(1, 30)]
    assert delays[0] <= 1 and max(delays) <= 3600 and delays[10] > delays[2]
    assert policy.next_delay(3, "2") == 2


def test_retry_after_is_honoured_and_a_refused_connection_is_retried(su, private_sinks, sink):
    from django.utils import timezone

    subscription = subscribe(su, sink)
    sink.statuses, sink.headers = [503], {"Retry-After": "120"}
    before = timezone.now()
    su.put("/schemaGroups/later", {}, format="json")
    delivery = Delivery.objects.get()
    assert (delivery.status, delivery.last_status_code) == ("retrying", 503)
    assert 119 <= (delivery.next_attempt_at - before).total_seconds() <= 125

    port = sink.server.server_port
    sink.server.shutdown()
    sink.server.server_close()
    Subscription.objects.filter(pk=subscription.pk).update(sink=f"http://127.0.0.1:{port}/hook")
    su.put("/schemaGroups/nobody-listens", {}, format="json")
    refused = Delivery.objects.get(event__subject="/schemaGroups/nobody-listens")
    assert refused.status == "retrying" and refused.last_status_code is None
    assert "ConnectError" in refused.last_error
    assert refused.attempt_log.get().status_code is None


def test_a_subscription_may_ask_for_xregistry_10_events(su, private_sinks, sink):
    """config.eventformat "xregistry-1.0" (CONTRACT section 11): 1.0 type, the xid in 1.0 names as subject, one
    xregcorrelationid per write; the default still gets the 0.5 event."""
    subscribe(su, sink, config={"eventformat": "xregistry-1.0"})
    response = su.generic(
        "PUT",
        "/registry/messagegroups/shop",
        json.dumps(
            {
                "envelope": "CloudEvents/1.0",
                "messages": {
                    "Placed": {"envelope": "CloudEvents/1.0", "envelopemetadata": {"type": {"value": "shop.placed"}}}
                },
            }
        ),
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    events = [
        from_structured_event(HTTPMessage(headers=r["headers"], body=r["body"]))
        for r in sink.requests
        if r["method"] == "POST"
    ]
    by_subject = {e.get_subject(): e for e in events}
    assert set(by_subject) == {
        "/messagegroups/shop",
        "/messagegroups/shop/messages/Placed",
        "/messagegroups/shop/messages/Placed/versions/1",
    }
    assert by_subject["/messagegroups/shop"].get_type() == "io.xregistry.group.updated"
    assert by_subject["/messagegroups/shop/messages/Placed"].get_type() == "io.xregistry.resource.updated"
    assert by_subject["/messagegroups/shop/messages/Placed/versions/1"].get_type() == "io.xregistry.version.updated"
    correlations = {e.get_extension("xregcorrelationid") for e in events}
    assert len(correlations) == 1 and None not in correlations
    su.generic("DELETE", "/registry/messagegroups/shop")
    deleted = [
        from_structured_event(HTTPMessage(headers=r["headers"], body=r["body"]))
        for r in sink.requests
        if r["method"] == "POST"
    ][len(events) :]
    assert {e.get_type() for e in deleted} >= {"io.xregistry.group.deleted"}
    assert all(e.get_extension("xregcorrelationid") not in correlations for e in deleted)


def test_an_unknown_event_format_is_refused(su, private_sinks, sink):
    response = su.post(
        "/subscriptions",
        {"protocol": "HTTP", "sink": sink.url, "config": {"eventformat": "xregistry-2"}},
        format="json",
    )
    assert response.status_code == 400 and "eventformat" in response.json()["detail"] + json.dumps(
        response.json().get("errors", "")
    )
    assert not Subscription.objects.exists()


def test_the_sinks_user_info_is_sent_as_basic_credentials(su, private_sinks, sink):
    """https://user:password@host/...: HTTP Basic, as curl and httpx read it (the handshake too)."""
    import base64

    url = sink.url.replace("http://", "http://hook%40team:p%3Ass@")
    response = su.post("/subscriptions", {"protocol": "HTTP", "sink": url}, format="json")
    assert response.status_code == 201
    assert Subscription.objects.get(pk=response.json()["id"]).status == "active"
    su.put("/schemaGroups/basic", {}, format="json")
    expected = "Basic " + base64.b64encode(b"hook@team:p:ss").decode()
    assert [r["headers"].get("authorization") for r in sink.requests] == [expected, expected]
    assert [r["method"] for r in sink.requests] == ["OPTIONS", "POST"]
