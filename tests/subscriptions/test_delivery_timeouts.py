"""Issue 24 item 11: every protocol's connect and send end within the delivery timeout.

For HTTP, MQTT 3.1.1 and 5, NATS, AMQP and Kafka, against a closed port (refused at once), a port that accepts
and never answers, and (HTTP) a sink that drips its answer a byte at a time: the attempt ends within
2 x REGISTRY_DELIVERY_TIMEOUT (connect, then send), is recorded as a failed attempt with a clear reason, and is
retried later by the sweep like any failed delivery. A change is made in a thread, so that an attempt that
never ends (nats-py with `max_reconnect_attempts=0` retried a refused server forever) fails the test instead
of hanging it."""

import socket
import threading
import time
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from subscriptions import tasks
from subscriptions.models import Delivery, DeliveryAttempt
from tests.harness.services import free_port

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
TIMEOUT = 1.5
BOUND = 2 * TIMEOUT + 1  # connect and send, plus the request's own work
SETTINGS = {
    "HTTP": {},
    "MQTT3": {"topicname": "t"},
    "MQTT5": {"topicname": "t"},
    "NATS": {"subject": "s"},
    "AMQP": {"address": "q"},
    "KAFKA": {"topicname": "t"},
}
SCHEMES = {"HTTP": "http", "MQTT3": "mqtt", "MQTT5": "mqtt", "NATS": "nats", "AMQP": "amqp", "KAFKA": "kafka"}


@pytest.fixture
def bounded(private_sinks):
    private_sinks.REGISTRY_DELIVERY_TIMEOUT = TIMEOUT
    private_sinks.REGISTRY_WEBHOOK_HANDSHAKE = False
    private_sinks.REGISTRY_SWEEP_GRACE_SECONDS = 0
    return private_sinks


class Silent:
    """A TCP server that accepts connections and never answers (or, `drip`, answers a byte at a time)."""

    def __init__(self, drip: bytes = b""):
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(16)
        self.port = self.server.getsockname()[1]
        self.drip = drip
        self.held: list[socket.socket] = []
        self.stopped = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.stopped.is_set():
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.held.append(conn)
            if self.drip:
                threading.Thread(target=self._drip, args=(conn,), daemon=True).start()

    def _drip(self, conn):
        for index in range(10_000):
            if self.stopped.wait(0.2):
                return
            try:
                conn.sendall(self.drip[index % len(self.drip) : index % len(self.drip) + 1])
            except OSError:
                return

    def close(self):
        self.stopped.set()
        self.server.close()
        for conn in self.held:
            conn.close()


@pytest.fixture
def silent():
    server = Silent()
    yield server.port
    server.close()


@pytest.fixture
def dripping():
    server = Silent(drip=b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 1000)
    yield server.port
    server.close()


def change_within(client, bound: float, path: str = "/schemaGroups/g"):
    """PUT a group (its change event is delivered within the request, eagerly) in a thread; the seconds it took."""
    result = {}

    def run():
        try:
            result["response"] = client.put(path, {}, format="json")
        finally:
            connection.close()

    started = time.monotonic()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(bound + 30)
    elapsed = time.monotonic() - started
    assert not thread.is_alive(), f"the delivery attempt had not ended after {elapsed:.0f} s"
    assert result["response"].status_code in (200, 201)
    return elapsed


def subscribe(client, protocol, port):
    body = {
        "protocol": protocol,
        "sink": f"{SCHEMES[protocol]}://127.0.0.1:{port}",
        "protocolsettings": SETTINGS[protocol],
    }
    response = client.post("/subscriptions", body, format="json")
    assert response.status_code == 201, response.content


def assert_failed_then_retried(reason_words):
    delivery = Delivery.objects.get()
    assert delivery.status == "retrying" and delivery.attempts == 1
    assert delivery.next_attempt_at > timezone.now() - timedelta(seconds=1)
    [attempt] = DeliveryAttempt.objects.all()
    assert attempt.status_code is None and attempt.latency_ms < BOUND * 1000
    assert any(word in attempt.error for word in reason_words), attempt.error
    # the sweep retries it once it is due, as any failed delivery
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now() - timedelta(seconds=1))
    started = time.monotonic()
    tasks.sweep()
    assert time.monotonic() - started < BOUND
    delivery.refresh_from_db()
    assert delivery.attempts == 2 and delivery.status == "retrying"
    assert DeliveryAttempt.objects.count() == 2


CLOSED_REASONS = {
    "HTTP": ("Connection refused",),
    "MQTT3": ("Connection refused",),
    "MQTT5": ("Connection refused",),
    "NATS": ("could not connect", "Connect call failed"),
    "AMQP": ("Connection refused", "proton:io"),
    "KAFKA": ("Broker transport failure", "timed out", "Timed out"),
}
SILENT_REASONS = {
    "HTTP": ("ReadTimeout", "timed out", "within the delivery timeout"),
    "MQTT3": ("did not acknowledge",),
    "MQTT5": ("did not acknowledge",),
    "NATS": ("within", "timed out", "Timeout"),
    "AMQP": ("Timeout", "timed out"),
    "KAFKA": ("timed out", "Timed out", "transport failure", "did not acknowledge"),
}


@pytest.mark.parametrize("protocol", sorted(SETTINGS))
def test_a_closed_port_fails_within_the_timeout_and_is_retried(su, bounded, protocol):
    subscribe(su, protocol, free_port())
    elapsed = change_within(su, BOUND)
    assert elapsed < BOUND, f"{protocol}: the attempt took {elapsed:.1f} s"
    assert_failed_then_retried(CLOSED_REASONS[protocol])


@pytest.mark.parametrize("protocol", sorted(SETTINGS))
def test_a_port_that_never_answers_fails_within_the_timeout_and_is_retried(su, bounded, silent, protocol):
    subscribe(su, protocol, silent)
    elapsed = change_within(su, BOUND)
    assert elapsed < BOUND, f"{protocol}: the attempt took {elapsed:.1f} s"
    assert_failed_then_retried(SILENT_REASONS[protocol])


def test_an_http_sink_that_answers_a_byte_at_a_time_is_cut_at_the_timeout(su, bounded, dripping):
    """httpcore's read timeout is per read: each byte restarted it. The whole request is bounded now."""
    subscribe(su, "HTTP", dripping)
    elapsed = change_within(su, BOUND)
    assert elapsed < BOUND, f"the attempt took {elapsed:.1f} s"
    assert_failed_then_retried(("ReadTimeout", "within the delivery timeout"))
