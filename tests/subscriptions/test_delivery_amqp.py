"""AMQP 1.0 delivery for real: a RabbitMQ node (rabbitmq_amqp1_0) started on free loopback ports for this
module, a python-qpid-proton receiver on a queue, both CloudEvents modes, a refused address, validation."""

import json
import os

import pytest

from subscriptions.delivery import attempts
from subscriptions.models import Delivery, DeliveryAttempt, Subscription
from tests.harness.services import ServiceUnavailable, free_port, start_rabbitmq

pytestmark = pytest.mark.django_db(transaction=True)
REQUIRED = os.environ.get("REQUIRE_SERVICES") == "1"


@pytest.fixture(scope="module")
def rabbitmq():
    """One node for the module: it takes 5-10 s to boot (tests using it are marked slow)."""
    try:
        service = start_rabbitmq()
    except ServiceUnavailable as exc:
        if REQUIRED:
            pytest.fail(f"REQUIRE_SERVICES=1 but {exc}")
        pytest.skip(str(exc))
    yield service
    service.stop()


@pytest.fixture
def receiver(rabbitmq, request):
    """A blocking receiver on a fresh RabbitMQ queue (declared by the attach); yields (queue address, receiver)."""
    from proton.utils import BlockingConnection

    address = f"/queue/registry-{request.node.name.replace('[', '-').replace(']', '')}"
    connection = BlockingConnection(rabbitmq.url, timeout=15)
    try:
        yield address, connection.create_receiver(address, credit=10)
    finally:
        connection.close()


def receive(receiver):
    message = receiver.receive(timeout=15)
    if isinstance(message.body, memoryview):  # a view into proton's buffer: copy it before settling
        message.body = bytes(message.body)
    receiver.accept()
    return message


@pytest.mark.slow
def test_structured_mode_reaches_a_consumer(su, private_sinks, rabbitmq, receiver):
    address, queue = receiver
    response = su.post(
        "/subscriptions",
        {
            "protocol": "AMQP",
            "sink": rabbitmq.url,
            "protocolsettings": {
                "address": address,
                "linkname": "registry-changes",
                "linkproperties": {"team": "orders"},
            },
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "active"
    assert body["protocolsettings"]["sendersettlementmode"] == "unsettled"
    su.put("/schemaGroups/amqp-group", {}, format="json")
    message = receive(queue)
    assert message.content_type == "application/cloudevents+json"
    event = json.loads(bytes(message.body))
    assert event["specversion"] == "1.0" and event["subject"] == "/schemaGroups/amqp-group"
    delivery = Delivery.objects.get()
    assert delivery.status == "delivered"
    assert event["id"] == str(delivery.event_id)


@pytest.mark.slow
def test_binary_mode_sets_cloudevents_application_properties(su, private_sinks, rabbitmq, receiver):
    address, queue = receiver
    # the address in the sink's path: amqp://host:port//queue/NAME is the address /queue/NAME
    response = su.post(
        "/subscriptions",
        {
            "protocol": "AMQP",
            "sink": f"{rabbitmq.url}/{address}",
            "config": {"mode": "binary"},
            "protocolsettings": {"sendersettlementmode": "unsettled"},
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    su.put("/definitionGroups/amqp-binary", {"format": "CloudEvents/1.0"}, format="json")
    message = receive(queue)
    properties = message.properties
    assert properties["cloudEvents:specversion"] == "1.0"
    assert properties["cloudEvents:type"] == "io.cloudevents.messagecatalog.updated.v1"
    assert properties["cloudEvents:subject"] == "/definitionGroups/amqp-binary"
    assert properties["cloudEvents:id"] == str(Delivery.objects.get().event_id)
    assert properties["cloudEvents:source"] and properties["cloudEvents:time"]
    assert message.content_type != "application/cloudevents+json"
    assert not message.body  # change events carry no data


@pytest.mark.slow
def test_settled_mode_delivers(su, private_sinks, rabbitmq, receiver):
    address, queue = receiver
    su.post(
        "/subscriptions",
        {
            "protocol": "AMQP",
            "sink": rabbitmq.url,
            "protocolsettings": {"address": address, "sendersettlementmode": "settled"},
        },
        format="json",
    )
    su.put("/schemaGroups/settled", {}, format="json")
    assert json.loads(bytes(receive(queue).body))["subject"] == "/schemaGroups/settled"


@pytest.mark.slow
def test_refused_address_fails_with_the_brokers_reason_then_dead_letter(su, private_sinks, rabbitmq):
    response = su.post(
        "/subscriptions",
        {"protocol": "AMQP", "sink": rabbitmq.url, "protocolsettings": {"address": "/exchange/no-such-exchange"}},
        format="json",
    )
    assert response.status_code == 201
    Subscription.objects.filter(pk=response.json()["id"]).update(max_attempts=2)
    su.put("/schemaGroups/refused", {}, format="json")
    delivery = Delivery.objects.get()
    assert delivery.status == "retrying"
    assert "amqp:not-found" in delivery.last_error and "no-such-exchange" in delivery.last_error
    attempt = DeliveryAttempt.objects.get(delivery=delivery)
    assert "amqp:not-found" in attempt.error
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=delivery.next_attempt_at.replace(year=2000))
    attempts.attempt_batch([delivery.pk])
    delivery.refresh_from_db()
    assert delivery.status == "dead" and delivery.attempts == 2


@pytest.mark.slow
def test_broker_down_then_back_delivers_the_same_event(su, private_sinks, rabbitmq):
    """No broker at the sink: a failed attempt, retried; the broker starts there: the retry delivers the event
    once, with the id it had from the start. (`rabbitmq` only for its skip when RabbitMQ is not installed.)"""
    from proton import Timeout
    from proton.utils import BlockingConnection

    port = free_port()
    su.post(
        "/subscriptions",
        {"protocol": "AMQP", "sink": f"amqp://127.0.0.1:{port}", "protocolsettings": {"address": "/queue/comes-back"}},
        format="json",
    )
    su.put("/schemaGroups/nobroker", {}, format="json")
    delivery = Delivery.objects.get()
    assert delivery.status == "retrying" and delivery.last_error
    broker = start_rabbitmq(port=port)
    try:
        Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=delivery.next_attempt_at.replace(year=2000))
        attempts.attempt_batch([delivery.pk])
        delivery.refresh_from_db()
        assert delivery.status == "delivered" and delivery.attempts == 2
        connection = BlockingConnection(broker.url, timeout=15)
        try:
            queue = connection.create_receiver("/queue/comes-back", credit=10)
            event = json.loads(bytes(receive(queue).body))
            assert event["id"] == str(delivery.event_id) and event["subject"] == "/schemaGroups/nobroker"
            with pytest.raises(Timeout):  # once: nothing else in the queue
                queue.receive(timeout=1)
        finally:
            connection.close()
    finally:
        broker.stop()


def test_credentials_in_the_sink_are_masked(su, private_sinks):
    response = su.post(
        "/subscriptions", {"protocol": "AMQP", "sink": "amqps://app:s3cret@127.0.0.1:5671/q"}, format="json"
    )
    assert response.status_code == 201
    assert "s3cret" not in response.content.decode()
    assert "s3cret" not in su.get(f"/subscriptions/{response.json()['id']}").content.decode()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"sink": "amqp://127.0.0.1:5672"}, "protocolsettings.address is required"),
        ({"sink": "ws://127.0.0.1:5672/q"}, "sink scheme"),
        (
            {"sink": "amqp://127.0.0.1:5672/q", "protocolsettings": {"sendersettlementmode": "mixed"}},
            "protocolsettings.sendersettlementmode",
        ),
        (
            {"sink": "amqp://127.0.0.1:5672/q", "protocolsettings": {"linkproperties": {"a": 1}}},
            "protocolsettings.linkproperties",
        ),
        ({"sink": "amqp://127.0.0.1:5672/q", "protocolsettings": {"linkname": 5}}, "protocolsettings.linkname"),
        ({"sink": "amqp://127.0.0.1:5672/q", "protocolsettings": {"address": ""}}, "protocolsettings.address"),
        ({"sink": "amqp://127.0.0.1:5672/q", "protocolsettings": {"topicname": "t"}}, "protocolsettings.topicname"),
        ({"sink": "amqp://127.0.0.1:5672/q", "config": {"mode": "batched"}}, "config.mode"),
    ],
)
def test_validation_names_the_field(su, private_sinks, body, field):
    response = su.post("/subscriptions", {"protocol": "AMQP", **body}, format="json")
    assert response.status_code == 400
    assert field in response.json()["detail"]
    assert Subscription.objects.count() == 0
