"""MQTT 3.1.1 and 5.0 delivery with paho-mqtt: the structured-mode CloudEvent JSON published to
`protocolsettings.topicname` with the subscription's qos and retain (MQTT 5 adds the content type, message
expiry and user properties); for qos >= 1 the broker's acknowledgement is awaited. The client dials the
parsed sink's host and port (over WebSockets, at the sink's path, `/mqtt` when it has none); the connection
is bounded by `REGISTRY_DELIVERY_TIMEOUT`, and so is the wait for the acknowledgement."""

from __future__ import annotations

from typing import Literal

import paho.mqtt.client as mqtt
from django.conf import settings
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from ..validators.protocols import canonical_protocol
from ..validators.sink_urls import SinkError
from ..validators.sinks import deliverable
from .events import event_format, structured
from .outcome import Outcome


def send(subscription, event) -> Outcome:
    try:
        sink = deliverable(subscription)
    except SinkError as exc:
        return Outcome(ok=False, error=f"refused: {exc}")
    options = subscription.protocolsettings or {}
    v5 = canonical_protocol(subscription.protocol) == "MQTT5"
    tls = sink.scheme in ("mqtts", "ssl", "wss")
    transport: Literal["websockets", "tcp"] = "websockets" if sink.scheme in ("ws", "wss") else "tcp"
    _headers, body = structured(event, event_format(subscription))
    timeout = settings.REGISTRY_DELIVERY_TIMEOUT
    client = mqtt.Client(
        mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5 if v5 else mqtt.MQTTv311, transport=transport
    )
    client.connect_timeout = timeout
    if transport == "websockets":
        client.ws_set_options(path=sink.path if sink.path not in ("", "/") else "/mqtt")
    if options.get("username"):
        client.username_pw_set(options["username"], options.get("password"))
    elif sink.username:  # mqtt://user:password@host
        client.username_pw_set(sink.username, sink.password)
    if tls:
        client.tls_set()
    properties = None
    if v5:
        properties = Properties(PacketTypes.PUBLISH)
        properties.ContentType = "application/cloudevents+json"
        if options.get("expiry"):
            properties.MessageExpiryInterval = int(options["expiry"])
        if options.get("userproperties"):
            properties.UserProperty = list(options["userproperties"].items())
    try:
        client.connect(sink.host, sink.port, keepalive=max(5, int(timeout) * 2))
        client.loop_start()
        info = client.publish(
            options["topicname"],
            body,
            qos=int(options.get("qos", 1)),
            retain=bool(options.get("retain", False)),
            properties=properties,
        )
        info.wait_for_publish(timeout=timeout)
        if not info.is_published():
            return Outcome(ok=False, error="the broker did not acknowledge the publish in time")
        if info.rc != mqtt.MQTT_ERR_SUCCESS:
            return Outcome(ok=False, error=f"publish failed: {mqtt.error_string(info.rc)}")
        return Outcome(ok=True)
    except (OSError, ValueError, RuntimeError) as exc:
        return Outcome(ok=False, error=f"{type(exc).__name__}: {exc}")
    finally:
        # disconnect first: a loop still waiting for a CONNACK only stops at the keepalive otherwise
        client.disconnect()
        client.loop_stop()
