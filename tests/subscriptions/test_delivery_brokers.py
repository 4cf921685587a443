"""MQTT 3.1.1, MQTT 5 and NATS delivery for real, to mosquitto and nats-server started on free ports."""

import asyncio
import json
import os
import queue
import shutil
import threading
import time

import pytest

from tests.harness.services import free_port, port_open, start_process

pytestmark = pytest.mark.django_db(transaction=True)
REQUIRED = os.environ.get("REQUIRE_SERVICES") == "1"


def binary(name):
    path = shutil.which(name) or (f"/usr/sbin/{name}" if os.path.exists(f"/usr/sbin/{name}") else None)
    if path is None:
        if REQUIRED:
            pytest.fail(f"REQUIRE_SERVICES=1 but {name} is not installed")
        pytest.skip(f"{name} is not installed")
    return path


@pytest.fixture
def mosquitto(tmp_path):
    port = free_port()
    config = tmp_path / "mosquitto.conf"
    config.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
    process = start_process([binary("mosquitto"), "-c", str(config)], dict(os.environ), lambda: port_open(port))
    yield port
    process.stop()


@pytest.fixture
def nats_server():
    port = free_port()
    process = start_process(
        [binary("nats-server"), "-a", "127.0.0.1", "-p", str(port)], dict(os.environ), lambda: port_open(port)
    )
    yield port
    process.stop()


@pytest.mark.parametrize("protocol", ["MQTT3", "MQTT5"])
def test_mqtt_delivery(su, private_sinks, mosquitto, protocol):
    import paho.mqtt.client as mqtt

    received: queue.Queue = queue.Queue()
    version = mqtt.MQTTv5 if protocol == "MQTT5" else mqtt.MQTTv311
    listener = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=version)
    listener.on_message = lambda client, userdata, message: received.put(message)
    subscribed = threading.Event()
    listener.on_subscribe = lambda *args: subscribed.set()
    listener.connect("127.0.0.1", mosquitto)
    listener.subscribe("registry/changes", qos=1)
    listener.loop_start()
    assert subscribed.wait(10)
    try:
        settings = {"topicname": "registry/changes"}
        if protocol == "MQTT5":
            settings["userproperties"] = {"team": "orders"}
        response = su.post(
            "/subscriptions",
            {"protocol": protocol, "sink": f"mqtt://127.0.0.1:{mosquitto}", "protocolsettings": settings},
            format="json",
        )
        assert response.status_code == 201 and response.json()["status"] == "active"
        su.put("/schemaGroups/mqtt-group", {}, format="json")
        message = received.get(timeout=15)
        event = json.loads(message.payload)
        assert event["subject"] == "/schemaGroups/mqtt-group" and event["specversion"] == "1.0"
        assert message.qos == 1
        if protocol == "MQTT5":
            assert message.properties.ContentType == "application/cloudevents+json"
            assert ("team", "orders") in message.properties.UserProperty
    finally:
        listener.loop_stop()
        listener.disconnect()


def test_nats_delivery(su, private_sinks, nats_server):
    import nats

    received: queue.Queue = queue.Queue()
    ready = threading.Event()
    stop = threading.Event()

    async def listen():
        connection = await nats.connect(f"nats://127.0.0.1:{nats_server}")

        async def handler(message):
            received.put(message)

        await connection.subscribe("registry.changes", cb=handler)
        await connection.flush()
        ready.set()
        while not stop.is_set():
            await asyncio.sleep(0.05)
        await connection.close()

    thread = threading.Thread(target=lambda: asyncio.run(listen()), daemon=True)
    thread.start()
    assert ready.wait(10)
    try:
        response = su.post(
            "/subscriptions",
            {
                "protocol": "NATS",
                "sink": f"nats://127.0.0.1:{nats_server}",
                "protocolsettings": {"subject": "registry.changes"},
            },
            format="json",
        )
        assert response.status_code == 201
        su.put("/definitionGroups/nats-group", {"format": "CloudEvents/1.0"}, format="json")
        message = received.get(timeout=15)
        event = json.loads(message.data)
        assert event["type"] == "io.cloudevents.messagecatalog.updated.v1"
        assert message.headers["Content-Type"] == "application/cloudevents+json"
    finally:
        stop.set()
        thread.join(timeout=10)


def test_unreachable_broker_is_retried_not_lost(su, private_sinks):
    from subscriptions.models import Delivery

    port = free_port()
    su.post(
        "/subscriptions",
        {"protocol": "MQTT5", "sink": f"mqtt://127.0.0.1:{port}", "protocolsettings": {"topicname": "t"}},
        format="json",
    )
    started = time.monotonic()
    su.put("/schemaGroups/nobroker", {}, format="json")
    delivery = Delivery.objects.get()
    assert delivery.status == "retrying" and "Error" in delivery.last_error
    assert time.monotonic() - started < 30
