"""Message formats: the metadata validator for each format family, chosen by the format's name."""
from __future__ import annotations

from ..format_names import message_format_family
from . import amqp, cloudevents, http, kafka, mqtt, nats


def validate_metadata(format_name: str | None, metadata) -> list[str]:
    """Errors of `metadata` under its message format; unknown formats only need an object."""
    family, version = message_format_family(format_name)
    if family == "CloudEvents":
        return cloudevents.validate(metadata)
    if family == "HTTP":
        return http.validate(metadata)
    if family == "AMQP":
        return amqp.validate(metadata)
    if family == "MQTT":
        return mqtt.validate(metadata, version)
    if family == "Kafka":
        return kafka.validate(metadata)
    if family == "NATS":
        return nats.validate(metadata)
    return [] if isinstance(metadata, dict) else ["metadata must be an object"]
