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
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict

from django.conf import settings

from ..validators.protocols import kafka_servers
from ..validators.sinks import check_sink
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

_producers: OrderedDict[tuple, object] = OrderedDict()
_producers_lock = threading.Lock()


def producer_config(subscription, timeout: float) -> dict:
    """librdkafka's configuration for this subscription's producer."""
    options = subscription.protocolsettings or {}
    scheme, servers = kafka_servers(subscription.sink)
    config = {
        "bootstrap.servers": ",".join(servers),
        "security.protocol": SECURITY.get(scheme, "PLAINTEXT"),
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
    if config["security.protocol"].startswith("SASL"):
        config.update(
            {
                "sasl.mechanism": options.get("saslmechanism", "PLAIN"),
                "sasl.username": options.get("username", ""),
                "sasl.password": options.get("password", ""),
            }
        )
    return config


def _producer(config: dict):
    """The process's producer for this configuration (created on first use; least recently used closed)."""
    from confluent_kafka import Producer

    key = tuple(sorted((k, v) for k, v in config.items() if k != "logger"))
    with _producers_lock:
        producer = _producers.get(key)
        if producer is None:
            producer = _producers[key] = Producer(config)
            while len(_producers) > MAX_PRODUCERS:
                _producers.popitem(last=False)[1].flush(0)
        _producers.move_to_end(key)
    return producer


def message(subscription, event):
    """The KafkaMessage (headers, key, value) of this event for this subscription."""
    from cloudevents.core.bindings import kafka as binding

    options = subscription.protocolsettings or {}
    attribute = options.get("partitionkeyextractor") or "subject"

    def key(ce):
        value = ce.get_attributes().get(attribute)
        return None if value is None else str(value)

    ce = cloud_event(event, event_format(subscription))
    binary = str((subscription.config or {}).get("mode", "structured")).lower() == "binary"
    return (binding.to_binary_event if binary else binding.to_structured_event)(ce, key_mapper=key)


def send(subscription, event) -> Outcome:
    from confluent_kafka import KafkaError, KafkaException

    reason = check_sink(subscription.sink, settings.REGISTRY_ALLOW_PRIVATE_SINKS)
    if reason:
        return Outcome(ok=False, error=f"refused: {reason}")
    timeout = settings.REGISTRY_DELIVERY_TIMEOUT
    topic = (subscription.protocolsettings or {})["topicname"]
    kafka_message = message(subscription, event)
    done = threading.Event()
    result: list = []

    def delivered(error, _message):
        result.append(error)
        done.set()

    try:
        producer = _producer(producer_config(subscription, timeout))
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
        deadline = time.monotonic() + timeout + 5
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
