"""Which sender delivers which protocol."""

from __future__ import annotations

from ..validators.protocols import canonical_protocol
from .outcome import Outcome


def send(subscription, event) -> Outcome:
    protocol = canonical_protocol(subscription.protocol)
    if protocol == "HTTP":
        # here: each protocol's sender (and its client library) loads with the first delivery to that protocol
        from . import http

        return http.send(subscription, event)
    if protocol in ("MQTT3", "MQTT5"):
        # here: each protocol's sender (and its client library) loads with the first delivery to that protocol
        from . import mqtt

        return mqtt.send(subscription, event)
    if protocol == "KAFKA":
        # here: each protocol's sender (and its client library) loads with the first delivery to that protocol
        from . import kafka

        return kafka.send(subscription, event)
    if protocol == "NATS":
        # here: each protocol's sender (and its client library) loads with the first delivery to that protocol
        from . import nats

        return nats.send(subscription, event)
    if protocol == "AMQP":
        # here: each protocol's sender (and its client library) loads with the first delivery to that protocol
        from . import amqp

        return amqp.send(subscription, event)
    return Outcome(ok=False, error=f"this server cannot deliver over {subscription.protocol}")
