"""The Subscriptions API (docs/api-contract.md section 7): CRUD, validation naming the field, defaults, credentials."""

import pytest

from subscriptions.models import Subscription

pytestmark = pytest.mark.django_db


def test_crud(su, private_sinks, sink):
    private_sinks.REGISTRY_WEBHOOK_HANDSHAKE = False
    body = {
        "id": "ignored",
        "protocol": "HTTP",
        "sink": sink.url,
        "filters": [{"dialect": "basic", "type": "prefix", "property": "subject", "value": "/schemaGroups"}],
    }
    response = su.post("/subscriptions", body, format="json")
    assert response.status_code == 201
    created = response.json()
    assert created["id"] != "ignored" and response["Location"].endswith(f"/subscriptions/{created['id']}")
    assert created["protocolsettings"] == {"method": "POST"} and created["status"] == "active"
    listing = su.get("/subscriptions")
    assert listing.json()[0]["id"] == created["id"]
    update = {**body, "id": created["id"], "protocolsettings": {"method": "PUT", "headers": {"X-Team": "a"}}}
    response = su.put(f"/subscriptions/{created['id']}", update, format="json")
    assert response.status_code == 200 and response.json()["protocolsettings"]["method"] == "PUT"
    assert su.put("/subscriptions/mine", body, format="json").status_code == 400  # id mismatch
    response = su.put("/subscriptions/mine", {**body, "id": "mine"}, format="json")
    assert response.status_code == 201 and response.json()["id"] == "mine"
    deleted = su.delete("/subscriptions/mine")
    assert deleted.status_code == 200 and deleted.json()["id"] == "mine"
    assert su.get("/subscriptions/mine").status_code == 404
    options = su.options("/subscriptions")
    assert "POST" in options["Allow"] and "GET" in options["Allow"]


def test_paging(su, private_sinks, sink):
    private_sinks.REGISTRY_WEBHOOK_HANDSHAKE = False
    for _ in range(3):
        su.post("/subscriptions", {"protocol": "HTTP", "sink": sink.url}, format="json")
    response = su.get("/subscriptions?limit=2")
    assert len(response.json()) == 2 and "rel=next;count=3" in response["Link"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"sink": "http://127.0.0.1:1/x"}, "protocol"),
        ({"protocol": "SMTP", "sink": "http://127.0.0.1:1/x"}, "protocol"),
        ({"protocol": "HTTP", "sink": "mqtt://127.0.0.1:1"}, "sink scheme"),
        ({"protocol": "HTTP"}, "sink"),
        ({"protocol": "MQTT5", "sink": "mqtt://127.0.0.1:1883"}, "protocolsettings.topicname is required"),
        ({"protocol": "NATS", "sink": "nats://127.0.0.1:4222"}, "protocolsettings.subject is required"),
        (
            {"protocol": "MQTT3", "sink": "mqtt://127.0.0.1:1883", "protocolsettings": {"topicname": "t", "qos": "1"}},
            "protocolsettings.qos must be an integer",
        ),
        ({"protocol": "KAFKA", "sink": "kafka://127.0.0.1:9092"}, "protocolsettings.topicname is required"),
        ({"protocol": "AMQP", "sink": "amqp://127.0.0.1:5672"}, "protocolsettings.address is required"),
        ({"protocol": "HTTP", "sink": "http://127.0.0.1:1/x", "filters": [{"dialect": "cesql"}]}, "filters[0].dialect"),
        (
            {"protocol": "HTTP", "sink": "http://127.0.0.1:1/x", "protocolsettings": {"verb": "GET"}},
            "protocolsettings.verb",
        ),
    ],
)
def test_validation_names_the_field(su, private_sinks, body, field):
    response = su.post("/subscriptions", body, format="json")
    assert response.status_code == 400
    assert field in response.json()["detail"]
    assert Subscription.objects.count() == 0


def test_mqtt_defaults(su, private_sinks):
    body = {"protocol": "MQTT5", "sink": "mqtt://127.0.0.1:1883", "protocolsettings": {"topicname": "registry"}}
    created = su.post("/subscriptions", body, format="json").json()
    assert created["protocolsettings"] == {"topicname": "registry", "qos": 1, "retain": False}


def test_private_sinks_refused_by_default(su, settings):
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = False
    for sink in ("http://127.0.0.1:8080/x", "http://10.1.2.3/x", "http://169.254.169.254/latest", "http://[::1]/x"):
        response = su.post("/subscriptions", {"protocol": "HTTP", "sink": sink}, format="json")
        assert response.status_code == 400 and "sink" in response.json()["detail"], sink
    assert not Subscription.objects.exists()


def test_credentials_are_never_echoed(su, private_sinks):
    body = {
        "protocol": "MQTT3",
        "sink": "mqtt://127.0.0.1:1883",
        "protocolsettings": {"topicname": "t", "username": "u", "password": "secret"},
    }
    created = su.post("/subscriptions", body, format="json").json()
    assert "password" not in created["protocolsettings"] and "secret" not in str(created)
    assert Subscription.objects.get().protocolsettings["password"] == "secret"
    body = {
        "protocol": "HTTP",
        "sink": "http://127.0.0.1:9/x",
        "protocolsettings": {"headers": {"Authorization": "Bearer secret", "X-Team": "a"}},
    }
    echoed = su.post("/subscriptions", body, format="json").json()
    assert echoed["protocolsettings"]["headers"] == {"X-Team": "***"}  # any header may be a secret


def test_writes_need_permission(anon):
    assert anon.post("/subscriptions", {"protocol": "HTTP", "sink": "http://x"}, format="json").status_code == 401
    assert not Subscription.objects.exists()
