"""Kafka delivery with confluent-kafka (librdkafka): the CloudEvent produced to `protocolsettings.topicname`
in the Kafka protocol binding, structured (value: the event as `application/cloudevents+json`) or binary
(`ce_` headers, value: the data), as the subscription's `config.mode` says (default structured). The key is
the event attribute named by `partitionkeyextractor`, else the event's `subject`.

The sink lists the bootstrap servers: `kafka://host:port[,host:port...]` (`kafkas://` and Kafka's listener
forms `PLAINTEXT://`, `SSL://`, `SASL_PLAINTEXT://`, `SASL_SSL://` too). One producer per (servers, client
id, acks, credentials) is kept per process: opening connections and fetching metadata per delivery would
cost more than the delivery. A send waits for the broker's acknowledgement through the delivery callback; an
error (unknown topic, broker down, time out) is a failed outcome carrying librdkafka's reason, retried like
any connection error.

The producer is given exactly the parsed sink's servers (`host:port,...`, rebuilt from the parse, never the
sink's text). A Kafka client then dials the brokers the cluster advertises in its metadata, so these are
checked by the same rule before a message is produced (again every BROKER_CHECK_SECONDS per producer): a
cluster that names a loopback or private broker gets no message. Fetching the metadata and waiting for the
acknowledgement are each bounded by `REGISTRY_DELIVERY_TIMEOUT`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict

from cloudevents.core.bindings import kafka as binding
from confluent_kafka import KafkaError, KafkaException, Producer
from django.conf import settings

from ..validators.sink_urls import Sink, SinkError
from ..validators.sinks import address_refusal, deliverable
from .events import cloud_event, event_format
from .outcome import Outcome

logger = logging.getLogger("subscriptions.delivery.kafka")
SECURITY = {
    "kafka": "PLAINTEXT",
    "tcp": "PLAINTEXT",
    "plaintext": "PLAINTEXT",
    "kafkas": "SSL",
    "ssl": "SSL",
    "sasl_plaintext": "SASL_PLAINTEXT",
    "sasl_ssl": "SASL_SSL",
}
MAX_PRODUCERS = 32
BROKER_CHECK_SECONDS = 30.0

_producers: OrderedDict[tuple, Producer] = OrderedDict()
_producers_lock = threading.Lock()
_brokers_checked: dict[tuple, float] = {}  # producer key -> when its cluster's brokers were last checked


def producer_config(subscription, sink: Sink, timeout: float) -> dict:
    """librdkafka's configuration for this subscription's producer."""
    options = subscription.protocolsettings or {}
    security = SECURITY.get(sink.scheme, "PLAINTEXT")
    config = {
        "bootstrap.servers": ",".join(Sink.hostport(host, port) for host, port in sink.servers),
        "security.protocol": security,
        "client.id": options.get("clientid") or "cloudevents-registry",
        "acks": str(options.get("acks", "all")),
        "message.timeout.ms": max(1, int(timeout * 1000)),
        "socket.connection.setup.timeout.ms": max(1000, int(timeout * 1000)),
        # an unknown topic fails the message after this long (with the broker's UNKNOWN_TOPIC_OR_PART)
        # instead of waiting out the message timeout
        "topic.metadata.propagation.max.ms": min(1000, max(1, int(timeout * 1000))),
        # the topic must exist: the registry creates no topics in a subscriber's cluster (a broker that
        # auto-creates topics for a producer's metadata request would otherwise do so)
        "allow.auto.create.topics": False,
        "enable.idempotence": False,
        # a broker back after an outage is reached again within a second (librdkafka's default waits up to 10 s)
        "reconnect.backoff.max.ms": 1000,
        "logger": logger,
    }
    if security.startswith("SASL"):
        config.update(
            {
                "sasl.mechanism": options.get("saslmechanism", "PLAIN"),
                "sasl.username": options.get("username", ""),
                "sasl.password": options.get("password", ""),
            }
        )
    return config


def _producer(config: dict) -> tuple[tuple, Producer]:
    """(key, the process's producer) for this configuration (created on first use; least recently used
    closed)."""
    key = tuple(sorted((k, v) for k, v in config.items() if k != "logger"))
    with _producers_lock:
        producer = _producers.get(key)
        if producer is None:
            producer = _producers[key] = Producer(config)
            while len(_producers) > MAX_PRODUCERS:
                old_key, old = _producers.popitem(last=False)
                _brokers_checked.pop(old_key, None)
                old.flush(0)
        _producers.move_to_end(key)
    return key, producer


def advertised_refusal(producer, key: tuple, topic: str, timeout: float) -> str | None:
    """None when every broker the cluster advertises may be dialled (checked at most every
    BROKER_CHECK_SECONDS per producer), else the reason. Raises KafkaException when the cluster does not
    answer within `timeout`."""
    if settings.REGISTRY_ALLOW_PRIVATE_SINKS:
        return None
    now = time.monotonic()
    if now - _brokers_checked.get(key, float("-inf")) < BROKER_CHECK_SECONDS:
        return None
    metadata = producer.list_topics(topic, timeout=timeout)
    for broker in metadata.brokers.values():
        reason = address_refusal(broker.host, broker.port)
        if reason:
            return f"the cluster advertises broker {Sink.hostport(broker.host, broker.port)}: {reason}"
    _brokers_checked[key] = now
    return None


def message(subscription, event):
    """The KafkaMessage (headers, key, value) of this event for this subscription."""
    options = subscription.protocolsettings or {}
    attribute = options.get("partitionkeyextractor") or "subject"

    def key(ce):
        value = ce.get_attributes().get(attribute)
        return None if value is None else str(value)

    ce = cloud_event(event, event_format(subscription))
    binary = str((subscription.config or {}).get("mode", "structured")).lower() == "binary"
    return (binding.to_binary_event if binary else binding.to_structured_event)(ce, key_mapper=key)


def send(subscription, event) -> Outcome:
    try:
        sink = deliverable(subscription)
    except SinkError as exc:
        return Outcome(ok=False, error=f"refused: {exc}")
    timeout = settings.REGISTRY_DELIVERY_TIMEOUT
    topic = (subscription.protocolsettings or {})["topicname"]
    kafka_message = message(subscription, event)
    done = threading.Event()
    result: list = []

    def delivered(error, _message):
        result.append(error)
        done.set()

    try:
        key, producer = _producer(producer_config(subscription, sink, timeout))
        reason = advertised_refusal(producer, key, topic, timeout)
        if reason:
            return Outcome(ok=False, error=f"refused: {reason}")
        arguments = {
            "value": kafka_message.value,
            "key": kafka_message.key,
            "headers": list(kafka_message.headers.items()),
            "on_delivery": delivered,
        }
        try:
            producer.produce(topic, **arguments)
        except KafkaException as exc:
            if exc.args[0].code() != KafkaError._UNKNOWN_TOPIC:
                raise
            # the producer's metadata says the topic does not exist; it may have been created since (its
            # metadata is refreshed only every few minutes): ask the broker again, then try once more
            producer.list_topics(topic, timeout=timeout)
            producer.produce(topic, **arguments)
        # serve delivery callbacks until ours came (the message timeout bounds the wait; a margin for the
        # callback to be served)
        deadline = time.monotonic() + timeout + 1
        while not done.is_set() and time.monotonic() < deadline:
            producer.poll(0.05)
    except KafkaException as exc:  # produce() refused the message at once (e.g. a topic known not to exist)
        error = exc.args[0] if exc.args and hasattr(exc.args[0], "name") else None
        if error is None:
            return Outcome(ok=False, error=f"KafkaException: {exc}")
        return Outcome(ok=False, error=f"Kafka {error.name()}: {error.str()} (topic {topic!r})")
    except (BufferError, ValueError, TypeError) as exc:
        return Outcome(ok=False, error=f"{type(exc).__name__}: {exc}")
    if not done.is_set():
        return Outcome(ok=False, error=f"the broker did not acknowledge the message within {timeout:.0f} s")
    error = result[0]
    if error is not None:
        return Outcome(ok=False, error=f"Kafka {error.name()}: {error.str()} (topic {topic!r})")
    return Outcome(ok=True)
