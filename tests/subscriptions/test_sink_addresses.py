"""Issue 24 item 1: a sink is parsed once into the hosts its client dials; exactly those are checked and
dialled. Fragments, user info, queries and paths a protocol has no use for are refused; hosts in forms that
clients read differently are refused; addresses are checked against IANA's current special-purpose
registries (the data in subscriptions/validators/iana), not Python 3.11's table. With private sinks off."""

import ipaddress
import socket
import threading

import pytest

from subscriptions.models import DeliveryAttempt, Subscription
from subscriptions.validators.addresses import registry, unreachable_reason
from tests.helpers import assert_problem

pytestmark = pytest.mark.django_db
SETTINGS = {
    "HTTP": {},
    "MQTT3": {"topicname": "t"},
    "MQTT5": {"topicname": "t"},
    "NATS": {"subject": "s"},
    "AMQP": {"address": "q"},
    "KAFKA": {"topicname": "t"},
}


@pytest.fixture
def public_only(settings):
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = False
    settings.REGISTRY_WEBHOOK_HANDSHAKE = False
    return settings


@pytest.fixture
def listener():
    """A TCP listener on loopback that counts the connections it accepts."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    accepted = []

    def accept():
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            accepted.append(connection)
            connection.close()

    threading.Thread(target=accept, daemon=True).start()
    yield server.getsockname()[1], accepted
    server.close()


def post(client, protocol, sink):
    body = {"protocol": protocol, "sink": sink, "protocolsettings": SETTINGS[protocol]}
    return client.post("/subscriptions", body, format="json")


@pytest.mark.parametrize(
    ("protocol", "sink", "named"),
    [
        # the case: urlsplit reads 8.8.8.8, librdkafka the text after the last '@'
        ("KAFKA", "kafka://8.8.8.8:18490#@127.0.0.1:18490", "fragment"),
        ("KAFKA", "kafka://8.8.8.8:18490@127.0.0.1:18490", "user info"),
        ("KAFKA", "kafka://8.8.8.8:9092,127.0.0.1:9092", "not a globally routable"),
        ("KAFKA", "SASL_SSL://8.8.8.8:9092/x@127.0.0.1:1", "path"),
        ("KAFKA", "kafka://8.8.8.8:9092?x", "query"),
        ("KAFKA", "kafka://8.8.8.8", "needs a port"),
        ("HTTP", "http://8.8.8.8/#@127.0.0.1/", "fragment"),
        ("HTTP", "http://8.8.8.8:80@127.0.0.1/", "not a globally routable"),  # the host is 127.0.0.1
        ("HTTP", "http://8.8.8.8\\@127.0.0.1/", "backslash"),
        ("HTTP", "http://127.1/", "dotted-quad"),
        ("HTTP", "http://2130706433/", "dotted-quad"),
        ("HTTP", "http://0x7f.0.0.1/", "dotted-quad"),
        ("HTTP", "http://%31%32%37.0.0.1/", "percent-encoded host"),
        ("HTTP", "http://[fe80::1%25eth0]/", "percent-encoded host"),
        ("HTTP", "http://8.8.8.8,127.0.0.1/", "several hosts"),
        ("HTTP", "http://8.8.8.8:0/", "outside 1-65535"),
        ("MQTT3", "mqtt://8.8.8.8:1883@127.0.0.1:1883", "not a globally routable"),
        ("MQTT5", "mqtt://8.8.8.8:1883/topic", "path"),
        ("MQTT5", "mqtt://8.8.8.8:1883?x=1", "query"),
        ("MQTT3", "mqtt://8.8.8.8:1883#@127.0.0.1", "fragment"),
        ("NATS", "nats://8.8.8.8:4222,127.0.0.1:4222", "several hosts"),
        ("NATS", "nats://8.8.8.8:4222#x", "fragment"),
        ("NATS", "nats://a@b@8.8.8.8:4222", "percent-encoded"),
        ("AMQP", "amqp://8.8.8.8:5672/q#@127.0.0.1", "fragment"),
        ("AMQP", "amqp://8.8.8.8:5672/q?x=1", "query"),
    ],
)
def test_sinks_that_clients_could_read_differently_are_refused(su, public_only, protocol, sink, named):
    before = Subscription.objects.count()
    response = post(su, protocol, sink)
    assert_problem(response, 400, "sink", named)
    assert Subscription.objects.count() == before


@pytest.mark.parametrize(
    "address",
    [
        "192.0.0.8",  # IPv4 dummy address (RFC 7600): Python 3.11 calls it global
        "192.0.0.170",
        "192.88.99.2",
        "192.88.99.1",
        "0.1.2.3",
        "240.0.0.1",
        "255.255.255.255",
        "224.0.0.251",
        "3fff::1",  # documentation (RFC 9637)
        "5f00::1",  # SRv6 SIDs (RFC 9602)
        "100:0:0:1::1",  # dummy IPv6 prefix (RFC 9780)
        "2001:2::1",
        "2001:10::1",
        "4000::1",  # outside 2000::/3
        "::7f00:1",
        "ff02::1",
        "64:ff9b::c000:8",  # NAT64 of 192.0.0.8
    ],
)
@pytest.mark.parametrize("protocol", ["HTTP", "KAFKA", "MQTT5"])
def test_addresses_iana_does_not_list_as_globally_reachable_are_refused(su, public_only, protocol, address):
    host = f"[{address}]" if ":" in address else address
    scheme = {"HTTP": "http", "KAFKA": "kafka", "MQTT5": "mqtt"}[protocol]
    response = post(su, protocol, f"{scheme}://{host}:9092")
    assert_problem(response, 400, "sink", "not a globally routable")
    assert not Subscription.objects.exists()


@pytest.mark.parametrize("address", ["8.8.8.8", "192.0.0.9", "192.31.196.1", "2606:4700::1111", "2001:1::1"])
def test_globally_reachable_addresses_are_accepted(su, public_only, address):
    """The registry's exceptions inside refused blocks (192.0.0.9/32 in 192.0.0.0/24) are reachable."""
    host = f"[{address}]" if ":" in address else address
    response = post(su, "MQTT5", f"mqtt://{host}:1883")
    assert response.status_code == 201, response.content
    assert Subscription.objects.get().sink == f"mqtt://{host}:1883"


def test_the_rule_follows_every_entry_of_the_shipped_registries():
    """Each block's first and last address get the registry's verdict unless a more specific entry holds them."""
    for version in (4, 6):
        entries = registry(version)
        assert len(entries) >= 25
        for entry in entries:
            for address in (entry.network[0], entry.network[-1]):
                most_specific = next(e for e in entries if address in e.network)
                if most_specific is entry and not (
                    address.version == 6 and address in ipaddress.ip_network("64:ff9b::/96")
                ):
                    assert (unreachable_reason(address) is None) is entry.reachable, (address, entry)


def test_a_stored_kafka_sink_with_a_fragment_never_reaches_the_host_after_the_at(
    su, public_only, listener, django_capture_on_commit_callbacks
):
    """A subscription stored before the fix: the delivery re-parses, refuses, and dials nothing."""
    port, accepted = listener
    Subscription.objects.create(
        protocol="KAFKA",
        sink=f"kafka://8.8.8.8:18490#@127.0.0.1:{port}",
        protocolsettings={"topicname": "t"},
        status="active",
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert su.put("/schemaGroups/g", {}, format="json").status_code == 201
    attempt = DeliveryAttempt.objects.get()
    assert attempt.error.startswith("refused:") and "fragment" in attempt.error
    assert accepted == []


@pytest.mark.parametrize(
    ("protocol", "sink"),
    [
        ("HTTP", "http://192.0.0.8:{port}/hook"),
        ("HTTP", "http://localhost:{port}/hook"),
        ("MQTT5", "mqtt://127.0.0.1:{port}"),
        ("NATS", "nats://[::ffff:127.0.0.1]:{port}"),
        ("AMQP", "amqp://guest:guest@127.0.0.1:{port}/q"),
        ("KAFKA", "kafka://8.8.8.8:9092,127.0.0.1:{port}"),
    ],
)
def test_a_stored_private_sink_is_refused_again_at_delivery(
    su, public_only, listener, django_capture_on_commit_callbacks, protocol, sink
):
    port, accepted = listener
    Subscription.objects.create(
        protocol=protocol, sink=sink.format(port=port), protocolsettings=SETTINGS[protocol], status="active"
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert su.put("/schemaGroups/g", {}, format="json").status_code == 201
    attempt = DeliveryAttempt.objects.get()
    assert attempt.error.startswith("refused:") and "not a globally routable" in attempt.error
    assert accepted == []


def test_the_http_client_checks_the_address_it_dials(public_only, listener):
    """The outbound pool (webhooks, the handshake, sync) refuses at connect time whatever the URL parser
    made of the host, so a name that resolves elsewhere after the check gets nowhere either."""
    import httpx

    from subscriptions import outbound

    port, accepted = listener
    for url in (f"http://127.0.0.1:{port}/", f"http://localhost:{port}/", f"http://[::ffff:7f00:1]:{port}/"):
        with outbound.client(timeout=5) as client, pytest.raises(httpx.ConnectError, match="refused"):
            client.get(url)
    assert accepted == []
